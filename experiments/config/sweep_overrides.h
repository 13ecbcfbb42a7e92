#pragma once
// How overrides (overrides.h) meet an experiment file's grid, its [sweep] and [tune]
// tables. The command line wins, as a researcher expects:
//   - an override of a swept or tuned key replaces that axis with its one value (and
//     says so: a note, printed on stderr when the file is loaded);
//   - KEY=a,b (multirun) makes KEY's axis those values: in [tune] when the file tunes
//     KEY, else in [sweep];
//   - a key of a [sweep.zip] group is refused (its values go with the group's other
//     keys): the message says how to set the group's lists;
//   - a key inside a swept one (model.norm.eps while [sweep] sweeps model.norm) is
//     refused too: each sweep value replaces it.
// `sweep.KEY=[...]` and `tune.KEY=[...]` set the axis itself, as in the file.
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/overrides.h"

namespace ablate::experiments {

// Writes the dotted keys of [sweep], of its [sweep.zip] groups and of [tune] that TOML
// read as nested tables (`model.norm.kind = [...]` unquoted) as the one dotted key each
// is ("model.norm.kind"), keeping their source positions.
void flatten_grid_tables(toml::table& doc);

// Applies `o` to `doc` (whose grid tables are flattened) as above; appends a note to
// `notes` for each axis it replaces. Returns "" or why it cannot be applied.
std::string apply_to_document(toml::table& doc, const Override& o, std::vector<std::string>& notes);

}  // namespace ablate::experiments
