#pragma once
// The content of every file a trial reads enters its identity (its id is the hash of
// its resolved config.toml, which records each such file's SHA-256 next to its path):
// editing a data file reruns exactly the trials that read it, and an untouched one —
// even with a new modification time — reuses them. SHA-256 is OpenSSL's (libcrypto).
#include <cstdint>
#include <map>
#include <string>

namespace ablate::experiments {

// SHA-256 of the file's bytes as 64 lowercase hex digits; throws std::runtime_error
// naming the path when it cannot be read or is not a regular file (a device or FIFO
// would be hashed forever) or has more than `max_bytes`.
std::string sha256_of_file(const std::string& path, std::uint64_t max_bytes = UINT64_MAX);
// The same of bytes already read.
std::string sha256_of_bytes(const std::string& bytes);

// Digests of one loading of an experiment, each file read once however many trials
// name it (a sweep of 1,000 trials over one data file hashes it once). A file larger
// than any data format allows (text_file.h) is not hashed — its loader refuses it
// with the format's limit — so a 100 GiB file is refused at once, not after a hash.
class FileDigests {
 public:
  const std::string& sha256(const std::string& path);

 private:
  std::map<std::string, std::string> digests_;  // by the path as resolved
};

}  // namespace ablate::experiments
