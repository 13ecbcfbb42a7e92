#!/usr/bin/env bash
# The sanitizer half of the README's test command: builds everything with Clang under
# AddressSanitizer + UndefinedBehaviorSanitizer into build-sanitize/ (the fuzz targets
# of tests/fuzz too), then runs the unit, e2e and fuzz tiers there — each fuzz target's
# corpus replay and a seeded fuzzing run of fixed length (deterministic; open-ended
# fuzzing is scripts/fuzz.sh). Any sanitizer report fails the test that triggered it.
#   sanitize.sh [ctest arguments, e.g. -R fuzz]  (replace the default tier selection
#                                                 with -L LABEL to run another tier)
#   sanitize.sh --configure-only | --build-only
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
stage=test
case "${1:-}" in
  --configure-only) stage=configure; shift ;;
  --build-only) stage=build; shift ;;
esac
if [[ ! -f build-sanitize/CMakeCache.txt ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release \
    -DABLATE_SANITIZE=ON -DABLATE_FUZZ=ON -DABLATE_BUILD_BENCH=OFF > /dev/null
fi
[[ $stage == configure ]] && exit 0
cmake --build build-sanitize --parallel "$jobs"
[[ $stage == build ]] && exit 0

source scripts/sanitizer-env.sh
if [[ $# -eq 0 ]]; then
  bash scripts/ctest-tiers.sh build-sanitize '^(unit|e2e|fuzz)$'
else
  bash scripts/ctest-tiers.sh build-sanitize '' "$@"
fi
cd build-sanitize
# What each seeded fuzzing run did (RELIABILITY.md quotes these figures; two runs of
# the same commit print the same lines).
for summary in tests/fuzz/*/summary; do
  [[ -f "$summary" ]] && cat "$summary"
done
