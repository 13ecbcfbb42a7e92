#!/usr/bin/env bash
# Fetches every dataset the shipped experiments and replications read into the cache
# (`ablate data get all`: npm's registry and Debian's archive; nothing when they are
# cached already), so that the test suite that follows needs no network. A failure here
# says which dataset and why, before any test runs.
#   fetch-data.sh [ABLATE]    ABLATE: the CLI to use (default build/experiments/ablate)
set -euo pipefail
cd "$(dirname "$0")/.."
ablate=${1:-build/experiments/ablate}
if ! "$ablate" data get all; then
  echo "fetch-data.sh: could not fetch the datasets the tests read (above: which and why);" \
       "the smoke tier needs them in ~/.cache/ablate/data. Check the network, then rerun." >&2
  exit 1
fi
