#!/usr/bin/env bash
# Seeds generated from the shipped experiment files, so the fuzz corpus is always the
# files as they are today (a copy committed by hand drifts, and new files were never
# copied): every experiments/studies/<name>.toml as shipped_<name>.toml, every
# experiments/studies/replications/<name>.toml as replication_<name>.toml. OUT_DIR
# holds exactly those afterwards (a file removed from the studies leaves no seed);
# OUT_DIR.list names them. A `seeds = [a, b, c, ...]` list keeps its first two entries:
# the grid keeps every key and axis, but a 20-seed file no longer expands to hundreds
# of trials on every fuzz execution (under the sanitizers that took ~10 s an input,
# the per-input time limit). A tuned `"train.lr" = [...]` list keeps its first two
# entries alike: scaling_gradient's eight rates × 25 points × 2 tuning seeds listed 400
# trials, over 10 s an input under the sanitizers.
#   make_seeds.sh OUT_DIR FILE...
set -euo pipefail
out=${1%/}
shift
(( $# > 0 )) || { echo "make_seeds.sh: no experiment files given" >&2; exit 2; }
rm -rf "$out.tmp" && mkdir -p "$out.tmp"
for f in "$@"; do
  case "$f" in
    */replications/*.toml) seed=replication_$(basename "$f") ;;
    *.toml) seed=shipped_$(basename "$f") ;;
    *) echo "make_seeds.sh: $f is not an experiment file" >&2; exit 2 ;;
  esac
  [[ ! -e "$out.tmp/$seed" ]] || { echo "make_seeds.sh: two files make the seed $seed" >&2; exit 2; }
  sed -E -e 's/^(seeds = \[ *[0-9]+ *, *[0-9]+)( *,[^]]*)?\]/\1]/' \
    -e 's/^("train\.lr" = \[ *[^],]+ *, *[^],]+)( *,[^]]*)?\]/\1]/' "$f" > "$out.tmp/$seed"
done
rm -rf "$out" && mv "$out.tmp" "$out"
(cd "$out" && ls) > "$out.list"
