#include "experiments/runner/sweep_runner.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "experiments/io/atomic_file.h"
#include "experiments/reports/report.h"
#include "experiments/runner/progress.h"
#include "experiments/runner/trial_order.h"
#include "experiments/runner/trial_runner.h"

namespace ablate::experiments {

namespace fs = std::filesystem;

bool trial_finished(const std::string& trial_dir) {
  std::string path = trial_dir + "/summary.json";
  if (!fs::exists(path)) return false;
  try {
    auto j = nlohmann::json::parse(read_file(path));
    std::string status = j.value("status", "");
    return status == "ok" || status == "diverged";
  } catch (const std::exception&) {
    return false;  // unreadable: run it again
  }
}

namespace {

// A lock on a file in the run directory for the lifetime of this object: exclusive
// (a whole-sweep run, or one shard's own slice lock) or shared (shards on the
// directory's lock, so they coexist with each other but not with a whole-sweep run).
class RunLock {
 public:
  RunLock(const std::string& run_dir, const std::string& name, bool shared) {
    std::string path = run_dir + "/" + name;
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error(path + ": cannot create the run lock");
    if (::flock(fd_, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
      ::close(fd_);
      throw std::runtime_error("another `ablate run` is already writing " + run_dir +
                               (name == ".lock" ? "" : " (this shard)") +
                               " (wait for it to finish, or use another --out)");
    }
  }
  ~RunLock() { ::close(fd_); }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_;
};

void remove_temporary_files(const std::string& dir) {
  if (!fs::exists(dir)) return;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename().string().find(".tmp.") != std::string::npos)
      fs::remove(entry.path());
}

}  // namespace

RunSummary run_experiment(const Experiment& e, const RunOptions& options) {
  RunSummary summary;
  summary.run_dir = options.out + "/" + e.name;
  fs::create_directories(summary.run_dir + "/trials");
  bool sharded = options.shards > 0;
  RunLock lock(summary.run_dir, ".lock", sharded);
  std::vector<std::size_t> mine;
  if (sharded) {
    mine = shard_trials(e.trials, options.shard, options.shards);
  } else {
    mine.resize(e.trials.size());
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = i;
  }
  std::unique_ptr<RunLock> slice_lock;
  if (sharded)
    slice_lock = std::make_unique<RunLock>(summary.run_dir,
                                           ".lock.shard-" + std::to_string(options.shard) + "-of-" +
                                               std::to_string(options.shards),
                                           false);
  // A run killed mid-write leaves its temporary files behind (never the results they
  // were to replace). Holding the lock, any temporary file here is such a leftover —
  // for a shard, only in its own trials' directories (other shards may be writing).
  if (!sharded) remove_temporary_files(summary.run_dir);
  for (std::size_t i : mine) remove_temporary_files(summary.run_dir + "/trials/" + e.trials[i].id);
  write_file_atomically(summary.run_dir + "/experiment.toml", read_file(e.file));
  write_trial_index(summary.run_dir, e);

  std::vector<const Trial*> pending;
  for (std::size_t i : mine) {
    const Trial& t = e.trials[i];
    ++summary.total;
    if (!options.force && trial_finished(summary.run_dir + "/trials/" + t.id)) ++summary.skipped;
    else pending.push_back(&t);
  }
  int jobs = options.jobs > 0 ? options.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::min<int>(jobs, int(std::max<std::size_t>(1, pending.size())));

  Progress progress(summary.total, summary.skipped, options.progress);
  std::atomic<std::size_t> next{0};
  std::mutex counts;
  auto worker = [&] {
    while (true) {
      std::size_t i = next.fetch_add(1);
      if (i >= pending.size()) return;
      const Trial& t = *pending[i];
      int slot = progress.start(t.id, t.point_label(), t.config.train.steps);
      TrialOutcome o = run_trial(t, e.base_dir, summary.run_dir + "/trials/" + t.id,
                                 [&](std::int64_t step, double loss) { progress.update(slot, step, loss); });
      progress.finish(slot, o.status);
      std::lock_guard<std::mutex> g(counts);
      if (o.status == "ok") ++summary.ok;
      else if (o.status == "diverged") ++summary.diverged;
      else ++summary.failed;
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  progress.done();
  write_reports(summary.run_dir);
  return summary;
}

}  // namespace ablate::experiments
