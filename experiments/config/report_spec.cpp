#include "experiments/config/report_spec.h"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include "experiments/config/setting_keys.h"
#include "experiments/config/toml_writer.h"

namespace ablate::experiments {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

}  // namespace

ReportSpec read_report_spec(const toml::table& doc, const std::string& file,
                            const PositionIndex& positions, const std::vector<AxisValues>& axes,
                            std::vector<ConfigProblem>& problems) {
  ReportSpec spec;
  TomlReader top(&doc, "", file, problems, positions);
  const toml::table* table = top.table("report");
  TomlReader r = top.child(table, "report");
  read_setting_keys(r, spec);  // the scalar keys (setting_keys.h); baseline and claims below

  // baseline: named keys first, checked; then each axis's first entry where unnamed.
  std::map<std::string, std::string> named;
  if (const toml::table* baseline = r.table("baseline")) {
    TomlReader b = r.child(baseline, "baseline");
    std::vector<std::string> swept;
    for (const AxisValues& a : axes) swept.insert(swept.end(), a.keys.begin(), a.keys.end());
    for (const auto& [k, v] : *baseline) {
      const std::string key(k.str());
      b.node(key);
      auto axis = std::find_if(axes.begin(), axes.end(), [&](const AxisValues& a) {
        return std::find(a.keys.begin(), a.keys.end(), key) != a.keys.end();
      });
      if (axis == axes.end()) {
        b.problem(key, swept.empty()
                           ? "the experiment sweeps nothing, so there is no baseline to choose"
                           : "is not a swept key; the baseline names swept keys: " + joined(swept));
        continue;
      }
      const std::size_t k_index =
          std::size_t(std::find(axis->keys.begin(), axis->keys.end(), key) - axis->keys.begin());
      const std::vector<std::string>& values = axis->values[k_index];
      const std::string value = display_value(v);
      if (std::find(values.begin(), values.end(), value) == values.end()) {
        b.problem(key, "\"" + value + "\" is not one of the swept values: " + joined(values));
        continue;
      }
      named[key] = value;
    }
    b.finish();
  }

  for (const AxisValues& a : axes) {
    // The entry the named keys of this axis agree on (the first entry when none).
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < a.values[0].size(); ++i) {
      bool fits = true;
      for (std::size_t k = 0; k < a.keys.size(); ++k)
        if (auto it = named.find(a.keys[k]); it != named.end() && a.values[k][i] != it->second)
          fits = false;
      if (fits) candidates.push_back(i);
    }
    if (candidates.empty()) {
      std::vector<std::string> given;
      for (const std::string& k : a.keys)
        if (named.count(k)) given.push_back(k + " = " + named[k]);
      r.problem("baseline", "names values of one [sweep.zip] group that no entry has together (" +
                                joined(given) + ")");
      continue;
    }
    bool any_named = std::any_of(a.keys.begin(), a.keys.end(),
                                 [&](const std::string& k) { return named.count(k); });
    const bool default_axis = !table || !table->contains("baseline");
    if (!any_named && !default_axis) continue;  // an axis the baseline leaves free
    for (std::size_t k = 0; k < a.keys.size(); ++k)
      spec.baseline.emplace_back(a.keys[k], a.values[k][candidates[0]]);
  }
  spec.claims = read_claims(r, axes, spec.baseline);
  r.finish();
  return spec;
}

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

std::string check_report_metric(const ReportSpec& spec, const std::string& task_kind) {
  const std::vector<std::string>& allowed = test_metrics(task_kind);
  if (spec.metric.empty() ||
      std::find(allowed.begin(), allowed.end(), spec.metric) != allowed.end())
    return "";
  return "\"" + spec.metric + "\" is not a test metric of this task; allowed: " + joined(allowed);
}

}  // namespace ablate::experiments
