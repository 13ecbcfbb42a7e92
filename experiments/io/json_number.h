#pragma once
// NaN and infinity are not JSON numbers (nlohmann writes them as null): summary.json
// writes them as the strings "nan", "inf", "-inf", which the reports read back.
#include <cmath>

#include <nlohmann/json.hpp>

namespace ablate::experiments {

inline nlohmann::json finite_or_string(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

}  // namespace ablate::experiments
