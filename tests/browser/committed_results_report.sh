#!/usr/bin/env bash
# report.html of every committed results folder, opened in headless Chromium by
# check_report_html.py. The pages are not committed (a results folder keeps what
# rebuilds them: experiments/studies/results/README.md), so they are made here first,
# by `ablate report` on a copy of each folder (and `ablate compare` for norms/vs_none,
# as scripts/rebuild-results.sh does), about a minute on 2 cores; then the checks run on
# all 25 pages, and the self-test on the quickstart's (a doctored copy must fail).
#   committed_results_report.sh ABLATE SOURCE_DIR SCRATCH_DIR
set -euo pipefail
ablate=$1 source=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
cp -r "$source/experiments/studies/results" "$scratch/results"
while IFS= read -r record; do
  "$ablate" report "$(dirname "$record")" > /dev/null
done < <(find "$scratch/results" -name record.jsonl | sort)
"$ablate" compare "$scratch/results/norms" --baseline f28c66102367d558 \
  --out "$scratch/results/norms/vs_none" > /dev/null
check=("/usr/bin/python3" "$source/tests/browser/check_report_html.py")
"${check[@]}" --under "$scratch/results" --expect 25
"${check[@]}" --self-test "$scratch/results/quickstart"
