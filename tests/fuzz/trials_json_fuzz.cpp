// Fuzz target: a run directory's trials.json (the trial index `ablate report`, reruns
// and `predict` read), as read_run_points reads it — run_dir_fuzz.h says what must hold.
#include "tests/fuzz/run_dir_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ablate::fuzz::read_run_with("trials.json", data, size);
  return 0;
}
