#include "experiments/records/run_dir.h"

#include <cstdio>

namespace ablate::experiments {

std::string RunDir::shard_lock(int shard, int shards) const {
  return file(std::string(kLock) + ".shard-" + std::to_string(shard) + "-of-" +
              std::to_string(shards));
}

std::string RunDir::earlier(const char* stem, int n, const char* extension) const {
  char name[64];
  std::snprintf(name, sizeof name, "%s-%03d%s", stem, n, extension);
  return history() + "/" + name;
}

}  // namespace ablate::experiments
