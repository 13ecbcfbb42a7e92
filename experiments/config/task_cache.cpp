#include "experiments/config/task_cache.h"

namespace ablate::experiments {

const Task& TaskCache::get(const TaskSpec& spec, std::uint64_t seed, const std::string& base_dir) {
  // Everything the task is built from: its kind and options, the digests of the files
  // they name (an edited file is another task), the seed, where paths resolve.
  std::string key = spec.kind + "\n" + std::to_string(seed) + "\n" + base_dir + "\n";
  for (const auto& [k, v] : spec.options.values()) key += k + "=" + nn::option_to_string(v) + "\n";
  for (const auto& [k, d] : spec.file_sha256) key += k + "#" + d + "\n";
  auto it = tasks_.find(key);
  if (it == tasks_.end())
    it = tasks_.emplace(key, task_registry().create(spec.kind, spec.options, seed, base_dir)).first;
  return *it->second;
}

}  // namespace ablate::experiments
