#pragma once
// The shape a JSON file must have before code reads it with operator[]: which keys an
// object needs and of what type, how long an array is. A reader checks a file from
// elsewhere against its shape once, then reads it without asking at every step, and
// a bad file is an error naming the file and the field instead of undefined behaviour.
//
// A shape is itself JSON:
//   "number", "integer", "string", "boolean", "any"    a value of that type
//   {"key": shape, "key?": shape}                        an object with those keys
//                                                        ("?": optional); other keys allowed
//   [shape] / [shape, min] / [shape, min, max]           an array of at most 100,000 (or max)
//                                                        elements, at least min, each `shape`
#include <nlohmann/json.hpp>
#include <string>

namespace ablate::experiments {

// Where `value` departs from `shape` ("field attention[2].d_k: must be an integer"),
// or "" when it has the shape.
std::string json_shape_problem(const nlohmann::json& value, const nlohmann::json& shape);

// Throws std::invalid_argument "<file>: field ...: ..." when `value` departs from `shape`.
void check_json_shape(const nlohmann::json& value, const nlohmann::json& shape,
                      const std::string& file);

}  // namespace ablate::experiments
