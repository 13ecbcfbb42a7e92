// Fuzz target: a trial's summary.json in a run directory, as read_run_points reads it
// for the reports (and trial_finished for reruns) — run_dir_fuzz.h says what must hold.
#include "experiments/runner/sweep_runner.h"
#include "tests/fuzz/run_dir_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ablate::fuzz::read_run_with("trials/0123456789abcdef/summary.json", data, size);
  (void)ablate::experiments::trial_finished(
      (ablate::fuzz::scratch_dir() / "run/trials/0123456789abcdef").string());
  return 0;
}
