#include "experiments/io/scratch_folder.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace ablate::experiments {

ScratchFolder::ScratchFolder(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot make a temporary directory: " +
                             std::string(std::strerror(errno)));
  path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
  std::error_code ignored;  // a destructor must not throw; what cannot be removed stays in /tmp
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace ablate::experiments
