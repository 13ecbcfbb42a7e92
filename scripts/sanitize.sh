#!/usr/bin/env bash
# The sanitizer half of the README's test command: builds everything with Clang under
# AddressSanitizer + UndefinedBehaviorSanitizer into build-sanitize/ (the fuzz targets
# of tests/fuzz too), then runs the whole suite there — every test, each fuzz target's
# corpus replay and a bounded fuzzing run. Any sanitizer report fails the test that
# triggered it. Extra arguments go to ctest (e.g. -R fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [[ ! -f build-sanitize/CMakeCache.txt ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release \
    -DABLATE_SANITIZE=ON -DABLATE_FUZZ=ON -DABLATE_BUILD_BENCH=OFF > /dev/null
fi
cmake --build build-sanitize --parallel "$jobs"

# Reports abort (the test fails) and carry symbolized stacks. OpenMPI leaks its own
# allocations at MPI_Finalize; lsan.supp names those libraries, and matching them needs
# full stacks at malloc (OpenMPI is built without frame pointers).
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
cd build-sanitize
ctest --output-on-failure --parallel "$jobs" "$@"
# How much each fuzz target ran (RELIABILITY.md quotes these figures).
for log in tests/fuzz/*/log; do
  [[ -f "$log" ]] || continue
  runs=$(grep -m1 -oP 'stat::number_of_executed_units: *\K[0-9]+' "$log" || echo "?")
  new=$(grep -m1 -oP 'stat::new_units_added: *\K[0-9]+' "$log" || echo "?")
  echo "fuzz $(basename "$(dirname "$log")"): $runs inputs executed, $new new coverage units"
done
