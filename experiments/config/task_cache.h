#pragma once
// The tasks of one process, shared by everything built from the same [task] table,
// data seed, data files' contents and base directory: loading a 100-point grid over
// one corpus and then training its trials reads and tokenizes the corpus once, not
// once to validate and once more per trial (≈ 1 s each for sotu's 9.5 M characters,
// a third of a quick replication trial). A Task is immutable once built (its interface
// is const), so trials on other threads read the same one at once.
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "experiments/config/trial_config.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

class TaskCache {
 public:
  // The task `spec` (with its files' digests) and `seed` describe, built on first use;
  // a thread that asks while another builds it waits for that build. Throws what
  // TaskRegistry::create throws, to every thread that asked; a failed build is not kept.
  std::shared_ptr<const Task> get(const TaskSpec& spec, std::uint64_t seed,
                                  const std::string& base_dir);

  // Tasks kept after their last user is done: a sweep over a few task settings reuses
  // each, while a sweep over many keeps only the most recently used (each lm task holds
  // its token streams: ≈ 80 MB for sotu).
  static constexpr std::size_t kKept = 4;

 private:
  struct Entry {
    std::shared_future<std::shared_ptr<const Task>> task;
    std::uint64_t build = 0;  // which build: a failed one erases its own entry only
    std::uint64_t last_used = 0;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> tasks_;
  std::uint64_t clock_ = 0;
};

// The process's cache: config loading and the trials it plans share it.
TaskCache& shared_task_cache();

}  // namespace ablate::experiments
