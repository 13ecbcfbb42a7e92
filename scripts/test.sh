#!/usr/bin/env bash
# README command (b): install what is missing (install-deps.sh test: command (a)'s
# packages plus Catch2, Google Benchmark, Clang 14 and its runtimes, ccache, npm),
# build everything (library, CLI, tests, benchmarks) in Release, check the code's habits
# (scripts/check-code.sh: clang-format, functions of at most 80 lines under autograd/, nn/, experiments/,
# files of at most 500 lines or a stated reason), fetch the datasets
# the real-data experiments read (their own step: the tests never use the network),
# run the unit, e2e, long and smoke tiers (and the fuzz corpora replayed without libFuzzer);
# then build again with Clang under
# AddressSanitizer + UndefinedBehaviorSanitizer (scripts/sanitize.sh, build-sanitize/)
# and run the unit, e2e and fuzz tiers there (the libFuzzer targets' corpus replays and
# seeded runs of fixed length). tests/README.md lists the tiers and every test in
# them; the reproduce tier (full-size reruns against the committed results) is
# scripts/reproduce.sh's, not this command's.
# Each step's time is printed when it ends, and each suite's 15 slowest tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/phases.sh

run_phase "install" bash scripts/install-deps.sh test
# A build/ that scripts/run.sh configured has the tests and benchmarks off: turn them on.
if [[ -f build/CMakeCache.txt ]] &&
   ! { grep -qx 'ABLATE_BUILD_TESTS:BOOL=ON' build/CMakeCache.txt &&
       grep -qx 'ABLATE_BUILD_BENCH:BOOL=ON' build/CMakeCache.txt; }; then
  cmake -S . -B build -DABLATE_BUILD_TESTS=ON -DABLATE_BUILD_BENCH=ON > /dev/null
fi
run_phase "Release build" bash scripts/build.sh
run_phase "code checks (format, function and file size)" bash scripts/check-code.sh
run_phase "datasets" bash scripts/fetch-data.sh build/experiments/ablate
run_phase "Release suite (unit, e2e, long, smoke, fuzz replays)" bash scripts/ctest-tiers.sh build '^(unit|e2e|long|smoke|fuzz)$'
run_phase "sanitizer build" bash scripts/sanitize.sh --build-only
run_phase "sanitizer suite (unit, e2e, fuzz)" bash scripts/sanitize.sh
echo "scripts/test.sh steps:"
print_phases
