#pragma once
// A private folder under the system's temporary directory (mkdtemp), removed with
// everything in it when the object goes — on success, on an exception, on an early
// return — so that a rebuild in scratch space never leaves anything behind.
#include <string>

namespace ablate::experiments {

class ScratchFolder {
 public:
  // Throws std::runtime_error when no folder can be made. `prefix` names it in /tmp.
  explicit ScratchFolder(const std::string& prefix);
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ablate::experiments
