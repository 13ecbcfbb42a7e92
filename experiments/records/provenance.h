#pragma once
// Where a result came from beyond its config: summary.json's and trials.json's
// `provenance` (docs/reference/run-directory.md, "Where a result came from", lists every field).
//   code        ablate's version, the git commit, whether the working tree differed
//               from it and the SHA-256 of that difference (build_info.h)
//   build       compiler, build type, C++ flags, the instruction sets compiled for
//   libraries   Eigen, oneDNN, OpenBLAS, Boost, TOML++, nlohmann-json
//   machine     the CPU model and the instruction sets it has; what oneDNN and
//               OpenBLAS dispatch to on it; the GEMM backend of the process
//   invocation  the command line of the `ablate` process and its KEY=VALUE overrides
// Recorded, never part of a trial's identity: a trial made by other code keeps its id
// and is reused as before (only a GEMM backend change reruns it, sweep_runner.h).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ablate::experiments {

// The `ablate` invocation in this process: the command line, and the overrides given.
struct Invocation {
  std::vector<std::string> argv;
  std::vector<std::string> overrides;
};

// Set by the CLI (main() the command line, `ablate run` its overrides) before any
// trial starts; read by the trial runner and the trial index. Empty until set (a
// library caller, a test): recorded as such.
void set_command_line(int argc, const char* const* argv);
void set_overrides(const std::vector<std::string>& overrides);
const Invocation& invocation();

// The provenance object of `invocation` in this binary on this machine.
nlohmann::json provenance(const Invocation& invocation);
// The same for this process's invocation.
nlohmann::json provenance();

}  // namespace ablate::experiments
