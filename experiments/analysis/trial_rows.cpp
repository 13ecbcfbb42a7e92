#include "experiments/analysis/trial_rows.h"

namespace ablate::experiments {

std::optional<double> summary_number(const nlohmann::json& summary, const std::string& group,
                                     const std::string& key) {
  if (!summary.is_object()) return std::nullopt;
  const auto part = summary.find(group);
  if (part == summary.end() || !part->is_object()) return std::nullopt;
  const auto value = part->find(key);
  if (value == part->end() || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

}  // namespace ablate::experiments
