#pragma once
// What every declared key of an experiment file shares, whether it configures a trial
// (plain_keys.h) or the run ([report], [study]: setting_keys.h): reading it by its
// nn::OptionSpec (type from the default, range, choices) and showing it the same way in
// `ablate list` and the generated key tables of docs/reference/.
#include <limits>
#include <set>
#include <string>

#include "experiments/config/toml_reader.h"
#include "nn/options.h"

namespace ablate::experiments {

// The largest integer a key may declare as its bound (shown as 2⁶³−1).
constexpr double kMaxDeclaredInt = double(std::numeric_limits<std::int64_t>::max());

// Reads `spec.key` of the reader's table as the spec's type, within its range or choices;
// the spec's default when absent (a problem, and the default, when invalid).
nn::OptionValue read_declared(TomlReader& r, const nn::OptionSpec& spec);

std::string declared_type_name(const nn::OptionValue& v);   // bool, integer, float, string
std::string declared_value_text(const nn::OptionValue& v);  // as TOML writes it: 0.0, not 0
std::string declared_allowed(const nn::OptionSpec& spec);   // `a`, `b` | 1 – 64 | ""

// The header of a generated key table.
inline const char* kKeyTableHeader =
    "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";

// The words of a dotted path ("model.attention.d_k" → model, attention, d_k), for the
// fuzz dictionary.
void add_path_words(const std::string& path, std::set<std::string>& words);

}  // namespace ablate::experiments
