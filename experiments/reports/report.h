#pragma once
// Reports of a run directory, rebuilt from what is on disk (so `ablate report` works
// on any copy of a run, including shards merged from several machines):
//   results.csv      one row per trial: point id, swept values, seed, status, test
//                    metrics, final and best validation metrics, speed
//   comparisons.csv  one row per sweep point and test metric: mean and interval,
//                    the comparison with its baseline, the verdict (comparisons.h)
//   claims.csv       with [[report.claims]]: each claim's verdict at each point it
//                    picks (claims_report.h)
//   summary.md       the comparison table of the primary test metric, the claims, the
//                    evaluation noise beside the seed spread, the validation table;
//                    missing and failed trials listed
//   plots/           gnuplot SVG + PNG (see plots.h)
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiments/config/experiment.h"
#include "experiments/reports/claims_report.h"
#include "experiments/reports/comparisons.h"
#include "experiments/reports/preregistration.h"

namespace ablate::experiments {

// The run index: the trials the experiment expects (id, seed, point), its swept keys
// and [report] settings, so reports can tell what is missing. write_trial_index
// writes it to <run_dir>/trials.json, with the `provenance` of the invocation writing
// it (records/provenance.h), which trial_index_json leaves out: it says who wrote the
// index, not what the experiment is.
nlohmann::json trial_index_json(const Experiment& experiment);
void write_trial_index(const std::string& run_dir, const Experiment& experiment);

struct ReportSummary {
  int expected = 0, finished = 0, failed = 0, missing = 0;
  std::vector<std::string> missing_ids;
};

// A run directory unpacked from a record (run_record.h) rather than the run itself.
struct RecordOrigin {
  std::string note;           // after summary.md's title: where its numbers come from
  bool draw_plots = true;     // false when the record has no curves to draw
  std::string kept_sections;  // the original summary.md's sections it cannot rebuild
};

// Reads trials.json and every trials/<id>/summary.json; writes results.csv,
// comparisons.csv, summary.md and the plots, and (for a run directory, not one
// unpacked from a record) the run's record.jsonl. Throws std::runtime_error if run_dir
// has no trials.json.
ReportSummary write_reports(const std::string& run_dir, const RecordOrigin* origin = nullptr);

// A run's sweep points with their test metrics, and its [report] settings.
struct RunPoints {
  std::string name;  // the run directory's name
  std::vector<std::string> keys;
  bool forecast = false;
  std::string task;                       // its kind: which metrics it has (test_metrics)
  std::vector<std::string> test_metrics;  // the task's, with per-length / per-context ones found
  std::vector<std::pair<std::string, std::string>> baseline;
  std::string metric;  // "" = the primary test metric
  std::optional<double> equivalence_margin;
  std::optional<double> threshold;
  bool grad_norms_at_init = false;  // summary.md's table of them (telemetry_report.h)
  std::vector<std::string>
      curve_metrics;              // auc_<primary>, and steps_to_<primary>_<T> with a threshold
  std::vector<ClaimSpec> claims;  // [[report.claims]]
  // What was frozen when the run's first trial started (none for older runs), and the
  // seeds, [tune] grid and family procedure now, to compare with it.
  std::optional<Preregistration> preregistration;
  std::string seeds, tune_grid, family;
  std::vector<std::uint64_t> tune_seeds;  // tune.seeds: the tuning stage's (none: every seed)
  std::optional<AdaptiveIndex> adaptive;  // [sweep.adaptive], when the run has one
  std::vector<PointResults> points;
};
RunPoints read_run_points(const std::string& run_dir);

// The trials of a point's chosen [tune] setting (every trial of the point without
// [tune]), in the order of `index` (a run's trials.json).
struct TrialRef {
  std::string id;
  std::uint64_t seed = 0;
};
std::vector<TrialRef> chosen_trials(const nlohmann::json& index, const PointResults& point);

// Whether `trial` (an entry of the index's trials) belongs to a two-stage [tune]'s tuning
// stage (index "tuning": its seeds): it chose a setting, and no report counts it as a
// result of its point.
bool in_tuning_stage(const nlohmann::json& index, const nlohmann::json& trial);

// The comparisons of `run` (or of several runs merged, `ablate compare`): the CSV and
// the markdown section summary.md starts with (the claims after its first table).
// `baselines` as find_baselines gives.
struct ComparisonReport {
  std::string csv, markdown;
  ClaimsReport claims;  // empty without [[report.claims]]
  // The headline table's metric ([report] metric, else the task's primary) and every
  // row of comparisons.csv: the plots draw these numbers rather than recomputing them.
  std::string metric;
  std::vector<ComparisonRow> rows;
};
ComparisonReport comparison_report(const RunPoints& run,
                                   const std::vector<std::optional<std::size_t>>& baselines,
                                   const std::string& baseline_text);

}  // namespace ablate::experiments
