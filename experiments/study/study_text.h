#pragma once
// How study.md writes its numbers (study_report.h).
#include <nlohmann/json.hpp>
#include <string>

namespace ablate::experiments {

// `digits` significant digits.
std::string study_number(double v, int digits = 4);
// "0.8123 ± 0.021" from {"mean": …, "std": …}: the mean to four digits, the std to two.
std::string mean_pm_std(const nlohmann::json& ms);

}  // namespace ablate::experiments
