#!/usr/bin/env bash
# The newcomer path of experiments/README.md ("Your first experiment"), run as a test:
# set-up (a)'s hint followed as printed (ablate on PATH), the README's experiment file
# extracted as printed and checked, three mistakes typed into it and each reported once
# with its line and a suggestion, an override of a swept key (which wins, and says so),
# a run stopped by Ctrl-C (SIGINT) and resumed with the command it printed, and a
# prediction from a trial named by its swept values and seed.
#
# usage: newcomer_path.sh CLI [WORK]
#   CLI   the `ablate` that set-up (a) built (build/experiments/ablate)
#   WORK  a scratch directory (default: a new temporary one, removed at the end)
# ctest runs it in the e2e tier (guide.newcomer_path) and scripts/fresh-machine-test.sh
# right after set-up (a) in a brand-new root.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
cli=$(realpath "$1")
if [[ -n "${2:-}" ]]; then
  work=$2
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
cd "$work"
fail() {
  echo "newcomer path: $*" >&2
  exit 1
}
# has FILE TEXT: FILE contains TEXT (fixed string), else the test fails showing FILE.
has() {
  grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "expected in $1: $2"; }
}
# once FILE TEXT: TEXT appears on exactly one line of FILE.
once() {
  local n
  n=$(grep -cF -- "$2" "$1" || true)
  [[ $n == 1 ]] || { cat "$1" >&2; fail "expected once in $1 (found $n times): $2"; }
}

echo "== 1. set-up (a)'s hint, as printed"
hint=$(bash "$src/scripts/path-hint.sh" "$cli" 2>&1)
if [[ -n "$hint" ]]; then
  export_line=$(grep -o 'export PATH="[^"]*"' <<< "$hint") || fail "no export line in: $hint"
  eval "$export_line"
fi
[[ "$(realpath "$(command -v ablate)")" == "$cli" ]] || fail "ablate on PATH is not $cli"

echo "== 2. the experiment file of experiments/README.md, as printed"
awk '/^<!-- file: my_first.toml -->$/ {found = 1; next}
     found && /^```toml$/ {inside = 1; next}
     inside && /^```$/ {exit}
     inside {print}' "$src/experiments/README.md" > my_first.toml
[[ -s my_first.toml ]] || fail "experiments/README.md prints no my_first.toml"
ablate check my_first.toml > check.log
has check.log "my_first.toml: ok, 12 trials (model.norm.kind × model.norm.placement × 3 seeds)"

echo "== 3. three mistakes, each reported at its line with what was meant"
# mistake NAME SED-EXPRESSION EXPECTED: my_first.toml edited so; `ablate check` exits 2
# and prints EXPECTED (as experiments/README.md quotes it) once.
mistake() {
  sed -e "$2" my_first.toml > "$1.toml"
  local status=0
  ablate check "$1.toml" > "$1.log" 2>&1 || status=$?
  [[ $status == 2 ]] || { cat "$1.log" >&2; fail "$1.toml: exit $status, not 2"; }
  once "$1.log" "$1.toml:$3"
}
mistake table 's/^\[train\]$/[training]/' "18:2: training: unknown table (did you mean [train]?)"
mistake value 's/kind = "layer", placement/kind = "rmsnorm", placement/' \
  "16:10: model.norm.kind: unknown norm 'rmsnorm' (did you mean 'rms'?)"
mistake seed 's/^seeds = /seed = /' "28:1: sweep.seed: did you mean seeds?"

echo "== 4. an override of a swept key wins, and says so"
ablate check my_first.toml model.norm.kind=rms > override.log 2>&1
has override.log "my_first.toml: ok, 6 trials (model.norm.placement × 3 seeds)"
has override.log "note: override model.norm.kind=rms replaces the sweep over model.norm.kind (layer, rms) with one value"

echo "== 5. Ctrl-C, then the command it prints"
set -m  # the run in a process group of its own, as in a terminal
ablate run my_first.toml --jobs 2 > stopped.log 2>&1 &
run=$!
set +m
for _ in $(seq 600); do  # until a trial has finished (at most a minute)
  compgen -G "runs/my_first/trials/*/summary.json" > /dev/null && break
  sleep 0.1
done
kill -INT "$run"
status=0
wait "$run" || status=$?
[[ $status == 130 ]] || { cat stopped.log >&2; fail "stopped by SIGINT: exit $status, not 130"; }
has stopped.log "resume with: ablate run my_first.toml"
resume=$(sed -n 's/.*resume with: //p' stopped.log)
eval "$resume" > resumed.log 2>&1 || { cat resumed.log >&2; fail "the resume command failed"; }
has resumed.log "runs/my_first: 12 trials ("
has resumed.log " 0 failed)"
[[ $(($(wc -l < runs/my_first/results.csv) - 1)) == 12 ]] || fail "results.csv lacks trials"

echo "== 6. a prediction from the trial named by its swept values and seed"
echo "3 1 4 1 5" | ablate predict runs/my_first --point norm.kind=rms --point norm.placement=pre \
  --seed 0 - > predicted.tsv
has predicted.tsv "3 1 4 1 5"
[[ $(head -1 predicted.tsv) == $'id\tsource\tprediction' ]] || fail "predict's TSV has no header"
echo "newcomer path: ok"
