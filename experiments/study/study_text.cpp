#include "experiments/study/study_text.h"

#include <iomanip>
#include <sstream>

namespace ablate::experiments {

std::string study_number(double v, int digits) {
  std::ostringstream s;
  s << std::setprecision(digits) << v;
  return s.str();
}

std::string mean_pm_std(const nlohmann::json& ms) {
  return study_number(ms["mean"].get<double>()) + " ± " + study_number(ms["std"].get<double>(), 2);
}

}  // namespace ablate::experiments
