#include "experiments/data/hash_split.h"

#include "experiments/io/file_digest.h"

namespace ablate::experiments {

std::string hash_split(const std::string& key) {
  const unsigned long bucket = std::stoul(sha256_of_bytes(key).substr(0, 8), nullptr, 16) % 20;
  return bucket == 0 ? "test" : bucket == 1 ? "validation" : "train";
}

}  // namespace ablate::experiments
