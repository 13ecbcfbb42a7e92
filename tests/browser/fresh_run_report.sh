#!/usr/bin/env bash
# report.html of a run directory as `ablate run` leaves it (every trial's config.toml,
# predictions.tsv and attention.json at hand, unlike a results folder), opened in
# headless Chromium by check_report_html.py: a cut-down quickstart, 2 seeds, 60 steps.
#   fresh_run_report.sh ABLATE SOURCE_DIR SCRATCH_DIR
set -euo pipefail
ablate=$1 source=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
"$ablate" run "$source/experiments/studies/quickstart.toml" 'train.steps=60' 'train.eval_every=20' \
  'sweep.seeds=[0, 1]' 'sweep.adaptive.max_seeds=2' 'sweep.adaptive.block=2' \
  --out "$scratch" --jobs 2 --quiet > /dev/null
/usr/bin/python3 "$source/tests/browser/check_report_html.py" "$scratch/quickstart"
