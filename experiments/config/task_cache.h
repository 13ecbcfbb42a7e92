#pragma once
// The tasks built while one experiment file is loaded, one per distinct [task] table,
// data seed and data content: validating a 100-point grid over one task builds (reads,
// tokenizes, draws held-out sets for) the task once, not 100 times.
#include <map>
#include <memory>
#include <string>

#include "experiments/config/trial_config.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

class TaskCache {
 public:
  // The task `spec` (with its files' digests) and `seed` describe, built on first use.
  // Throws what TaskRegistry::create throws; a failed build is not cached.
  const Task& get(const TaskSpec& spec, std::uint64_t seed, const std::string& base_dir);

 private:
  std::map<std::string, std::unique_ptr<Task>> tasks_;
};

}  // namespace ablate::experiments
