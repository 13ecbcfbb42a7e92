#include "experiments/runner/sweep_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "autograd/kernels/gemm.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/records/trial_summary.h"
#include "experiments/reports/preregistration.h"
#include "experiments/reports/trial_index.h"
#include "experiments/runner/missing_checkpoints.h"
#include "experiments/runner/progress.h"
#include "experiments/runner/resume_state.h"
#include "experiments/runner/run_lock.h"
#include "experiments/runner/stop_signal.h"
#include "experiments/runner/trial_order.h"
#include "experiments/runner/trial_runner.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The trial's summary.json, or nothing when it is missing or unreadable.
std::optional<TrialSummary> read_summary(const std::string& trial_dir) {
  const std::string path = TrialDir(trial_dir).summary();
  if (!fs::exists(path)) return std::nullopt;
  try {
    return trial_summary_from_json(read_json_file(path));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string trained_under_other_backend(const std::string& trial_dir) {
  const std::optional<TrialSummary> summary = read_summary(trial_dir);
  if (!summary || !summary->computation || !summary->computation->gemm_backend) return "";
  const std::string& backend = *summary->computation->gemm_backend;
  return backend == kernels::gemm_backend_name(kernels::gemm_backend()) ? "" : backend;
}

bool trial_finished(const std::string& trial_dir) {
  const std::optional<TrialSummary> summary = read_summary(trial_dir);  // unreadable: run it again
  // Stopped by successive halving (Trial::prune_at_pause) is a result too: not run again.
  return summary &&
         (summary->status == "ok" || summary->status == "diverged" || summary->status == "pruned");
}

namespace {

void remove_temporary_files(const std::string& dir) {
  if (!fs::exists(dir)) return;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() &&
        entry.path().filename().string().find(".tmp.") != std::string::npos)
      fs::remove(entry.path());
}

}  // namespace

SweepPlan::SweepPlan() = default;
SweepPlan::SweepPlan(SweepPlan&&) noexcept = default;
SweepPlan& SweepPlan::operator=(SweepPlan&&) noexcept = default;
SweepPlan::~SweepPlan() = default;

namespace {

// The trial ids a run directory's trials.json lists (empty if it has none).
std::set<std::string> indexed_trials(const std::string& run_dir) {
  std::set<std::string> ids;
  try {
    if (!fs::exists(RunDir(run_dir).trial_index())) return ids;
    const nlohmann::json index = read_json_file(RunDir(run_dir).trial_index());
    for (const auto& t : index.at("trials")) ids.insert(t.at("id").get<std::string>());
  } catch (const std::exception&) {
    ids.clear();  // unreadable: the run is rewritten as this experiment's
  }
  return ids;
}

// The run directory holds another version of the experiment file: that version and
// its trial index are kept in history/, numbered in the order they were replaced,
// before the current ones take their place.
void keep_earlier_version(const RunDir& run, const std::string& text) {
  if (!fs::exists(run.experiment())) return;
  const std::string earlier = read_file(run.experiment());
  if (earlier == text) return;
  fs::create_directories(run.history());
  int n = 1;
  while (fs::exists(run.earlier_experiment(n))) ++n;
  if (fs::exists(run.trial_index()))
    write_file_atomically(run.earlier_trial_index(n), read_file(run.trial_index()));
  write_file_atomically(run.earlier_experiment(n), earlier);
}

// The run's trials.json is `e`'s (its settings, design and claims) and lists every
// trial of `e`, perhaps more.
bool index_covers(const RunDir& run, const Experiment& e) {
  try {
    nlohmann::json on_disk = read_json_file(run.trial_index()), ours = trial_index_json(e);
    std::set<std::string> listed;
    for (const auto& t : on_disk.at("trials")) listed.insert(t.at("id").get<std::string>());
    on_disk.erase("trials");
    on_disk.erase("provenance");  // who wrote it, not what it describes
    ours.erase("trials");
    return on_disk == ours && std::all_of(e.trials.begin(), e.trials.end(),
                                          [&](const Trial& t) { return listed.count(t.id) > 0; });
  } catch (const std::exception&) {
    return false;  // none, or unreadable: written anew
  }
}

// Trial directories in run_dir that are not trials of `e`.
int trials_not_in(const RunDir& run, const Experiment& e) {
  std::set<std::string> ids;
  for (const Trial& t : e.trials) ids.insert(t.id);
  for (const Trial& t : e.chosen_from) ids.insert(t.id);
  int n = 0;
  if (fs::exists(run.trials()))
    for (const auto& d : fs::directory_iterator(run.trials()))
      n += d.is_directory() && !ids.count(d.path().filename().string()) &&
           fs::exists(TrialDir(d.path().string()).summary());
  return n;
}

}  // namespace

std::string run_dir_of(const Experiment& e, const RunOptions& options) {
  return !e.home_run_dir.empty() && !options.out_given ? e.home_run_dir
                                                       : options.out + "/" + e.name;
}

SweepPlan plan_sweep(const Experiment& e, const RunOptions& options, bool take_locks) {
  SweepPlan plan;
  RunSummary& summary = plan.summary;
  summary.run_dir = run_dir_of(e, options);
  // Some trials of a sweep already there (a trial's config.toml, or a copy of it, run
  // again): they run into that sweep, whose experiment.toml and trial index stay, and
  // whose reports are rewritten over all its trials — never replaced by a partial run.
  // An experiment file with a grid is never that, even when its grid shrank to a
  // subset of the sweep's: it is a new version of the sweep, and its index replaces
  // the old one (the trials left out are reported as not in the experiment).
  const std::set<std::string> indexed = indexed_trials(summary.run_dir);
  bool part_of_sweep = !e.declares_grid && !e.trials.empty() && e.trials.size() < indexed.size();
  for (const Trial& t : e.trials) part_of_sweep = part_of_sweep && indexed.count(t.id);
  const RunDir run(summary.run_dir);
  fs::create_directories(run.trials());
  bool sharded = options.shards > 0;
  if (take_locks)
    plan.locks.push_back(std::make_unique<RunLock>(summary.run_dir, run.lock(), sharded));
  std::vector<std::size_t> mine;
  if (sharded) {
    mine = shard_trials(e.trials, options.shard, options.shards);
    if (take_locks)
      plan.locks.push_back(std::make_unique<RunLock>(
          summary.run_dir, run.shard_lock(options.shard, options.shards), false));
  } else {
    mine.resize(e.trials.size());
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = i;
  }
  // A run killed mid-write leaves its temporary files behind (never the results they
  // were to replace). Holding the lock, any temporary file here is such a leftover —
  // for a shard, only in its own trials' directories (other shards may be writing).
  if (!sharded) remove_temporary_files(summary.run_dir);
  for (std::size_t i : mine) remove_temporary_files(run.trial(e.trials[i].id).path());
  if (!part_of_sweep) {
    const std::string text = e.text_as_run();
    keep_earlier_version(run, text);
    write_file_atomically(run.experiment(), text);
    // An adaptive or two-stage sweep's index only grows: a shard a round (or stage)
    // behind another leaves the later one's index (a superset of its own) in place.
    const bool grows = e.adaptive || !e.tune_seeds.empty();
    if (!(grows && index_covers(run, e))) write_trial_index(summary.run_dir, e);
    freeze_preregistration(summary.run_dir, e);
    summary.not_in_experiment = trials_not_in(run, e);
  }
  for (std::size_t i : mine) {
    const Trial& t = e.trials[i];
    ++summary.total;
    plan.slice.push_back(&t);
    const TrialDir trial = run.trial(t.id);
    const std::string& dir = trial.path();
    if (!options.force && trial_finished(dir)) {
      const std::string backend = trained_under_other_backend(dir);
      if (backend.empty()) {
        // Finished, but without the checkpoint now asked for: trained again to write it.
        if (auto recorded = finished_without_checkpoint(t, dir)) {
          plan.recorded_metrics.emplace(t.id, std::move(*recorded));
          plan.pending.push_back(&t);
          continue;
        }
        ++summary.skipped;
        continue;
      }
      // Its numbers came from another GEMM backend (ABLATE_GEMM), which changes them
      // in the last bits and so the trajectory: not this run's result, so it runs again.
      summary.other_backend[backend] += 1;
    }
    plan.pending.push_back(&t);
    // --force starts every trial again, also one stopped with a saved state.
    if (options.force) fs::remove(trial.resume_state());
  }
  return plan;
}

void count_outcome(RunSummary& summary, const std::string& status, std::int64_t resumed_from_step) {
  summary.resumed += resumed_from_step > 0;
  if (status == "ok")
    ++summary.ok;
  else if (status == "diverged")
    ++summary.diverged;
  else if (status == "interrupted")
    ++summary.interrupted;
  else if (status == "pruned")
    ++summary.pruned;
  else if (status != "paused")  // paused at a halving rung: counted when it finishes
    ++summary.failed;
}

void run_planned(const Experiment& e, SweepPlan& plan, const RunOptions& options,
                 const std::string& round) {
  RunSummary& summary = plan.summary;
  const std::vector<const Trial*>& pending = plan.pending;
  int jobs =
      options.jobs > 0 ? options.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::min<int>(jobs, int(std::max<std::size_t>(1, pending.size())));

  if (!plan.recorded_metrics.empty())
    std::cerr << "ablate: " << retraining_for_checkpoints_note(int(plan.recorded_metrics.size()))
              << "\n";
  if (options.progress)
    std::fprintf(
        stderr, "%s%s\n", round.empty() ? "" : (round + ": ").c_str(),
        start_line(pending.size(), std::size_t(summary.total), std::size_t(summary.skipped),
                   summary.run_dir, std::to_string(jobs) + (jobs == 1 ? " job" : " jobs"))
            .c_str());
  Progress progress(summary.total, summary.skipped, options.progress, round);
  std::atomic<std::size_t> next{0};
  std::mutex counts;
  std::vector<std::string> changed_metrics;  // printed after the progress line is done
  auto worker = [&] {
    while (true) {
      if (stop_signal()) return;  // asked to stop: no new trial starts
      std::size_t i = next.fetch_add(1);
      if (i >= pending.size()) return;
      const Trial& t = *pending[i];
      int slot = progress.start(t.id, t.seeded_label(), t.config.train.steps);
      TrialOutcome o =
          run_trial(t, e.base_dir, RunDir(summary.run_dir).trial(t.id).path(),
                    [&](std::int64_t step, double loss) { progress.update(slot, step, loss); });
      progress.finish(slot, o.status);
      std::lock_guard<std::mutex> g(counts);
      count_outcome(summary, o.status, o.resumed_from_step);
      if (auto recorded = plan.recorded_metrics.find(t.id);
          recorded != plan.recorded_metrics.end() && o.status != "interrupted")
        if (std::string d = retrained_metrics_difference(
                t, RunDir(summary.run_dir).trial(t.id).path(), recorded->second);
            !d.empty())
          changed_metrics.push_back(std::move(d));
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  progress.done();
  for (const std::string& warning : changed_metrics) std::cerr << "ablate: " << warning << "\n";
  summary.stopped_by = stop_signal();
}

void add_outcome_counts(RunSummary& total, const RunSummary& part) {
  total.ok += part.ok;
  total.diverged += part.diverged;
  total.failed += part.failed;
  total.interrupted += part.interrupted;
  total.pruned += part.pruned;
  total.resumed += part.resumed;
  for (const auto& [backend, n] : part.other_backend) total.other_backend[backend] += n;
}

}  // namespace ablate::experiments
