#pragma once
// The MPI launcher the tests start ranks with (ABLATE_MPIEXEC: CMake's MPIEXEC_EXECUTABLE).

#include <cstdlib>
#include <string>

namespace ablate::experiments::testing {

// Under the sanitizers the ranks unwind whole stacks at every malloc, which the suite's
// other processes do not (it costs several times the CPU; scripts/sanitizer-env.sh):
// OpenMPI, built without frame pointers, keeps allocations until exit, and
// scripts/lsan.supp's entries for it match only stacks that reach its frames.
inline std::string mpiexec() {
  const char* asan = std::getenv("ASAN_OPTIONS");
  if (asan == nullptr) return ABLATE_MPIEXEC;
  return "env 'ASAN_OPTIONS=" + std::string(asan) + ":fast_unwind_on_malloc=0' " + ABLATE_MPIEXEC;
}

}  // namespace ablate::experiments::testing
