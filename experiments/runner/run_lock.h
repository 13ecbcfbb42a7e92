#pragma once
// flock-based locks on files in a run directory, held for the object's lifetime:
// exclusive (a whole-sweep run; one shard's own slice) or shared (shards on the
// directory's lock, so they coexist with each other but not with a whole-sweep run).
#include <stdexcept>
#include <string>

namespace ablate::experiments {

// Another process holds the lock: the command exits with a status of its own
// (cli/command_help.h), so a job script can retry instead of reporting a failure.
class RunDirectoryLocked : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunLock {
 public:
  // `path`: the run directory's lock or a shard's (records/run_dir.h). Throws
  // RunDirectoryLocked naming the directory when another process holds it.
  RunLock(const std::string& run_dir, const std::string& path, bool shared);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  std::string path_;
  bool shared_;
  int fd_;
};

}  // namespace ablate::experiments
