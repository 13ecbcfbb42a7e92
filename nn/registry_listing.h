#pragma once
// Every registered component on every axis, for `ablate list` and for validating
// experiment files: the axis, the name, its description and its options.
#include <optional>
#include <string>
#include <vector>

#include "nn/options.h"

namespace ablate::nn {

struct ComponentInfo {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;
};

struct AxisInfo {
  std::string axis;  // "positions", "norm", "attention.qk", ...
  std::vector<ComponentInfo> components;
};

std::vector<AxisInfo> registry_listing();

// The schema of one component; nullopt if the axis or name is unknown.
std::optional<std::vector<OptionSpec>> component_options(const std::string& axis,
                                                         const std::string& name);

// A readable listing: one block per axis, one line per component, options indented.
std::string format_registry_listing();

}  // namespace ablate::nn
