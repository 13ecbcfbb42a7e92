#pragma once
// The fixed split of the converted datasets: an item (a word of CMUdict, a speech of
// the State of the Union corpus) goes to a split by the SHA-256 of its key alone —
// reproducible with any tool (Python: int(hashlib.sha256(key.encode()).hexdigest()[:8],
// 16) % 20), independent of the order of the source and of the other items, and stable
// when a new version of the source adds items.
#include <string>

namespace ablate::experiments {

// Bucket 0 of 20 → "test", bucket 1 → "validation", the other 18 → "train" (90/5/5).
std::string hash_split(const std::string& key);

}  // namespace ablate::experiments
