#pragma once
// TOML text, written here rather than by TOML++'s formatter, for two reasons: floats
// come out in their shortest round-trip form (0.003, not the 0.0030000000000000001 of
// TOML++ 3.3.0, which prints 17 significant digits), and its array formatter is not
// used (3.3.0 casts log10 of each float in an array to size_t, undefined for floats
// below 1 — found by the experiment-file fuzzer).
#include <string>

#include <toml++/toml.h>

namespace ablate::experiments {

// The shortest text that reads back as the same double, always a TOML float ("3.0",
// "1e-05", "inf", "nan").
std::string shortest_float_text(double value);

// One value as TOML: strings quoted and escaped, arrays and tables inline.
std::string toml_value_text(const toml::node& value);

// A document: the table's own keys, then each subtable under its [dotted.header], in
// the table's (sorted) key order. Reads back as an equal table.
std::string toml_document_text(const toml::table& table);

// A value as sweep point labels show it: strings bare (also inside arrays and tables),
// everything else as toml_value_text writes it.
std::string display_value(const toml::node& value);

}  // namespace ablate::experiments
