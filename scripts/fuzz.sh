#!/usr/bin/env bash
# Open-ended fuzzing, outside the test command (whose fuzzing is seeded and fixed, so
# a landing never fails at random): each target — or those named — for SECONDS
# (default 600) with a random seed, under ASan + UBSan, starting from the seed corpus
# (with the seeds the build generates from the shipped experiment files) and every
# found input, in build-sanitize/fuzz-search/<target>/. A finding fails the
# script and is left in that directory's artifacts/; tests/fuzz/README.md says how it
# becomes a regression input.
#   scripts/fuzz.sh [SECONDS] [experiment_loader|safetensors|csv_loader|tsv_loader ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS] [TARGET ...]" >&2; exit 2; }
shift || true
targets=("$@")
(( ${#targets[@]} > 0 )) || targets=(experiment_loader safetensors csv_loader tsv_loader)
for t in "${targets[@]}"; do
  [[ -d tests/fuzz/corpus/$t ]] || { echo "no fuzz target '$t' (see tests/fuzz/)" >&2; exit 2; }
done
bash scripts/sanitize.sh --build-only
source scripts/sanitizer-env.sh
status=0
for t in "${targets[@]}"; do
  ABLATE_FUZZ_DICT=$( [[ $t == experiment_loader ]] && echo "build-sanitize/tests/fuzz/experiment_loader.dict" ) \
  bash tests/fuzz/run_fuzzer.sh search "build-sanitize/tests/fuzz/${t}_fuzz" \
    "$(cat "build-sanitize/tests/fuzz/$t.corpus")" \
    "tests/fuzz/regressions/$t" "$seconds" "build-sanitize/fuzz-search/$t" || status=1
done
exit "$status"
