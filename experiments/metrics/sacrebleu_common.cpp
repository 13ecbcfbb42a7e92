// See sacrebleu_common.h: reference gathering and nrefs, as sacreBLEU 2.x's base.py.
#include "experiments/metrics/sacrebleu_common.h"

#include <set>
#include <stdexcept>

namespace ablate::experiments::metrics {

std::vector<std::string> nonempty_references(const std::vector<std::string>& references) {
  std::vector<std::string> kept;
  for (const auto& r : references)
    if (!r.empty()) kept.push_back(r);
  if (kept.empty())
    throw std::invalid_argument(
        "Empty reference sentence found (every reference of a sentence is empty)");
  return kept;
}

std::string nrefs_label(const std::vector<std::vector<std::string>>& references) {
  std::set<std::size_t> counts;
  for (const auto& refs : references) {
    std::size_t n = 0;
    for (const auto& r : refs) n += r.empty() ? 0 : 1;
    counts.insert(n);
  }
  if (counts.size() == 1) return std::to_string(*counts.begin());
  return "var";
}

}  // namespace ablate::experiments::metrics
