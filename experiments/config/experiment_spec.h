#pragma once
// An experiment as loaded (experiment.h loads it): its trials, each a resolved config
// with its id and sweep point, and the settings of the run they make up.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/config/adaptive_design.h"
#include "experiments/config/halving_schedule.h"
#include "experiments/config/overrides.h"
#include "experiments/config/report_spec.h"
#include "experiments/config/trial_config.h"

namespace ablate::experiments {

struct Trial {
  TrialConfig config;
  std::string id;  // 16 hex digits: FNV-1a of the resolved config.toml
  // The sweep point, whatever the seed: the id of the same config with trial_seed 0
  // and no name. Equal across runs and files for equal configs, so comparisons can
  // match points.
  std::string point_id;
  // What the trial is evaluated on: the hash of its resolved [task] and data seed.
  // Trials with equal data_id have the same validation and test sets.
  std::string data_id;
  std::string config_toml;  // the resolved config
  // The swept keys and this trial's values (as written in TOML), in sweep order.
  std::vector<std::pair<std::string, std::string>> point;
  // The [tune] keys and this trial's values: a setting searched for its point.
  std::vector<std::pair<std::string, std::string>> tune;
  std::string point_label() const;   // "model.attention.qk=shared model.attention.scale=0.5"
  std::string tune_label() const;    // "train.lr=0.001" ("" without [tune])
  std::string seeded_label() const;  // point_label(), tune_label() and "seed=N": this replicate
  // A run setting, not part of the trial: train to this step, save the resume state and
  // stop there without a result ("paused"), the rung of a successive-halving tuning
  // stage (runner/tuned_sweep.h); 0 = train to the end.
  std::int64_t pause_at_step = 0;
  // With pause_at_step: finish the trial there instead, as stopped by halving (status
  // "pruned": a result, the validation curve to that step, no test metrics).
  bool prune_at_pause = false;
};

struct Experiment {
  std::string file;  // as given
  // Where relative data paths resolve: the file's directory — or, for a trial's
  // config.toml inside its run directory (<run>/trials/<id>/config.toml), the
  // directory of the experiment file that sweep was run from (recorded in the run's
  // trials.json), so that it reruns from anywhere.
  std::string base_dir;
  std::string home_run_dir;  // <run> for such a config.toml, else ""
  // The file has a [sweep] or [tune] table: it is an experiment file, not a single
  // trial's config.toml (or a copy of one), which has neither.
  bool declares_grid = false;
  std::string name, description;
  std::vector<std::string> swept_keys;
  // The swept keys by axis: one key each, or the keys of a [sweep.zip] group.
  std::vector<std::vector<std::string>> axes;
  // [tune]: keys searched for each sweep point (its trials are ordinary trials; the
  // report chooses each point's setting by validation loss).
  std::vector<std::string> tune_keys;
  std::vector<std::uint64_t> seeds;
  // tune.seeds: [tune] in two stages. The tuning stage runs every setting of every point
  // on these seeds (then `trials` holds its trials) and chooses each point's setting by
  // mean validation loss; the sweep's seeds — a fixed design or the adaptive rounds —
  // then run that setting only (runner/tuned_sweep.h). Disjoint from the sweep's seeds.
  std::vector<std::uint64_t> tune_seeds;
  // [tune.halving]: the tuning stage in rungs, the worst settings stopped at each
  // (runner/tuned_sweep.h); with tune.seeds only.
  std::optional<HalvingSchedule> halving;
  // In the second stage's Experiment: the tuning stage's trials, which the run's index
  // keeps beside `trials` (the reports choose each point's setting from them).
  std::vector<Trial> chosen_from;
  // `run --only-ids` (runner/listed_trials.h): `trials` are run as listed, without a
  // tuning stage first.
  bool exact_trials = false;
  // [sweep.adaptive]: `trials` is then the first round's (sweep.seeds), and the
  // sweep runner adds the seeds of later rounds (runner/adaptive_sweep.h).
  std::optional<AdaptiveDesign> adaptive;
  ReportSpec report;                // [report]: how summary.md and comparisons.csv compare points
  std::vector<Trial> trials;        // grid order (first swept key slowest), seeds innermost
  std::vector<PluginRef> plugins;   // loaded, in order; every trial's config lists them
  std::vector<Override> overrides;  // applied to the file's document, in order
  // What the reader should know that is not a problem: each sweep or tune axis an
  // override replaced ("override model.norm.kind=rms replaces the sweep over
  // model.norm.kind (layer, rms) with one value"), a data seed swept.
  std::vector<std::string> notes;
  // The text a run records as its experiment.toml: the file's, then the overrides.
  std::string text_as_run() const;
};

}  // namespace ablate::experiments
