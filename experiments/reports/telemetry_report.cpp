#include "experiments/reports/telemetry_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include "experiments/analysis/mean_std.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/run_points.h"

namespace ablate::experiments {

namespace {

using json = nlohmann::json;

// A number of summary.json, where NaN and infinity are strings (json_number.h).
double number_of(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v == "inf") return INFINITY;
  if (v == "-inf") return -INFINITY;
  return NAN;
}

// Names in order with their numbers compared as numbers ("layers.2" before "layers.10"):
// summary.json's objects come back sorted by name, so this puts each stack's layers in
// depth order.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i_end = a.find_first_not_of("0123456789", i),
                  j_end = b.find_first_not_of("0123456789", j);
      if (i_end == std::string::npos) i_end = a.size();
      if (j_end == std::string::npos) j_end = b.size();
      const std::string x = a.substr(i, i_end - i), y = b.substr(j, j_end - j);
      if (x.size() != y.size()) return x.size() < y.size();  // no leading zeros in layer indices
      if (x != y) return x < y;
      i = i_end, j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

// "encoder.layers.3" → {"encoder", 3}; anything else → {"", -1}.
std::pair<std::string, long> stack_layer(const std::string& group) {
  const std::size_t at = group.rfind(".layers.");
  if (at == std::string::npos || at == 0) return {"", -1};
  const std::string index = group.substr(at + 8);
  if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) return {"", -1};
  return {group.substr(0, at), std::stol(index)};
}

// Per stack with at least two layers, in the order of its first layer: the last
// layer's norm over the first's.
std::vector<std::pair<std::string, double>> last_to_first_ratios(const json& groups) {
  std::vector<std::string> stacks;
  std::map<std::string, std::map<long, double>> layers;
  for (auto it = groups.begin(); it != groups.end(); ++it) {
    const auto [stack, layer] = stack_layer(it.key());
    if (layer < 0) continue;
    if (!layers.count(stack)) stacks.push_back(stack);
    layers[stack][layer] = number_of(it.value());
  }
  std::vector<std::pair<std::string, double>> out;
  for (const std::string& stack : stacks) {
    const std::map<long, double>& norms = layers[stack];
    if (norms.size() >= 2 && norms.begin()->first == 0)
      out.emplace_back(stack, norms.rbegin()->second / norms.at(0));
  }
  return out;
}

// The mean over a summary's BatchNorm modules of one distance ("mean" or "var").
double module_average(const json& modules, const char* which) {
  if (!modules.is_object() || modules.empty()) return NAN;
  double sum = 0;
  for (const json& m : modules) sum += number_of(m.value(which, json()));
  return sum / double(modules.size());
}

// The summaries of a point's trials at its chosen setting that finished (ok or diverged).
std::vector<json> finished_summaries(const std::string& run_dir, const json& index,
                                     const PointResults& point) {
  std::vector<json> out;
  for (const TrialRef& t : chosen_trials(index, point)) {
    const std::string path = RunDir(run_dir).trial(t.id).summary();
    if (!std::filesystem::exists(path)) continue;
    json s = parse_json_or_discarded(path);
    if (s.is_object() && s.value("status", "") != "failed") out.push_back(std::move(s));
  }
  return out;
}

// "| k1 | k2 |" cells of a point's swept values, and the matching header and rule.
std::string key_cells(const RunPoints& run, const PointResults& p) {
  std::string out = "|";
  for (const std::string& k : run.keys)
    out += " " + (p.values.count(k) ? p.values.at(k) : std::string()) + " |";
  return out;
}
std::string table_head(const RunPoints& run, const std::vector<std::string>& columns) {
  std::string head = "|", rule = "|";
  for (const std::string& k : run.keys) head += " " + k + " |", rule += "---|";
  for (const std::string& c : columns) head += " " + c + " |", rule += "---|";
  return head + "\n" + rule + "\n";
}

}  // namespace

std::vector<std::pair<std::string, double>> telemetry_values(const json& summary) {
  std::vector<std::pair<std::string, double>> out;
  // A summary derived from results.csv (run_record.h) has the columns themselves.
  if (summary.contains("telemetry") && summary["telemetry"].is_object())
    for (auto it = summary["telemetry"].begin(); it != summary["telemetry"].end(); ++it)
      out.emplace_back(it.key(), number_of(it.value()));
  if (summary.contains("init_grad_norm"))
    out.emplace_back("init_grad_norm", number_of(summary.at("init_grad_norm")));
  if (summary.contains("init_grad_norms"))
    for (const auto& [stack, ratio] : last_to_first_ratios(summary.at("init_grad_norms")))
      out.emplace_back("init_grad_ratio_" + stack, ratio);
  if (summary.contains("norm_drift")) {
    const json& drift = summary.at("norm_drift");
    for (const char* part : {"training", "last_interval"}) {
      const std::string suffix = std::string(part) == "training" ? "" : "_last";
      const json modules = drift.value(part, json::object());
      out.emplace_back("bn_mean_drift" + suffix, module_average(modules, "mean"));
      out.emplace_back("bn_var_drift" + suffix, module_average(modules, "var"));
    }
  }
  return out;
}

std::vector<std::string> telemetry_columns(const std::vector<const json*>& summaries) {
  // The global norm, the ratios by stack name, the drift.
  std::vector<std::string> ratios;
  bool init = false, drift = false;
  for (const json* s : summaries) {
    if (!s || s->is_null()) continue;
    for (const auto& [name, v] : telemetry_values(*s)) {
      init |= name == "init_grad_norm";
      drift |= name.starts_with("bn_");
      if (name.starts_with("init_grad_ratio_") &&
          std::find(ratios.begin(), ratios.end(), name) == ratios.end())
        ratios.push_back(name);
    }
  }
  std::sort(ratios.begin(), ratios.end());
  std::vector<std::string> out;
  if (init) out.push_back("init_grad_norm");
  out.insert(out.end(), ratios.begin(), ratios.end());
  if (drift)
    out.insert(out.end(),
               {"bn_mean_drift", "bn_var_drift", "bn_mean_drift_last", "bn_var_drift_last"});
  return out;
}

std::string init_grad_norms_section(const std::string& run_dir, const RunPoints& run) {
  if (!run.grad_norms_at_init) return "";
  const json index = read_json_file(RunDir(run_dir).trial_index());
  // Per point: seed count and each column's values over seeds; columns in model order.
  std::vector<std::string> groups, ratios;
  std::vector<std::map<std::string, std::vector<double>>> values(run.points.size());
  std::vector<int> seeds(run.points.size(), 0);
  for (std::size_t i = 0; i < run.points.size(); ++i)
    for (const json& s : finished_summaries(run_dir, index, run.points[i])) {
      if (!s.contains("init_grad_norms")) continue;
      ++seeds[i];
      values[i]["global"].push_back(number_of(s.value("init_grad_norm", json())));
      const json& norms = s.at("init_grad_norms");
      for (auto it = norms.begin(); it != norms.end(); ++it) {
        if (std::find(groups.begin(), groups.end(), it.key()) == groups.end())
          groups.push_back(it.key());
        values[i][it.key()].push_back(number_of(it.value()));
      }
      for (const auto& [stack, ratio] : last_to_first_ratios(norms)) {
        const std::string column = stack + " last/first";
        if (std::find(ratios.begin(), ratios.end(), column) == ratios.end())
          ratios.push_back(column);
        values[i][column].push_back(ratio);
      }
    }
  if (groups.empty()) return "";
  std::sort(groups.begin(), groups.end(), natural_less);
  std::sort(ratios.begin(), ratios.end());
  std::vector<std::string> columns{"seeds", "global"};
  columns.insert(columns.end(), groups.begin(), groups.end());
  columns.insert(columns.end(), ratios.begin(), ratios.end());
  std::ostringstream md;
  md << "\n## Gradient norms at initialisation\n\nThe gradient norm of each module group "
        "(parameter names' first "
        "three components) for the first training batch at the initial weights, before clipping "
        "and before any "
        "update, mean over seeds (diverged trials included: their first step is as valid as any); "
        "`global` is "
        "the norm of all gradients, `<stack> last/first` the mean ratio of the stack's last layer "
        "to its first "
        "(Xiong et al. 2020: large for post-LN, near 1 for pre-LN). Per trial: summary.json's "
        "init_grad_norms, "
        "results.csv's init_grad_norm and init_grad_ratio_<stack>.\n\n"
     << table_head(run, columns);
  for (std::size_t i = 0; i < run.points.size(); ++i) {
    md << key_cells(run, run.points[i]) << " " << seeds[i] << " |";
    for (std::size_t c = 1; c < columns.size(); ++c)
      md << " " << (values[i][columns[c]].empty() ? "—" : format_mean(values[i][columns[c]]))
         << " |";
    md << "\n";
  }
  return md.str();
}

std::string norm_drift_section(const std::string& run_dir, const RunPoints& run) {
  const json index = read_json_file(RunDir(run_dir).trial_index());
  const std::vector<std::string> columns{"bn_mean_drift", "bn_var_drift", "bn_mean_drift_last",
                                         "bn_var_drift_last"};
  std::ostringstream rows;
  bool any = false;
  for (const PointResults& p : run.points) {
    std::map<std::string, std::vector<double>> values;
    int seeds = 0;
    for (const json& s : finished_summaries(run_dir, index, p)) {
      if (!s.contains("norm_drift")) continue;
      ++seeds;
      for (const auto& [name, v] : telemetry_values(s))
        if (name.starts_with("bn_") && std::isfinite(v)) values[name].push_back(v);
    }
    any |= seeds > 0;
    rows << key_cells(run, p) << " " << seeds << " |";
    for (const std::string& c : columns) rows << " " << format(mean_std(values[c])) << " |";
    rows << "\n";
  }
  if (!any) return "";
  return "\n## BatchNorm statistics drift\n\nHow far each training batch's statistics were from "
         "the BatchNorm "
         "running statistics before the batch updated them (Shen et al. 2020, PowerNorm, Fig. 2): "
         "the distances "
         "(1/d)·‖μ_B − μ‖ of the means and (1/d)·‖σ²_B − σ²‖ of the variances over the d features, "
         "averaged over "
         "training batches and over the BatchNorm modules, mean ± std over seeds (non-finite "
         "values left out); "
         "over all of training, and over the last evaluation interval (`_last`). Per module: "
         "summary.json's "
         "norm_drift, per evaluation: metrics.jsonl.\n\n" +
         table_head(run,
                    {"seeds", "mean drift", "var drift", "mean drift (last)", "var drift (last)"}) +
         rows.str();
}

}  // namespace ablate::experiments
