#!/usr/bin/env bash
# Rebuilds the reports of every committed results folder from its record.jsonl —
# results.csv, comparisons.csv, claims.csv, summary.md — and the comparison of norms
# with no norm (experiments/studies/results/norms/vs_none), under the statistics of this
# checkout's ablate. No trial is trained. Run it after any change to how reports are
# computed or written, and commit what changes with the reason: the smoke test
# "every committed results folder is what ablate report rebuilds from its record"
# fails until then.
#
#   scripts/rebuild-results.sh [--no-build]
#
# Environment: ABLATE=PATH runs that `ablate` binary (then nothing is built).
set -euo pipefail
if [[ -n ${ABLATE:-} && $ABLATE != /* ]]; then ABLATE=$PWD/$ABLATE; fi
cd "$(dirname "$0")/.."
build=1
[[ ${1:-} == --no-build ]] && build=0
ablate=${ABLATE:-build/experiments/ablate}
if [[ -z ${ABLATE:-} && $build == 1 ]]; then scripts/build.sh --target ablate >/dev/null; fi
while IFS= read -r record; do
  "$ablate" report "$(dirname "$record")" | awk 'NR == 1'
done < <(find experiments/studies/results -name record.jsonl | sort)
"$ablate" compare experiments/studies/results/norms --baseline f28c66102367d558 \
  --out experiments/studies/results/norms/vs_none >/dev/null
echo "experiments/studies/results/norms/vs_none: rebuilt"
