#include "experiments/config/axis_values.h"

#include <algorithm>

namespace ablate::experiments {

const std::vector<std::string>* swept_values(const std::vector<AxisValues>& axes,
                                             const std::string& key) {
  for (const AxisValues& a : axes)
    if (auto k = std::find(a.keys.begin(), a.keys.end(), key); k != a.keys.end())
      return &a.values[std::size_t(k - a.keys.begin())];
  return nullptr;
}

}  // namespace ablate::experiments
