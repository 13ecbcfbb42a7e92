#include "experiments/reports/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "experiments/config/report_spec.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/json_number.h"
#include "experiments/reports/curve_metrics.h"
#include "experiments/reports/by_length_report.h"
#include "experiments/reports/forecast_baselines_report.h"
#include "experiments/reports/lm_samples_report.h"
#include "experiments/reports/mean_std.h"
#include "experiments/reports/plot_gnuplot.h"
#include "experiments/reports/plots.h"
#include "experiments/reports/preregistration.h"
#include "experiments/reports/report_text.h"
#include "experiments/reports/run_record.h"
#include "experiments/reports/telemetry_report.h"
#include "experiments/io/json_file.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

json trial_index_json(const Experiment& e) {
  json trials = json::array();
  for (const Trial& t : e.trials) {
    json point = json::object();
    for (const auto& [k, v] : t.point) point[k] = v;
    json tune = json::object();
    for (const auto& [k, v] : t.tune) tune[k] = v;
    trials.push_back({{"id", t.id}, {"point_id", t.point_id}, {"data_id", t.data_id}, {"seed", t.config.trial_seed},
                      {"point", point},
                      {"label", t.point_label()}, {"tune", tune}, {"tune_label", t.tune_label()}});
  }
  json baseline = json::object();
  for (const auto& [k, v] : e.report.baseline) baseline[k] = v;
  json report{{"baseline", baseline}, {"metric", e.report.metric}};
  if (e.report.equivalence_margin) report["equivalence_margin"] = *e.report.equivalence_margin;
  if (e.report.threshold) report["threshold"] = *e.report.threshold;
  if (e.report.grad_norms_at_init) report["grad_norms_at_init"] = true;
  if (!e.report.claims.empty()) report["claims"] = claims_json(e.report.claims);
  return json{{"name", e.name},
             {"description", e.description},
             // Where the experiment file was: a trial's config.toml resolves its data
             // paths against it, from wherever it is run (Experiment::base_dir).
             {"source_dir", fs::absolute(e.base_dir).lexically_normal().string()},
             {"swept_keys", e.swept_keys},
             {"tune_keys", e.tune_keys},
             {"axes", e.axes},
             {"report", report},
             {"family", e.trials.empty() || e.trials[0].config.model.kind != "encoder_regressor" ? "seq2seq" : "forecast"},
             {"task", e.trials.empty() ? std::string() : e.trials[0].config.task.kind},
             {"trials", trials}};
}

void write_trial_index(const std::string& run_dir, const Experiment& e) {
  write_file_atomically(run_dir + "/trials.json", trial_index_json(e).dump(2) + "\n");
}

namespace {

struct Row {
  std::string id, point_id, data_id, label, tune_label;
  std::uint64_t seed = 0;
  std::map<std::string, std::string> point, tune;
  json summary;  // null when missing
};

std::string number(const json& v) {
  if (v.is_number()) {
    std::ostringstream s;
    s << std::setprecision(6) << v.get<double>();
    return s.str();
  }
  if (v.is_string()) return v.get<std::string>();
  return "";
}

// A run directory's trial index and every trial's summary (null when missing).
struct RunRows {
  std::string dir;
  json index;
  std::vector<std::string> keys, tune_keys, metrics;
  std::string primary;
  bool higher_is_better = true;
  bool forecast = false;
  std::string task;  // its kind: which metrics it has (test_metrics)
  std::vector<std::string> test_metrics;  // test_metrics(task) with the by-length ones found
  std::vector<Row> rows;
  ReportSummary report;
};

// The task's test metrics, each followed by its per-length (<m>_len<L>, symbolic
// tasks with test lengths of their own) or per-context (<m>_ctx<L>, language models)
// variants that the finished trials' summaries hold, in order of L.
std::vector<std::string> with_by_length_metrics(const std::vector<std::string>& base, const std::vector<Row>& rows) {
  std::map<std::string, std::map<std::int64_t, std::string>> found;  // base → L → key
  for (const Row& r : rows) {
    if (r.summary.is_null() || !r.summary.contains("test")) continue;
    const json& test = r.summary["test"];
    for (auto it = test.begin(); it != test.end(); ++it)
      for (const std::string& m : base)
        for (const char* kind : {"_len", "_ctx"}) {
          const std::string prefix = m + kind;
          const std::string& key = it.key();
          if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
              key.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
            found[m][std::stoll(key.substr(prefix.size()))] = key;
        }
  }
  std::vector<std::string> out;
  for (const std::string& m : base) {
    out.push_back(m);
    for (const auto& [length, key] : found[m]) out.push_back(key);
  }
  return out;
}

// The trial index with only the trials of each point's chosen [tune] setting (all of
// them without [tune]): the plots then show what the tables report, not an average
// over learning rates that were searched and rejected.
json chosen_settings_only(const RunRows& run);

RunRows read_run(const std::string& run_dir) {
  RunRows run;
  run.dir = run_dir;
  std::string index_path = run_dir + "/trials.json";
  if (!fs::exists(index_path))
    throw std::runtime_error(run_dir + ": not a run directory (no trials.json; run `ablate run` first)");
  run.index = read_json_file(index_path);
  json& index = run.index;
  run.keys = index["swept_keys"].get<std::vector<std::string>>();
  run.tune_keys = index.value("tune_keys", std::vector<std::string>{});
  run.forecast = index.value("family", "seq2seq") == "forecast";
  // Runs written before trials.json named the task: the family's metrics.
  run.task = index.value("task", std::string(run.forecast ? "forecast" : ""));
  for (const std::string& m : test_metrics(run.task))
    if (m != "loss") run.metrics.push_back(m);
  run.primary = run.metrics.front();
  run.higher_is_better = higher_is_better(run.primary);
  ReportSummary& report = run.report;
  for (const json& t : index["trials"]) {
    Row r;
    r.id = t["id"];
    r.point_id = t.value("point_id", "");
    r.data_id = t.value("data_id", "");
    r.seed = t["seed"];
    r.label = t.value("label", "");
    for (auto& [k, v] : t["point"].items()) r.point[k] = v.get<std::string>();
    const json tune = t.value("tune", json::object());
    for (auto& [k, v] : tune.items()) r.tune[k] = v.get<std::string>();
    r.tune_label = t.value("tune_label", "");
    std::string summary_path = run_dir + "/trials/" + r.id + "/summary.json";
    ++report.expected;
    if (fs::exists(summary_path)) {
      try {
        r.summary = read_json_file(summary_path);
      } catch (const std::exception&) {
        r.summary = nullptr;
      }
    }
    if (r.summary.is_null()) {
      ++report.missing;
      report.missing_ids.push_back(r.id);
    } else if (r.summary.value("status", "") == "failed") {
      ++report.failed;
    } else {
      ++report.finished;
    }
    run.rows.push_back(std::move(r));
  }
  run.test_metrics = with_by_length_metrics(test_metrics(run.task), run.rows);
  return run;
}

std::string join_point(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  for (const auto& [k, v] : values) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

// Each [tune] setting of a sweep point with its mean validation loss over seeds (the
// best evaluation's: the model each trial keeps), and the setting chosen: the lowest
// mean. A diverged trial counts as an infinite loss; a setting with missing or failed
// trials is compared on the trials it has. Without [tune], one setting "".
struct Tuning {
  std::vector<TuningSetting> settings;  // in trial order
  std::string chosen;
};

std::map<std::map<std::string, std::string>, Tuning> tune_points(const RunRows& run) {
  std::map<std::map<std::string, std::string>, std::map<std::string, std::vector<double>>> losses;
  std::map<std::map<std::string, std::string>, std::vector<std::string>> order;
  for (const Row& r : run.rows) {
    auto& settings = order[r.point];
    if (std::find(settings.begin(), settings.end(), r.tune_label) == settings.end()) settings.push_back(r.tune_label);
    std::vector<double>& l = losses[r.point][r.tune_label];
    const std::string status = r.summary.is_null() ? "missing" : r.summary.value("status", "");
    if (status == "diverged") l.push_back(INFINITY);
    else if (status == "ok" && r.summary["best"]["val_loss"].is_number()) l.push_back(r.summary["best"]["val_loss"]);
  }
  std::map<std::map<std::string, std::string>, Tuning> out;
  for (const auto& [point, labels] : order) {
    Tuning& t = out[point];
    double best = INFINITY;
    bool have = false;
    for (const std::string& label : labels) {
      const std::vector<double>& l = losses[point][label];
      double mean = l.empty() ? NAN : 0.0;
      for (double v : l) mean += v / double(l.size());
      t.settings.push_back({label, mean, int(l.size())});
      if (!l.empty() && (!have || mean < best)) {  // ties keep the earlier setting
        best = mean;
        t.chosen = label;
        have = true;
      }
    }
    if (!have) t.chosen = labels.front();  // nothing finished yet
  }
  return out;
}

// The sweep points with their trials' test metrics, in trial order; with [tune], each
// point's trials of its chosen setting.
RunPoints points_of(const RunRows& run, const std::string& run_name) {
  RunPoints out;
  out.name = run_name;
  out.keys = run.keys;
  out.forecast = run.forecast;
  out.task = run.task;
  out.test_metrics = run.test_metrics;
  const json report = run.index.value("report", json::object());
  const json baseline = report.value("baseline", json::object());
  for (auto& [k, v] : baseline.items()) out.baseline.emplace_back(k, v.get<std::string>());
  out.metric = report.value("metric", "");
  if (report.contains("equivalence_margin")) out.equivalence_margin = report["equivalence_margin"].get<double>();
  if (report.contains("threshold")) out.threshold = report["threshold"].get<double>();
  out.grad_norms_at_init = report.value("grad_norms_at_init", false);
  out.claims = claims_from_json(report.value("claims", json::array()));
  out.preregistration = read_preregistration(run.dir);
  out.seeds = seeds_text(run.index);
  out.tune_grid = tune_grid_text(run.index);
  const std::string primary = primary_metric(out.metric, run.task);
  // The curve metrics follow the primary metric's validation curve.
  const std::string curve_key = primary == "loss" ? "val_loss" : primary;
  out.curve_metrics = curve_metric_names(primary, out.threshold);
  const auto tuning = tune_points(run);
  bool any_curve = false;
  for (const Row& r : run.rows) {
    const Tuning& t = tuning.at(r.point);
    if (r.tune_label != t.chosen) continue;
    auto it = std::find_if(out.points.begin(), out.points.end(),
                           [&](const PointResults& p) { return p.values == r.point; });
    if (it == out.points.end()) {
      PointResults p;
      p.run = run_name;
      p.point_id = r.point_id;
      p.data_id = r.data_id;
      p.label = r.label;
      p.values = r.point;
      p.setting = t.chosen;
      if (!run.tune_keys.empty()) p.settings = t.settings;
      out.points.push_back(std::move(p));
      it = out.points.end() - 1;
    }
    ++it->trials;
    const std::string status = r.summary.is_null() ? "missing" : r.summary.value("status", "");
    if (status == "missing") ++it->missing;
    else if (status == "failed") ++it->failed;
    else if (status == "diverged") ++it->diverged;
    if (status != "ok" || !r.summary.contains("test")) continue;
    const json& test = r.summary["test"];
    for (const std::string& m : run.test_metrics) {
      if (test.contains(m) && test[m].is_number()) it->test[r.seed][m] = test[m].get<double>();
      const json se = test.value("standard_errors", json::object());
      if (se.contains(m) && se[m].is_number()) it->test_se[r.seed][m] = se[m].get<double>();
    }
    const Curve curve = read_curve(read_file(run.dir + "/trials/" + r.id + "/metrics.jsonl"), curve_key);
    if (curve.empty()) continue;
    any_curve = true;
    const std::int64_t train_steps = r.summary.value("train_steps", r.summary.value("steps", std::int64_t(0)));
    if (double auc = curve_auc(curve, train_steps); std::isfinite(auc)) it->test[r.seed][out.curve_metrics[0]] = auc;
    if (out.threshold) {
      StepsToThreshold s = steps_to_threshold(curve, *out.threshold, higher_is_better(primary), train_steps);
      it->test[r.seed][out.curve_metrics[1]] = s.steps;
      if (!s.reached) ++it->not_reached[out.curve_metrics[1]];
    }
  }
  // No trial recorded a validation curve (a record derived from results.csv): no curve
  // metrics, rather than rows of "too few seeds".
  if (!any_curve) out.curve_metrics.clear();
  return out;
}

json chosen_settings_only(const RunRows& run) {
  if (run.tune_keys.empty()) return run.index;
  const auto tuning = tune_points(run);
  json index = run.index;
  json kept = json::array();
  for (const Row& r : run.rows)
    if (auto t = tuning.find(r.point); t == tuning.end() || t->second.chosen == r.tune_label)
      for (const json& entry : run.index["trials"])
        if (entry.value("id", "") == r.id) kept.push_back(entry);
  index["trials"] = kept;
  return index;
}

// What computed a trial beyond its config (summary.json's computation, written since
// ablate recorded it): the attention path, the GEMM backend, the precision; "" each
// for a summary without it.
struct Computation {
  std::string attention_path, why_not_fused, gemm_backend, precision;
};
std::optional<Computation> computation_of(const json& summary) {
  if (summary.is_null() || !summary.contains("computation") || !summary["computation"].is_object()) return std::nullopt;
  const json& c = summary["computation"];
  const json attention = c.value("attention", json::object());
  auto text = [](const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); };
  return Computation{text(attention.value("path", json())), text(attention.value("why_not_fused", json())),
                     text(c.value("gemm_backend", json())), text(c.value("precision", json()))};
}

bool any_computation(const RunRows& run) {
  return std::any_of(run.rows.begin(), run.rows.end(), [](const Row& r) { return computation_of(r.summary).has_value(); });
}

// summary.md's line on what computed the finished trials, each value with its count
// when they differ; "" when no summary records it.
std::string computation_note(const RunRows& run) {
  std::map<std::string, int> paths, backends, precisions;
  std::string why;
  for (const Row& r : run.rows)
    if (const auto c = computation_of(r.summary)) {
      ++paths[c->attention_path];
      ++backends[c->gemm_backend];
      ++precisions[c->precision];
      if (why.empty()) why = c->why_not_fused;
    }
  if (paths.empty()) return "";
  auto counted = [](const std::map<std::string, int>& values) {
    std::string out;
    for (const auto& [value, n] : values)
      out += (out.empty() ? "" : ", ") + (value.empty() ? std::string("unrecorded") : value) +
             (values.size() > 1 ? " (" + std::to_string(n) + " trials)" : "");
    return out;
  };
  return "\nComputed with the GEMM backend " + counted(backends) + ", " + counted(precisions) +
         " matmuls; attention path " + counted(paths) +
         (why.empty() ? "" : " (the first reason a forward was not fused: " + why + ")") +
         " — summary.json's `computation`.\n";
}

// results.csv: one row per trial, timings last.
std::string results_csv(const RunRows& run) {
  const std::vector<std::string>& keys = run.keys;
  const std::vector<std::string>& metrics = run.metrics;
  std::ostringstream csv;
  const std::vector<std::string>& tested = run.test_metrics;
  const auto tuning = tune_points(run);
  csv << "trial,point_id";
  for (const std::string& k : keys) csv << "," << csv_field(k);
  for (const std::string& k : run.tune_keys) csv << "," << csv_field(k);
  if (!run.tune_keys.empty()) csv << ",selected";
  csv << ",seed,status,steps";
  for (const std::string& m : tested) csv << ",test_" << m;
  csv << ",final_train_loss,final_val_loss";
  for (const std::string& m : metrics) csv << ",final_" << m;
  csv << ",best_step,best_val_loss";
  for (const std::string& m : metrics) csv << ",best_" << m;
  std::vector<const json*> summaries;
  for (const Row& r : run.rows) summaries.push_back(&r.summary);
  const std::vector<std::string> telemetry = telemetry_columns(summaries);
  for (const std::string& c : telemetry) csv << "," << c;
  const bool computation = any_computation(run);
  if (computation) csv << ",attention_path,gemm_backend,precision";
  csv << ",params,wall_seconds,steps_per_second\n";
  for (const Row& r : run.rows) {
    csv << r.id << "," << r.point_id;
    for (const std::string& k : keys) csv << "," << csv_field(r.point.count(k) ? r.point.at(k) : "");
    for (const std::string& k : run.tune_keys) csv << "," << csv_field(r.tune.count(k) ? r.tune.at(k) : "");
    if (!run.tune_keys.empty()) csv << "," << (tuning.at(r.point).chosen == r.tune_label ? 1 : 0);
    csv << "," << r.seed;
    if (r.summary.is_null()) {
      csv << ",missing\n";
      continue;
    }
    const json& s = r.summary;
    csv << "," << s.value("status", "") << "," << number(s["steps"]);
    for (const std::string& m : tested) csv << "," << number(s.contains("test") ? s["test"].value(m, json()) : json());
    csv << "," << number(s["final"]["train_loss"]) << "," << number(s["final"]["val_loss"]);
    for (const std::string& m : metrics) csv << "," << number(s["final"].value(m, json()));
    csv << "," << number(s["best"]["step"]) << "," << number(s["best"]["val_loss"]);
    for (const std::string& m : metrics) csv << "," << number(s["best"].value(m, json()));
    const std::vector<std::pair<std::string, double>> values = telemetry_values(s);
    for (const std::string& c : telemetry) {
      auto v = std::find_if(values.begin(), values.end(), [&c](const auto& nv) { return nv.first == c; });
      csv << "," << (v == values.end() ? std::string() : number(finite_or_string(v->second)));
    }
    if (computation) {
      const Computation c = computation_of(s).value_or(Computation{});
      csv << "," << csv_field(c.attention_path) << "," << csv_field(c.gemm_backend) << "," << csv_field(c.precision);
    }
    // Timings last: everything before them is identical however the sweep ran.
    csv << "," << number(s["params"]) << "," << number(s["wall_seconds"]) << ","
        << number(s["steps_per_second"]) << "\n";
  }
  return csv.str();

}

// summary.md up to its plots: one row per sweep point, sorted by the primary metric.
std::string summary_table(const RunRows& run, const ComparisonReport& comparisons) {
  const json& index = run.index;
  const std::vector<std::string>& keys = run.keys;
  const std::vector<std::string>& metrics = run.metrics;
  const std::string& primary = run.primary;
  const bool higher_is_better = run.higher_is_better;
  const ReportSummary& report = run.report;
  struct Point {
    std::map<std::string, std::string> values;
    std::string label;
    std::vector<double> val_loss;
    std::map<std::string, std::vector<double>> metric;
    int trials = 0, diverged = 0, failed = 0;
  };
  std::vector<Point> points;
  const auto tuning = tune_points(run);
  for (const Row& r : run.rows) {
    if (r.tune_label != tuning.at(r.point).chosen) continue;  // each point at its chosen [tune] setting
    auto it = std::find_if(points.begin(), points.end(), [&](const Point& p) { return p.values == r.point; });
    if (it == points.end()) {
      points.push_back({r.point, r.label, {}, {}, 0, 0, 0});
      it = points.end() - 1;
    }
    ++it->trials;
    if (r.summary.is_null()) continue;
    std::string status = r.summary.value("status", "");
    if (status == "failed") {
      ++it->failed;
      continue;
    }
    if (status == "diverged") {
      ++it->diverged;
      continue;
    }
    const json& f = r.summary["final"];
    if (f["val_loss"].is_number()) it->val_loss.push_back(f["val_loss"]);
    for (const std::string& m : metrics)
      if (f.contains(m) && f[m].is_number()) it->metric[m].push_back(f[m]);
  }
  auto primary_mean = [&](const Point& p) {
    MeanStd m = mean_std(p.metric.count(primary) ? p.metric.at(primary) : std::vector<double>{});
    return m.n ? m.mean : (higher_is_better ? -INFINITY : INFINITY);
  };
  std::stable_sort(points.begin(), points.end(), [&](const Point& a, const Point& b) {
    return higher_is_better ? primary_mean(a) > primary_mean(b) : primary_mean(a) < primary_mean(b);
  });
  std::ostringstream md;
  md << "# " << index.value("name", "") << "\n\n";
  if (!index.value("description", "").empty()) md << index.value("description", "") << "\n\n";
  md << comparisons.markdown;
  md << "\n## Validation\n\nThe last evaluation's validation metrics, mean ± std over seeds (sample std), sorted by "
     << primary << " (" 
     << (higher_is_better ? "higher" : "lower") << " is better). "
     << report.finished << " of " << report.expected << " trials finished";
  if (report.failed) md << ", " << report.failed << " failed";
  if (report.missing) md << ", " << report.missing << " missing";
  md << ". Validation chose each trial's model (lowest validation loss); the test metrics above are that "
        "model's.\n\n|";
  for (const std::string& k : keys) md << " " << k << " |";
  md << " seeds | val_loss |";
  for (const std::string& m : metrics) md << " " << m << " |";
  md << "\n|";
  for (std::size_t i = 0; i < keys.size() + 2 + metrics.size(); ++i) md << "---|";
  md << "\n";
  for (const Point& p : points) {
    md << "|";
    for (const std::string& k : keys) md << " " << (p.values.count(k) ? p.values.at(k) : "") << " |";
    md << " " << seeds_cell(int(p.val_loss.size()), p.trials, p.diverged, p.failed, 0) << " | "
       << format(mean_std(p.val_loss)) << " |";
    for (const std::string& m : metrics)
      md << " " << format(mean_std(p.metric.count(m) ? p.metric.at(m) : std::vector<double>{})) << " |";
    md << "\n";
  }
  md << computation_note(run);
  if (report.missing) {
    md << "\nMissing trials (no summary.json yet):";
    for (const std::string& id : report.missing_ids) md << " " << id;
    md << "\n";
  }
  return md.str();
}

std::string run_name(const std::string& run_dir) {
  return fs::absolute(run_dir).lexically_normal().filename().string().empty()
             ? fs::absolute(run_dir).lexically_normal().parent_path().filename().string()
             : fs::absolute(run_dir).lexically_normal().filename().string();
}

}  // namespace

// A run directory may come from elsewhere: a value of the wrong type in trials.json or
// a summary.json is an error naming the run, not an escaped nlohmann exception.
RunPoints read_run_points(const std::string& run_dir) {
  try {
    return points_of(read_run(run_dir), run_name(run_dir));
  } catch (const nlohmann::json::exception& e) {
    throw_naming_file(run_dir + " (trials.json or a trial's summary.json)", e);
  }
}

std::vector<TrialRef> chosen_trials(const json& index, const PointResults& point) {
  std::vector<TrialRef> out;
  for (const json& t : index["trials"])
    if (t.value("point_id", "") == point.point_id && t.value("tune_label", "") == point.setting)
      out.push_back({t["id"].get<std::string>(), t["seed"].get<std::uint64_t>()});
  return out;
}

ComparisonReport comparison_report(const RunPoints& run, const std::vector<std::optional<std::size_t>>& baselines,
                                   const std::string& baseline_text) {
  ComparisonSettings settings;
  settings.metrics = run.test_metrics;
  if (!run.metric.empty()) {
    std::erase(settings.metrics, run.metric);
    settings.metrics.insert(settings.metrics.begin(), run.metric);
  }
  settings.equivalence_margin = run.equivalence_margin;
  settings.metrics.insert(settings.metrics.end(), run.curve_metrics.begin(), run.curve_metrics.end());
  const std::string metric = settings.metrics.front();
  const std::vector<ComparisonRow> rows = compare_points(run.points, baselines, settings);
  ComparisonReport out;
  out.csv = comparisons_csv(run.points, rows);
  std::ostringstream md;
  md << "## Test " << metric << "\n\n";
  md << "Each trial's model is the one validation selected; its test set was evaluated once. Mean over seeds "
        "with its 95% t interval, clipped to the metric's range"
     << (higher_is_better(metric) ? " (higher is better)" : " (lower is better)") << ". ";
  if (!baseline_text.empty())
    md << "Each point is compared with its baseline — " << baseline_text
       << (run.baseline.size() < run.keys.size() ? ", the point's other swept values unchanged" : "")
       << " — by a paired t-test over seeds when every seed of both finished, Welch's t-test otherwise, with the "
          "permutation test's p beside it (sign flips when paired); the effect size is Cohen's d (d_z when "
          "paired); the last numeric column is the difference this design detects with 80% power at α = 0.05 "
          "(a post-hoc estimate, from the observed spread). **These rows are exploratory**: their p-values are "
          "not adjusted for the table's many comparisons"
       << (run.claims.empty() ? "; an experiment file's [[report.claims]] are what get confirmatory verdicts. "
                              : "; the confirmatory verdicts are the claims' (below). ");
  if (run.equivalence_margin)
    md << "Equivalence margin ±" << *run.equivalence_margin << " (two one-sided tests). ";
  md << "All metrics: comparisons.csv.\n\n";
  md << comparisons_markdown(run.points, rows, run.keys, metric);
  std::size_t other_data = 0;
  for (const ComparisonRow& r : rows) other_data += r.metric == metric && r.comparison && !r.same_data;
  if (other_data)
    md << "\n**" << other_data << " of these comparisons are between points evaluated on different data** (another "
          "task or data seed, so other test sets): their differences mix the variant with the data.\n";
  // The evaluation noise beside the seed spread: which of the two limits the design.
  std::vector<double> noise, spread;
  for (const ComparisonRow& r : rows)
    if (r.metric == metric && r.summary.n >= 2 && std::isfinite(r.eval_se)) {
      noise.push_back(r.eval_se);
      spread.push_back(r.summary.sd);
    }
  if (!noise.empty()) {
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    std::ostringstream n;
    n << std::setprecision(2) << "\nEvaluation noise: a trial's test " << metric << " has a standard error of "
      << median(noise) << " over its test set; the standard deviation over seeds is " << median(spread)
      << " (medians over points).\n";
    md << n.str();
  }
  // The claims next: the verdicts a replication is read for, after the table they come from.
  out.claims = claims_report(run, rows);
  md << out.claims.markdown;
  for (const std::string& curve : run.curve_metrics) {
    const bool steps = curve.starts_with("steps_to_");
    md << "\n### Validation curve: " << curve << "\n\n"
       << (steps ? "The first evaluation step at which the validation " + metric + " reached " +
                       number(*run.threshold) + " (a trial that never did counts as its training length)."
                 : "The mean validation " + metric + " over training (the area under its curve per step): "
                   "sample efficiency, beside the final quality above.")
       << " Compared as above.\n\n";
    md << comparisons_markdown(run.points, rows, run.keys, curve);
    if (steps) {
      int censored = 0, total = 0;
      for (const PointResults& p : run.points) {
        censored += p.not_reached.count(curve) ? p.not_reached.at(curve) : 0;
        for (const auto& [seed, m] : p.test) total += m.count(curve);
      }
      if (censored) md << "\n" << censored << " of " << total << " trials never reached it.\n";
    }
  }
  bool tuned = false;
  for (const PointResults& p : run.points) tuned |= !p.settings.empty();
  if (tuned) {
    md << "\n### Tuning\n\nEach point is reported at the [tune] setting with the lowest mean validation loss "
          "over its seeds (of the model each trial kept; diverged trials count as infinite). Mean validation "
          "loss per setting, the chosen one in bold:\n\n|";
    for (const std::string& k : run.keys) md << " " << k << " |";
    md << " settings |\n|";
    for (std::size_t i = 0; i <= run.keys.size(); ++i) md << "---|";
    md << "\n";
    int at_edge = 0;
    for (const PointResults& p : run.points) {
      md << "|";
      for (const std::string& k : run.keys) md << " " << (p.values.count(k) ? p.values.at(k) : "") << " |";
      std::string cells;
      for (const TuningSetting& t : p.settings) {
        std::ostringstream c;
        c << std::setprecision(4) << t.label << ": " << t.validation_loss;
        cells += (cells.empty() ? " " : "; ") + (t.label == p.setting ? "**" + c.str() + "**" : c.str());
      }
      // One tuned key whose chosen value is the grid's first or last: the best may lie beyond.
      const bool one_key = !p.setting.empty() && std::count(p.setting.begin(), p.setting.end(), '=') == 1;
      if (one_key && p.settings.size() >= 2 &&
          (p.setting == p.settings.front().label || p.setting == p.settings.back().label)) {
        cells += " (at the edge of the grid: the best may lie beyond it)";
        ++at_edge;
      }
      md << cells << " |\n";
    }
    if (at_edge)
      md << "\n" << at_edge << " of " << run.points.size()
         << " points chose a setting at the edge of the grid; widen it to know whether a better one lies beyond.\n";
  }
  out.markdown = md.str();
  return out;
}

ReportSummary write_reports(const std::string& run_dir, const RecordOrigin* origin) {
  const RunRows run = read_run(run_dir);
  write_file_atomically(run_dir + "/results.csv", results_csv(run));
  const RunPoints points = points_of(run, run_name(run_dir));
  const ComparisonReport comparisons =
      comparison_report(points, find_baselines(points.points, points.baseline), join_point(points.baseline));
  write_file_atomically(run_dir + "/comparisons.csv", comparisons.csv);
  // Without claims, none: a claims.csv of an earlier version of the file would
  // describe claims it no longer makes.
  if (!comparisons.claims.csv.empty()) write_file_atomically(run_dir + "/claims.csv", comparisons.claims.csv);
  else fs::remove(run_dir + "/claims.csv");
  for (const std::string& w : comparisons.claims.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::ostringstream md;
  std::string table = summary_table(run, comparisons);
  if (origin && !origin->note.empty())  // after the title line
    table.insert(std::min(table.size(), table.find('\n') + 1), "\n" + origin->note + "\n");
  md << table << forecast_baselines_section(run_dir, points)
     << by_length_section(points) << lm_samples_section(run_dir, points)
     << init_grad_norms_section(run_dir, points) << norm_drift_section(run_dir, points);
  // The table matters more than the pictures: a plotting failure is reported in the
  // summary (and rethrown after it is written), not allowed to lose it.
  if (origin) md << origin->kept_sections;
  std::vector<std::string> plots;
  std::string plot_error;
  try {
    if (!origin || origin->draw_plots) plots = write_plots(run_dir, chosen_settings_only(run), run.rows.size());
  } catch (const GnuplotMissing&) {
    // Not a failure of the run: its results are all there. One warning, the same exit
    // status, and the data and scripts to draw the plots later.
    std::fprintf(stderr, "warning: gnuplot is not installed (Debian: gnuplot-nox), so %s/plots/ has the "
                 "plots' data and scripts but no images; the results are complete\n", run_dir.c_str());
    md << "\nPlots skipped: gnuplot is not installed. `plots/` holds their data and scripts "
          "(`cd plots && gnuplot <name>.gp` draws one).\n";
  } catch (const std::exception& e) {
    plot_error = e.what();
  }
  if (!plots.empty()) {
    md << "\n## Plots\n";
    for (const std::string& p : plots) md << "\n![" << p << "](" << p << ")\n";
  }
  if (!plot_error.empty()) md << "\nPlots could not be drawn: " << plot_error << "\n";
  write_file_atomically(run_dir + "/summary.md", md.str());
  if (!origin) write_run_record(run_dir, chosen_settings_only(run));
  if (!plot_error.empty()) throw std::runtime_error(plot_error);
  return run.report;
}

}  // namespace ablate::experiments
