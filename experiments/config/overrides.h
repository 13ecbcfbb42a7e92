#pragma once
// Command-line overrides: `ablate run FILE model.d_model=128 model.norm.kind=rms
// 'sweep.seeds=[0,1,2]' model.positions.kind=rotary,alibi`. Each is a dotted key, `=`
// and a value: a TOML value when the text after `=` is one (2000, 3e-4, true, "rms",
// [0, 1], { kind = "rotary" }, 2024-01-01), else the text itself as a string (a bare
// word: rms, ten, data/a.tsv); a comma list of such values (not inside brackets or
// quotes) sweeps the key over them, replacing its axis (Hydra's multirun). Overrides
// are applied to the experiment file's document before anything is read from it
// (sweep_overrides.h: an override of a swept key replaces its axis), so they are
// validated like the file — a problem in an overridden value names the override — and
// they are recorded in the run's experiment.toml (as a comment block after the file's
// text).
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/config_error.h"

namespace ablate::experiments {

struct Override {
  std::string text;               // as given: "model.d_model=128"
  std::vector<std::string> keys;  // the key path it sets: {"model", "d_model"}
  toml::table value;              // the parsed line: { model = { d_model = 128 } }
  // Where it was written when not on the command line: the [quick] entry of the file
  // (quick_variant.h), so that a problem in its value points at that line.
  std::string file;  // "" = the command line
  std::int64_t line = 0, column = 0;
  std::string origin_key;  // "quick.train.steps"
  // KEY=a,b: `value` holds the list at `keys`, which becomes KEY's axis in [sweep] (or
  // in [tune] when the file tunes KEY).
  bool multirun = false;
};

// "model.norm.kind" for {"model", "norm", "kind"}.
std::string dotted_key(const std::vector<std::string>& keys);

// The values of a comma list, split at the commas outside quotes, brackets and braces,
// each trimmed ("layer, rms" → {"layer", "rms"}; "[0,1]" → {"[0,1]"}).
std::vector<std::string> comma_items(const std::string& value);

// Parses every override; all malformed ones are thrown at once as a ConfigError naming
// each ("override 'model.d_model': expected key=value", "override 'train.steps=': no
// value after '='").
std::vector<Override> parse_overrides(const std::vector<std::string>& texts);

// Sets each override's key path in `doc`, in order (a later one wins), creating tables
// on the way; a component written as a name ("norm = 'layer'") becomes { kind = ... }
// when a key below it is set. Returns "" or what prevented it (a key inside a value
// that is not a table).
std::string apply_override(toml::table& doc, const Override& o);

// Sets `value` at the key path `keys` of `doc` the same way (used by sweeps too).
std::string set_key_path(toml::table& doc, const std::vector<std::string>& keys,
                         const toml::node& value);

// The comment block recorded after the experiment file's text in experiment.toml
// (the --quick ones first, marked as such).
std::string overrides_block(const std::vector<Override>& overrides);

// The override that set `key` (a dotted key path), or one below or above it; null if none.
const Override* override_of(const std::vector<Override>& overrides, const std::string& key);

}  // namespace ablate::experiments
