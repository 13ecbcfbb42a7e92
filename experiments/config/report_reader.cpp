#include "experiments/config/report_reader.h"

#include <algorithm>
#include <map>

#include "experiments/config/axis_values.h"
#include "experiments/config/claims_spec.h"
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
      const std::vector<std::string>* values = swept_values(axes, key);
      if (!values) {
        b.problem(key, swept.empty()
                           ? "the experiment sweeps nothing, so there is no baseline to choose"
                           : "is not a swept key; the baseline names swept keys: " + joined(swept));
        continue;
      }
      const std::string value = display_value(v);
      if (std::find(values->begin(), values->end(), value) == values->end()) {
        b.problem(key, "\"" + value + "\" is not one of the swept values: " + joined(*values));
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

std::string check_report_metric(const ReportSpec& spec, const std::string& task_kind) {
  const std::vector<std::string>& allowed = test_metrics(task_kind);
  if (spec.metric.empty() ||
      std::find(allowed.begin(), allowed.end(), spec.metric) != allowed.end())
    return "";
  return "\"" + spec.metric + "\" is not a test metric of this task; allowed: " + joined(allowed);
}

std::vector<ConfigProblem> check_claims(const ReportSpec& spec, const std::string& task_kind,
                                        const std::string& file, const PositionIndex& positions) {
  std::vector<ConfigProblem> problems;
  const std::string primary = primary_metric(spec.metric, task_kind);
  const std::vector<std::string>& tested = test_metrics(task_kind);
  const std::vector<std::string> curves = curve_metric_names(primary, spec.threshold);
  auto is_variant = [&tested](const std::string& metric) {  // <m>_len<L> or <m>_ctx<L>
    for (const std::string& m : tested)
      for (const char* kind : {"_len", "_ctx"}) {
        const std::string prefix = m + kind;
        if (metric.size() > prefix.size() && metric.starts_with(prefix) &&
            metric.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
          return true;
      }
    return false;
  };
  for (std::size_t i = 0; i < spec.claims.size(); ++i) {
    const ClaimSpec& claim = spec.claims[i];
    const std::string at = std::string("report.claims[") + std::to_string(i) + "]";
    auto problem = [&](const std::string& key, const std::string& message) {
      auto [line, column] = positions.find(at + "." + key);
      problems.push_back({file, line, column, at + "." + key, message});
    };
    const std::string metric = claim_metric(claim, primary);
    const bool known = std::find(tested.begin(), tested.end(), metric) != tested.end() ||
                       std::find(curves.begin(), curves.end(), metric) != curves.end() ||
                       is_variant(metric) ||
                       (!spec.lr_sensitivity.empty() && metric == kLrSensitivity);
    if (!known)
      problem("metric",
              std::string("\"") + metric +
                  "\" is not a metric this run reports; allowed: " + joined(tested) +
                  ", their per-length <metric>_len<L> and per-context <metric>_ctx<L> variants, " +
                  joined(curves));
    if (expectation_needs_margin(claim.expect) &&
        !claim_margin(claim, primary, spec.equivalence_margin))
      problem("expect",
              std::string("\"") + claim.expect +
                  "\" is judged against a margin: give the claim a margin (in units of " + metric +
                  ")" + (metric == primary ? " or [report] equivalence_margin" : std::string()));
  }
  return problems;
}

}  // namespace ablate::experiments
