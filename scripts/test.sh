#!/usr/bin/env bash
# README command (b): install what is missing, build everything (library, CLI, tests,
# benchmarks), and run the whole suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd build
ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)"
