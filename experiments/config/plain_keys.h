#pragma once
// Every plain key of an experiment file — a value that is not a registered component
// (model.d_model, model.norm.placement, train.steps, ...) — declared once: where it
// lives, its type and default (an nn::OptionSpec, as component options are), what it
// means, how it enters the trial's identity, and the TrialConfig field it sets. The
// declaration drives reading the file, writing the resolved config.toml, `ablate
// list`, the key tables of docs/reference/ (a test compares them) and the
// round-trip test of every key. Adding an option is one line in plain_keys.cpp.
//
// Identity policy (how a key enters config.toml, whose hash is the trial id):
//   always:          written always. Every key that existed when the first results
//                    were made.
//   unless_neutral:  written only when it differs from `neutral`, the value that
//                    behaves as ablate did before the key existed — so adding a key
//                    leaves the ids of existing trials unchanged. Every key added later.
//   never:           not written: run settings that cannot change a result
//                    (train.resume_every) and prose (description).
#include <functional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/toml_reader.h"
#include "experiments/config/trial_config.h"
#include "nn/options.h"

namespace ablate::experiments {

enum class InIdentity { always, unless_neutral, never };

struct PlainKey {
  std::string
      table;  // dotted path of its table: "" (top level), "model", "model.attention", "train", ...
  nn::OptionSpec spec;  // key, default (its type is the key's type), doc, range, choices
  InIdentity identity = InIdentity::always;
  nn::OptionValue neutral{};  // for unless_neutral
  std::function<nn::OptionValue(const TrialConfig&)> get;
  std::function<void(TrialConfig&, const nn::OptionValue&)> set;
  std::string path() const { return table.empty() ? spec.key : table + "." + spec.key; }
};

// In the order they are read (and listed).
const std::vector<PlainKey>& plain_keys();

// Reads every plain key of the reader's table into `c` (the default when absent).
void read_plain_keys(TomlReader& r, TrialConfig& c);
// Writes the plain keys of `table` into `out`, following each key's identity policy.
void write_plain_keys(const TrialConfig& c, const std::string& table, toml::table& out);

// The Markdown table of the plain keys of `table` (a page of docs/reference/ holds it
// between <!-- keys: TABLE --> and <!-- /keys -->).
std::string plain_keys_markdown(const std::string& table);
// One line per key, for `ablate list`.
std::string format_plain_keys();
// libFuzzer dictionary entries ("d_model", "placement", "layer", "rotary", ...): every
// table and key of a plain key, and every registered component's name and option keys
// (tasks included), one quoted entry per line, sorted.
std::string fuzz_dictionary();

}  // namespace ablate::experiments
