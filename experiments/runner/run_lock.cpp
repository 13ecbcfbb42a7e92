#include "experiments/runner/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <stdexcept>

#include "experiments/records/run_dir.h"

namespace ablate::experiments {

RunLock::RunLock(const std::string& run_dir, const std::string& path, bool shared)
    : path_(path), shared_(shared) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path + ": cannot create the run lock");
  if (::flock(fd_, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    ::close(fd_);
    throw RunDirectoryLocked("another `ablate run` is already writing " + run_dir +
                             (path == RunDir(run_dir).lock() ? "" : " (this shard)") +
                             " (wait for it to finish, or use another --out)");
  }
}

RunLock::~RunLock() {
  // An exclusive holder removes the file before letting go (no empty .lock is left
  // behind); anyone who opened it meanwhile fails to lock it and says so. A shared
  // lock (shards) leaves it to the others.
  if (!shared_) ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace ablate::experiments
