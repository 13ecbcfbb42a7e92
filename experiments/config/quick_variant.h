#pragma once
// `ablate run FILE --quick`: the same study at reduced size, declared in the file
// itself so it cannot drift from the full one. An experiment file's [quick] table
// lists dotted keys and values (`"train.steps" = 300`, `"sweep.seeds" = [0, 1]`);
// with --quick each is applied as an override (overrides.h), in the file's order and
// before the command line's, and the run is named "<name>-quick" so that its trials
// and reports never mix with the full run's. Without --quick the table is only
// checked for its shape.
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/config_error.h"
#include "experiments/config/overrides.h"
#include "experiments/config/toml_reader.h"

namespace ablate::experiments {

// The overrides --quick applies: each [quick] entry (recorded with its position in
// `path`, so that a problem in its value points at that line), then the name. A file
// without [quick], or an entry that is not `"dotted.key" = value`, appends a problem.
std::vector<Override> quick_overrides(const toml::table& doc, const std::string& path,
                                      const PositionIndex& positions,
                                      std::vector<ConfigProblem>& problems);

// What quick_overrides would complain about, for a load without --quick.
void check_quick_table(const toml::table& doc, const std::string& path,
                       const PositionIndex& positions, std::vector<ConfigProblem>& problems);

}  // namespace ablate::experiments
