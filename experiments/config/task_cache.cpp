#include "experiments/config/task_cache.h"

#include <algorithm>

namespace ablate::experiments {

namespace {

// Everything the task is built from: its kind and options, the digests of the files
// they name (an edited file is another task), the seed, where paths resolve.
std::string key_of(const TaskSpec& spec, std::uint64_t seed, const std::string& base_dir) {
  std::string key = spec.kind + "\n" + std::to_string(seed) + "\n" + base_dir + "\n";
  for (const auto& [k, v] : spec.options.values()) key += k + "=" + nn::option_to_string(v) + "\n";
  for (const auto& [k, d] : spec.file_sha256) key += k + "#" + d + "\n";
  return key;
}

}  // namespace

std::shared_ptr<const Task> TaskCache::get(const TaskSpec& spec, std::uint64_t seed,
                                           const std::string& base_dir) {
  const std::string key = key_of(spec, seed, base_dir);
  std::promise<std::shared_ptr<const Task>> build;
  std::shared_future<std::shared_ptr<const Task>> task;
  std::uint64_t builder = 0;  // this call's build, or 0 when another call builds it
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = tasks_.find(key);
    if (it == tasks_.end()) {
      if (tasks_.size() >= kKept) {  // forget the least recently used (its users keep it alive)
        auto oldest = std::min_element(
            tasks_.begin(), tasks_.end(),
            [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
        tasks_.erase(oldest);
      }
      builder = ++clock_;
      it = tasks_.emplace(key, Entry{build.get_future().share(), builder}).first;
    }
    it->second.last_used = ++clock_;
    task = it->second.task;
  }
  if (builder) {  // built outside the lock: other tasks are served meanwhile
    try {
      build.set_value(task_registry().create(spec.kind, spec.options, seed, base_dir));
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto it = tasks_.find(key); it != tasks_.end() && it->second.build == builder)
          tasks_.erase(it);
      }
      build.set_exception(std::current_exception());
    }
  }
  return task.get();
}

TaskCache& shared_task_cache() {
  static TaskCache cache;
  return cache;
}

}  // namespace ablate::experiments
