#!/usr/bin/env bash
# report.html of a run directory as `ablate run` leaves it (every trial's config.toml,
# predictions.tsv and attention.json at hand, unlike a results folder), opened in
# headless Chromium by check_report_html.py: the quickstart's adaptive design cut to
# 150 steps and a budget of 10 seeds (its first block of 5, then one round), about 30
# trials and 20 s on 2 cores. At that size the design decides some questions and not
# others — the unscaled separate Q/K point worse in round 0, one shared Q/K point open
# at the budget, on this machine — and fixed-n verdicts reach p < 0.05, so the page
# has design verdicts to colour and fixed-n ones that must stay plain; and some
# sequence-accuracy bands would leave [0, 1] unclipped.
#   fresh_run_report.sh ABLATE SOURCE_DIR SCRATCH_DIR
set -euo pipefail
ablate=$1 source=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
"$ablate" run "$source/experiments/studies/quickstart.toml" 'train.steps=150' 'train.eval_every=50' \
  'sweep.adaptive.max_seeds=10' --out "$scratch" --jobs 2 --quiet > /dev/null
/usr/bin/python3 "$source/tests/browser/check_report_html.py" "$scratch/quickstart"
