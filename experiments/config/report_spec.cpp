#include "experiments/config/report_spec.h"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include "experiments/config/toml_writer.h"

namespace ablate::experiments {

std::string primary_metric(const std::string& report_metric, const std::string& task_kind) {
  return report_metric.empty() ? test_metrics(task_kind).front() : report_metric;
}

const std::vector<std::string>& test_metrics(const std::string& task_kind) {
  static const std::map<std::string, std::vector<std::string>> by_task{
      {"forecast", {"mse", "mae", "mase", "smape", "loss"}},
      {"lm", {"bpc", "perplexity", "token_accuracy", "loss"}},
      {"g2p", {"per", "wer", "sequence_accuracy", "token_accuracy", "loss"}},
      {"text_pairs", {"sequence_accuracy", "cer", "wer", "bleu", "chrf", "token_accuracy", "loss"}},
  };
  static const std::vector<std::string> sequence{"sequence_accuracy", "token_accuracy", "loss"};
  auto it = by_task.find(task_kind);
  return it == by_task.end() ? sequence : it->second;
}

bool higher_is_better(const std::string& metric) {
  if (metric.starts_with("steps_to_")) return false;
  const std::string base = metric.starts_with("auc_") ? metric.substr(4) : metric;
  return base.find("accuracy") != std::string::npos || base == "bleu" || base == "chrf";
}

MetricRange metric_range(const std::string& metric) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (metric.starts_with("steps_to_")) return {0, inf};
  std::string base = metric.starts_with("auc_") ? metric.substr(4) : metric;
  // <m>_len<L> and <m>_ctx<L> (by-length and by-context variants) are <m>'s.
  for (const char* kind : {"_len", "_ctx"})
    if (auto at = base.rfind(kind);
        at != std::string::npos && at + 4 < base.size() &&
        base.find_first_not_of("0123456789", at + 4) == std::string::npos)
      base.resize(at);
  if (base.find("accuracy") != std::string::npos) return {0, 1};
  if (base == "bleu" || base == "chrf") return {0, 100};
  if (base == "smape") return {0, 200};
  if (base == "perplexity") return {1, inf};
  return {0, inf};
}

std::vector<std::string> curve_metric_names(const std::string& primary,
                                            std::optional<double> threshold) {
  std::vector<std::string> names{std::string("auc_") + primary};
  if (threshold) {
    std::ostringstream t;
    t << std::setprecision(6) << *threshold;
    names.push_back(std::string("steps_to_") + primary + "_" + t.str());
  }
  return names;
}

std::string metric_split(const std::string& metric) {
  return metric.starts_with("auc_") || metric.starts_with("steps_to_") ? "validation" : "test";
}

}  // namespace ablate::experiments
