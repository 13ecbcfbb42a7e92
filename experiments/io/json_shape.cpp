#include "experiments/io/json_shape.h"

#include <cstddef>
#include <stdexcept>

#include "nn/excerpt.h"

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

constexpr std::size_t kMaxElements = 100000;

std::string at(const std::string& path) {
  return "field " + (path.empty() ? "(top)" : path);
}

std::string type_problem(const json& value, const std::string& type, const std::string& path) {
  const bool ok = type == "any" || (type == "number" && value.is_number()) ||
                  (type == "integer" && value.is_number_integer()) ||
                  (type == "string" && value.is_string()) ||
                  (type == "boolean" && value.is_boolean());
  return ok ? "" : at(path) + ": must be " + (type == "integer" ? "an " : "a ") + type;
}

std::string problem(const json& value, const json& shape, const std::string& path);

std::string array_problem(const json& value, const json& shape, const std::string& path) {
  if (!value.is_array()) return at(path) + ": must be an array";
  const std::size_t min = shape.size() > 1 ? shape[1].get<std::size_t>() : 0;
  const std::size_t max = shape.size() > 2 ? shape[2].get<std::size_t>() : kMaxElements;
  if (value.size() < min || value.size() > max)
    return at(path) + ": must have " + std::to_string(min) + " to " + std::to_string(max) +
           " elements (has " + std::to_string(value.size()) + ")";
  for (std::size_t i = 0; i < value.size(); ++i)
    if (std::string p = problem(value[i], shape[0], path + "[" + std::to_string(i) + "]");
        !p.empty())
      return p;
  return "";
}

std::string object_problem(const json& value, const json& shape, const std::string& path) {
  if (!value.is_object()) return at(path) + ": must be an object";
  for (auto it = shape.begin(); it != shape.end(); ++it) {
    std::string key = it.key();
    const bool optional = key.ends_with('?');
    if (optional) key.pop_back();
    const std::string inner = path.empty() ? key : path + "." + key;
    if (!value.contains(key)) {
      if (optional) continue;
      return at(inner) + ": missing";
    }
    if (std::string p = problem(value[key], it.value(), inner); !p.empty()) return p;
  }
  return "";
}

std::string problem(const json& value, const json& shape, const std::string& path) {
  if (shape.is_string()) return type_problem(value, shape.get<std::string>(), path);
  if (shape.is_array()) return array_problem(value, shape, path);
  return object_problem(value, shape, path);
}

}  // namespace

std::string json_shape_problem(const json& value, const json& shape) {
  return problem(value, shape, "");
}

void check_json_shape(const json& value, const json& shape, const std::string& file) {
  if (std::string p = json_shape_problem(value, shape); !p.empty())
    throw std::invalid_argument(file + ": " + excerpt(p, 300));
}

}  // namespace ablate::experiments
