#pragma once
// summary.json, a finished trial's record (runner/trial_runner.h), as plain data. The
// trial runner fills it from the Trial and its TrialOutcome; to_json writes exactly
// what summary.json holds (nlohmann's objects sort their keys; NaN and infinity as the
// strings of io/json_number.h), and from_json reads it back. Every field a summary.json
// of an older run (or a run record derived from results.csv, reports/run_record.h) may
// lack is optional, and is written only when present.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/records/evaluation.h"
#include "experiments/records/trial_config.h"
#include "experiments/records/trial_outcome.h"

namespace ablate::experiments {

// An evaluation as summary.json records it: "final" and "best" (validation; the loss
// is "val_loss", no standard errors) and "test" (the loss is "loss", with
// "standard_errors"). Any other key is a metric.
struct SummaryEvaluation {
  std::optional<std::int64_t> step;
  std::optional<double> loss, train_loss, lr, grad_norm, seconds;
  std::map<std::string, double> metrics;
  std::optional<std::map<std::string, double>> standard_errors;
};

// What computed the trial's numbers beyond its config (summary.json's "computation").
struct SummaryComputation {
  std::optional<std::string> attention_path;  // none | fused | general | mixed
  std::optional<std::string> why_not_fused;   // the first reason, prefixed by its module
  std::optional<std::string> gemm_backend, precision;
};

// A file the trial read: summary.json's "files", keyed "task.<key>".
struct SummaryFile {
  std::string path, sha256;
};

struct BatchNormDrift {
  std::vector<Evaluation::NormDrift> training, last_interval;
};

struct TrialSummary {
  std::optional<std::string> id;
  std::string status;  // ok | diverged | failed
  std::optional<std::string> error;
  std::optional<std::int64_t> params, steps, train_steps, resumed_from_step, diverged_at;
  std::optional<bool> stopped_early;
  SummaryEvaluation final, best;
  std::optional<SummaryEvaluation> test;
  InitialGradients init_gradients;  // "init_grad_norm" and "init_grad_norms" when recorded
  std::optional<BatchNormDrift> norm_drift;
  std::optional<double> wall_seconds, steps_per_second, peak_rss_mib;
  std::optional<std::uint64_t> seed, data_seed;
  std::map<std::string, SummaryFile> files;
  std::optional<std::string> code_version;
  std::optional<SummaryComputation> computation;
  std::vector<PluginRef> plugins;
  std::optional<std::map<std::string, std::string>> point;
  // Which code, build, machine and command made it (records/provenance.h), as written.
  std::optional<nlohmann::json> provenance;
  // Only in a record derived from results.csv: its telemetry columns by name.
  std::map<std::string, double> telemetry;
};

// The validation record of an evaluation (no telemetry, no standard errors), and the
// test record (its step, loss, metrics and standard errors).
SummaryEvaluation validation_record(const Evaluation& e);
SummaryEvaluation test_record(const Evaluation& e);

// {module: {"mean": .., "var": ..}}, non-finite values as strings ("nan", "inf"): a
// summary's "norm_drift" parts, and metrics.jsonl's per evaluation.
nlohmann::json norm_drift_json(const std::vector<Evaluation::NormDrift>& drift);

nlohmann::json to_json(const TrialSummary& s);
// Throws std::runtime_error naming the field when a field has the wrong type.
TrialSummary trial_summary_from_json(const nlohmann::json& j);

}  // namespace ablate::experiments
