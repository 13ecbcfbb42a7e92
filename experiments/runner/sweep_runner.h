#pragma once
// Runs every trial of an experiment into <out>/<name>/: trials side by side on
// `jobs` threads (each trial single-threaded and deterministic, so results do not
// depend on jobs), finished trials skipped unless forced, a progress line on stderr
// (experiment_runner.h then writes the reports). A lock file keeps a second `ablate run`
// off the same directory; shards of one sweep share the directory (each locks its own
// slice), so a job array's tasks can write into one run directory side by side.
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "experiments/config/experiment.h"

namespace ablate::experiments {

struct RunOptions {
  std::string out = "runs";
  bool out_given =
      false;     // --out on the command line (else a trial's config.toml reruns into its own run)
  int jobs = 0;  // 0 = the number of cores
  bool force = false;  // rerun finished trials
  bool progress = true;
  // --shard K/N: run only the K-th (1-based) of N deterministic, work-balanced slices
  // of the trial list (experiments/runner/trial_order.h). 0/0 = the whole sweep.
  int shard = 0, shards = 0;
  std::vector<std::string> plugins;    // --plugin paths (experiments/plugins/plugin.h)
  std::vector<std::string> overrides;  // key=value arguments (experiments/config/overrides.h)
  bool quick = false;                  // --quick: the file's [quick] variant (quick_variant.h)
};

struct RunSummary {
  std::string run_dir;
  int total = 0, skipped = 0, ok = 0, diverged = 0, failed = 0;
  // Trial directories of earlier versions of the experiment file whose trials are not
  // in this one: kept on disk, left out of the reports.
  int not_in_experiment = 0;
  int resumed = 0;  // trials that continued from a saved state (resume_state.h)
  // Finished trials that run again because another GEMM backend trained them: by backend.
  std::map<std::string, int> other_backend;
  int interrupted = 0;  // trials stopped by SIGINT / SIGTERM (stop_signal.h), to run again
  int stopped_by = 0;   // that signal, or 0
  int pruned = 0;       // tuning trials stopped at a rung by [tune.halving] (tuned_sweep.h)
  // [sweep.adaptive]: the round the design reached, and what it says of itself
  // ("complete after round 3: 2 of 3 questions decided", "waiting for ...").
  int rounds = 0;
  std::string adaptive_note;
};

// What load_experiment needs from the run's options (its plugins and overrides).
inline LoadOptions load_options(const RunOptions& o) {
  LoadOptions load;
  load.plugins = o.plugins;
  load.overrides = o.overrides;
  load.quick = o.quick;
  return load;
}

class RunLock;

// Where a run of `experiment` writes: <out>/<name>, or the home run of a trial's
// config.toml run again without --out.
std::string run_dir_of(const Experiment& experiment, const RunOptions& options);

// What a run (or a shard, or an MPI job) of a sweep has to do, with its run directory
// prepared and locked: the trials still to run, in file order, and the counts so far.
struct SweepPlan {
  RunSummary summary;
  std::vector<const Trial*> pending;
  std::vector<const Trial*> slice;  // every trial this run covers (a shard: its own)
  std::vector<std::unique_ptr<RunLock>> locks;
  // Pending trials that were finished but lack the checkpoint asked for
  // (runner/missing_checkpoints.h), by id: their recorded test metrics, checked against
  // the new training's.
  std::map<std::string, std::map<std::string, double>> recorded_metrics;
  SweepPlan();
  SweepPlan(SweepPlan&&) noexcept;
  SweepPlan& operator=(SweepPlan&&) noexcept;
  ~SweepPlan();
};
// `take_locks` = false: the caller holds the run's locks already (the later rounds of an
// adaptive sweep, runner/adaptive_sweep.h).
SweepPlan plan_sweep(const Experiment& experiment, const RunOptions& options,
                     bool take_locks = true);
// Runs the plan's pending trials on `options.jobs` threads with the progress line
// (`round`: what it shows before the counts, "" for none), counting their outcomes.
void run_planned(const Experiment& experiment, SweepPlan& plan, const RunOptions& options,
                 const std::string& round = "");
// Adds the outcomes `part` counted (a round of an adaptive sweep, a stage of a
// two-stage one) to `total`'s: ok, diverged, failed, interrupted, resumed, other backends.
void add_outcome_counts(RunSummary& total, const RunSummary& part);
// Adds one trial's outcome (ok | diverged | failed | interrupted, and whether it
// continued from a saved state) to the counts.
void count_outcome(RunSummary& summary, const std::string& status, std::int64_t resumed_from_step);

// True when dir/summary.json records a finished trial (ok, diverged, or pruned by halving).
bool trial_finished(const std::string& trial_dir);
// The GEMM backend a finished trial recorded (summary.json's computation.gemm_backend)
// when it is not the one this process uses, else "" (also for a summary from before
// ablate recorded it: such a trial is reused as it always was). `ablate run` reruns a
// trial trained under another backend rather than mixing two backends' numbers.
std::string trained_under_other_backend(const std::string& trial_dir);

}  // namespace ablate::experiments
