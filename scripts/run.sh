#!/usr/bin/env bash
# README command (a): install what is missing, build Release, and run the default
# experiment, experiments/quickstart.toml (a small real sweep, under a minute on 2
# cores). Its table, results and plots land in runs/quickstart/. Extra arguments go to
# `ablate run` (e.g. --jobs 1, --force).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh --target ablate
exec build/experiments/ablate run experiments/quickstart.toml "$@"
