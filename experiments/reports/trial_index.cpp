// trials.json (trial_index.h): the run index the reports read.
#include "experiments/reports/trial_index.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "experiments/analysis/successive_halving.h"
#include "experiments/config/experiment.h"
#include "experiments/io/atomic_file.h"
#include "experiments/records/provenance.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/claims_report.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json trial_entry(const Trial& t) {
  json point = json::object();
  for (const auto& [k, v] : t.point) point[k] = v;
  json tune = json::object();
  for (const auto& [k, v] : t.tune) tune[k] = v;
  return {{"id", t.id},           {"point_id", t.point_id},
          {"data_id", t.data_id}, {"seed", t.config.trial_seed},
          {"point", point},       {"label", t.point_label()},
          {"tune", tune},         {"tune_label", t.tune_label()}};
}

}  // namespace

json trial_index_json(const Experiment& e) {
  json trials = json::array();
  // A two-stage [tune]'s second stage: the tuning stage's trials first, as they ran.
  for (const Trial& t : e.chosen_from) trials.push_back(trial_entry(t));
  for (const Trial& t : e.trials) trials.push_back(trial_entry(t));
  json baseline = json::object();
  for (const auto& [k, v] : e.report.baseline) baseline[k] = v;
  json report{{"baseline", baseline}, {"metric", e.report.metric}};
  if (e.report.equivalence_margin) report["equivalence_margin"] = *e.report.equivalence_margin;
  if (e.report.threshold) report["threshold"] = *e.report.threshold;
  if (e.report.grad_norms_at_init) report["grad_norms_at_init"] = true;
  if (!e.report.lr_sensitivity.empty()) report["lr_sensitivity"] = e.report.lr_sensitivity;
  if (!e.report.claims.empty()) report["claims"] = claims_json(e.report.claims);
  json index{{"name", e.name},
             {"description", e.description},
             // Where the experiment file was: a trial's config.toml resolves its data
             // paths against it, from wherever it is run (Experiment::base_dir).
             {"source_dir", fs::absolute(e.base_dir).lexically_normal().string()},
             {"swept_keys", e.swept_keys},
             {"tune_keys", e.tune_keys},
             {"axes", e.axes},
             {"report", report},
             {"family", e.trials.empty() || e.trials[0].config.model.kind != "encoder_regressor"
                            ? "seq2seq"
                            : "forecast"},
             {"task", e.trials.empty() ? std::string() : e.trials[0].config.task.kind},
             {"trials", trials}};
  // The design, not the seeds its rounds have reached so far: what the reports replay
  // the rounds from (analysis/adaptive_schedule.h) and what is frozen with the claims.
  // Which seeds tuned and which judge (Experiment::tune_seeds): the reports choose each
  // point's setting from the first and compare on the second only.
  if (!e.tune_seeds.empty()) index["tuning"] = {{"seeds", e.tune_seeds}, {"sweep_seeds", e.seeds}};
  // The halving schedule the tuning stage ran (and the reports replay) its rungs by.
  if (e.halving) index["tuning"]["halving"] = halving_json(*e.halving);
  if (e.adaptive)
    index["adaptive"] = {{"first_seeds", e.seeds},           {"max_seeds", e.adaptive->max_seeds},
                         {"block", e.adaptive->block},       {"design", e.adaptive->design},
                         {"spending", e.adaptive->spending}, {"futility", e.adaptive->futility}};
  return index;
}

void write_trial_index(const std::string& run_dir, const Experiment& e) {
  json index = trial_index_json(e);
  // The invocation that wrote the index (each trial's summary.json has its own).
  index["provenance"] = provenance();
  write_file_atomically(RunDir(run_dir).trial_index(), index.dump(2) + "\n");
}

}  // namespace ablate::experiments
