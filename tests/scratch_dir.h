#pragma once
// A scratch directory for a test: created fresh under the system temp directory with
// mkdtemp, so its path is this object's alone — test processes run side by side (ctest
// --parallel, two build directories or two clones on one machine) and must never share
// or delete each other's files — and removed with everything in it when the object dies.
#include <stdlib.h>  // mkdtemp
#include <unistd.h>  // getpid

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ablate_tests {

class ScratchDir {
 public:
  // <temp>/ablate_test_<name>_<pid>_XXXXXX: the name and the process id only tell
  // whose it is (the leftover of a process killed before it could remove it).
  explicit ScratchDir(const std::string& name) {
    std::string pattern = (std::filesystem::temp_directory_path() /
                           ("ablate_test_" + name + "_" + std::to_string(::getpid()) + "_XXXXXX"))
                              .string();
    if (!::mkdtemp(pattern.data()))
      throw std::runtime_error(pattern + ": cannot create a scratch directory");
    path_ = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;  // one owner removes it
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;  // a destructor must not throw
    std::filesystem::remove_all(path_, ignored);
  }

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  // The path of `name` in the directory (nothing is created).
  std::string path_of(const std::string& name) const { return (path_ / name).string(); }
  // Writes `content` to `name` in the directory; returns its path.
  std::string file(const std::string& name, const std::string& content) const {
    std::string p = path_of(name);
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace ablate_tests
