#!/usr/bin/env bash
# README command (b): install what is missing, build everything (library, CLI, tests,
# benchmarks), run the whole suite through ctest; then the same suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer with the libFuzzer targets' corpus
# replays and bounded fuzzing runs (scripts/sanitize.sh, a second build directory).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd build
ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)"
cd ..
bash scripts/sanitize.sh
