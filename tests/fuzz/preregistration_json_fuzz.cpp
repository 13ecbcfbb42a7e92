// Fuzz target: a run directory's preregistration.json (the claims frozen when its
// first trial started), as `ablate report` reads it with the rest of the run —
// run_dir_fuzz.h says what must hold.
#include "tests/fuzz/run_dir_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ablate::fuzz::read_run_with("preregistration.json", data, size);
  return 0;
}
