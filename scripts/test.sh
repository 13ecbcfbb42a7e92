#!/usr/bin/env bash
# README command (b): install what is missing (install-deps.sh test: command (a)'s
# packages plus Catch2, Google Benchmark, Clang 14 and its runtimes), build everything
# (library, CLI, tests, benchmarks), run the whole suite through ctest; then the same
# suite again under AddressSanitizer + UndefinedBehaviorSanitizer with the libFuzzer
# targets' corpus replays and seeded fuzzing runs of fixed length (scripts/sanitize.sh,
# a second build directory).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's duration is printed when it ends (CI's log shows where the time went).
step() {  # step NAME COMMAND...
  local name=$1 t=$SECONDS
  shift
  "$@"
  echo "== $name: $((SECONDS - t)) s"
}
step "install" bash scripts/install-deps.sh test
# A build/ that scripts/run.sh configured has the tests and benchmarks off: turn them on.
if [[ -f build/CMakeCache.txt ]] &&
   ! { grep -qx 'ABLATE_BUILD_TESTS:BOOL=ON' build/CMakeCache.txt &&
       grep -qx 'ABLATE_BUILD_BENCH:BOOL=ON' build/CMakeCache.txt; }; then
  cmake -S . -B build -DABLATE_BUILD_TESTS=ON -DABLATE_BUILD_BENCH=ON > /dev/null
fi
step "Release build" bash scripts/build.sh
step "Release suite" bash -c 'cd build && ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)"'
step "sanitizer build" bash scripts/sanitize.sh --build-only
step "sanitizer suite" bash scripts/sanitize.sh
