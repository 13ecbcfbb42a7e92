#!/usr/bin/env bash
# README command (a): install what is missing of the packages the CLI needs
# (install-deps.sh run: no Clang, Catch2 or Google Benchmark), build the `ablate` CLI in
# Release and run the default experiment, experiments/studies/quickstart.toml (a small real
# sweep, under a minute on 2 cores). Its table, results and plots land in
# runs/quickstart/. Extra arguments go to `ablate run` (e.g. --jobs 1, --force). Unless
# `ablate` on PATH is this build, it first says how to put it there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh run
# A build/ configured here leaves the tests and benchmarks out (their packages are not
# installed by the line above); scripts/test.sh turns them on in the same build/.
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
    -DABLATE_BUILD_TESTS=OFF -DABLATE_BUILD_BENCH=OFF > /dev/null
fi
bash scripts/build.sh --target ablate
bash scripts/path-hint.sh build/experiments/ablate
exec build/experiments/ablate run experiments/studies/quickstart.toml "$@"
