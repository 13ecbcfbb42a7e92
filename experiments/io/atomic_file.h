#pragma once
// Results are written to a temporary file in the same directory, flushed to disk and
// renamed over the target, so a killed run leaves either the old file or the new one,
// never half of one. A full disk or any write error throws with the path.
#include <string>

namespace ablate::experiments {

void write_file_atomically(const std::string& path, const std::string& content);
std::string read_file(const std::string& path);  // throws std::runtime_error naming the path

}  // namespace ablate::experiments
