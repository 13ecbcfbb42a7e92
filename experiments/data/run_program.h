#pragma once
// Runs an external program (npm, apt-get, tar, dpkg-deb) with an argument vector — no
// shell, so paths with spaces or quotes pass through unchanged.
#include <string>
#include <vector>

namespace ablate::experiments {

struct ProgramResult {
  int exit_status = 0;  // 127 when the program could not be started
  std::string output;   // stdout and stderr together, for error messages
};

// Runs argv[0] (looked up on PATH) in `working_dir` (empty: the current one) and waits.
ProgramResult run_program(const std::vector<std::string>& argv,
                          const std::string& working_dir = "");

// True when `program` is an executable on PATH.
bool program_on_path(const std::string& program);

}  // namespace ablate::experiments
