#include "experiments/reports/results_csv.h"

#include <algorithm>
#include <sstream>

#include "experiments/analysis/point_tuning.h"
#include "experiments/analysis/report_text.h"
#include "experiments/io/json_number.h"
#include "experiments/reports/computation_note.h"
#include "experiments/reports/telemetry_report.h"

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

// The columns some runs have: telemetry (telemetry_report.h), and what computed the
// trials when any summary records it.
struct OptionalColumns {
  std::vector<std::string> telemetry;
  bool computation = false;
};

std::string header_line(const RunRows& run, const OptionalColumns& optional) {
  std::ostringstream csv;
  csv << "trial,point_id";
  for (const std::string& k : run.keys) csv << "," << csv_field(k);
  for (const std::string& k : run.tune_keys) csv << "," << csv_field(k);
  if (!run.tune_keys.empty()) csv << ",selected";
  if (!run.tune_seeds.empty()) csv << ",tuning_stage";
  csv << ",seed,status,steps";
  for (const std::string& m : run.test_metrics) csv << ",test_" << m;
  csv << ",final_train_loss,final_val_loss";
  for (const std::string& m : run.metrics) csv << ",final_" << m;
  csv << ",best_step,best_val_loss";
  for (const std::string& m : run.metrics) csv << ",best_" << m;
  for (const std::string& c : optional.telemetry) csv << "," << c;
  if (optional.computation) csv << ",attention_path,gemm_backend,precision";
  csv << ",params,wall_seconds,steps_per_second\n";
  return csv.str();
}

// A trial's summary from its status on ("" for a missing trial's).
std::string summary_fields(const RunRows& run, const json& s, const OptionalColumns& optional) {
  std::ostringstream csv;
  csv << "," << s.value("status", "") << "," << summary_value_text(s["steps"]);
  for (const std::string& m : run.test_metrics)
    csv << "," << summary_value_text(s.contains("test") ? s["test"].value(m, json()) : json());
  csv << "," << summary_value_text(s["final"]["train_loss"]) << ","
      << summary_value_text(s["final"]["val_loss"]);
  for (const std::string& m : run.metrics)
    csv << "," << summary_value_text(s["final"].value(m, json()));
  csv << "," << summary_value_text(s["best"]["step"]) << ","
      << summary_value_text(s["best"]["val_loss"]);
  for (const std::string& m : run.metrics)
    csv << "," << summary_value_text(s["best"].value(m, json()));
  const std::vector<std::pair<std::string, double>> values = telemetry_values(s);
  for (const std::string& c : optional.telemetry) {
    auto v =
        std::find_if(values.begin(), values.end(), [&c](const auto& nv) { return nv.first == c; });
    csv << ","
        << (v == values.end() ? std::string() : summary_value_text(finite_or_string(v->second)));
  }
  if (optional.computation) {
    const Computation c = computation_of(s).value_or(Computation{});
    csv << "," << csv_field(c.attention_path) << "," << csv_field(c.gemm_backend) << ","
        << csv_field(c.precision);
  }
  // Timings last: everything before them is identical however the sweep ran.
  csv << "," << summary_value_text(s["params"]) << "," << summary_value_text(s["wall_seconds"])
      << "," << summary_value_text(s["steps_per_second"]) << "\n";
  return csv.str();
}

}  // namespace

std::string results_csv(const RunRows& run) {
  OptionalColumns optional;
  std::vector<const json*> summaries;
  for (const TrialRow& r : run.rows) summaries.push_back(&r.summary);
  optional.telemetry = telemetry_columns(summaries);
  optional.computation = any_computation(run);
  const auto tuning = tune_points(run);
  std::ostringstream csv;
  csv << header_line(run, optional);
  for (const TrialRow& r : run.rows) {
    csv << r.id << "," << r.point_id;
    for (const std::string& k : run.keys)
      csv << "," << csv_field(r.point.count(k) ? r.point.at(k) : "");
    for (const std::string& k : run.tune_keys)
      csv << "," << csv_field(r.tune.count(k) ? r.tune.at(k) : "");
    if (!run.tune_keys.empty()) {
      auto t = tuning.find(r.point);
      csv << "," << (t != tuning.end() && t->second.chosen == r.tune_label ? 1 : 0);
    }
    if (!run.tune_seeds.empty()) csv << "," << (run.tuning_row(r) ? 1 : 0);
    csv << "," << r.seed;
    csv << (r.summary.is_null() ? std::string(",missing\n")
                                : summary_fields(run, r.summary, optional));
  }
  return csv.str();
}

}  // namespace ablate::experiments
