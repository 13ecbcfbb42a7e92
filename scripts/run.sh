#!/usr/bin/env bash
# README command (a): install what is missing, build Release, run the default job.
# Until the experiment runner exists, the default job is `ablate demo`: a tiny
# attention model trained with the tape, printing its loss as it falls.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh --target ablate
exec build/experiments/ablate demo "$@"
