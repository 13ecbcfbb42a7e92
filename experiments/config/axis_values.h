#pragma once
// The swept keys of an experiment and their values, by axis, as [report] baseline and
// claims pick points by them.
#include <string>
#include <vector>

namespace ablate::experiments {

// One sweep axis: its keys (several for a zip group) and each key's values as point
// labels show them (values[key][entry]).
struct AxisValues {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
};

// The values `key` is swept over, or nullptr when no axis sweeps it.
const std::vector<std::string>* swept_values(const std::vector<AxisValues>& axes,
                                             const std::string& key);

}  // namespace ablate::experiments
