#pragma once
// A sample's mean and standard deviation over seeds, as summary.md's tables print
// them ("0.8123 ± 0.021", "—" for no value).
#include <string>
#include <vector>

namespace ablate::experiments {

struct MeanStd {
  double mean = 0, std = 0;  // the sample std (n − 1); 0 for one value
  int n = 0;
};

MeanStd mean_std(const std::vector<double>& v);
std::string format(const MeanStd& m);
// The mean alone, four significant digits; "" for no value.
std::string format_mean(const std::vector<double>& v);

}  // namespace ablate::experiments
