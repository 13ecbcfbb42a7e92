#!/usr/bin/env bash
# scripts/compare-results.sh, the comparison of scripts/reproduce.sh, on real results:
# a tiny sweep (a quoted swept value, a [tune] grid, two seeds) run twice by the built
# `ablate` must match itself (timings aside), also when only its first seed reran
# (sweep.seeds=[0] keeps the ids); and the comparison must fail, naming the file, the
# trial id and the column, when one committed number is edited by hand (in a row
# without quotes and in one with them, so columns stay aligned past a quoted field),
# when a committed column is gone, and when the ids the file defines are not the
# committed ones; and, for an adaptive design, when a committed trial is not one of the
# design's (up to its budget) or its first block is not all committed.
#   comparison_test.sh ABLATE SOURCE_DIR
set -euo pipefail
ablate=$(realpath "$1") src=$(realpath "$2")
compare=$src/scripts/compare-results.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/ablate_test_reproduce.XXXXXX")  # unique per process
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAILED: $*"; exit 1; }

# expect STATUS PATTERN... -- COMMAND...: COMMAND exits STATUS and prints every PATTERN
# (an extended regular expression matching a whole line).
expect() {
  local want=$1 patterns=() status=0
  shift
  while [[ $1 != -- ]]; do patterns+=("$1"); shift; done
  shift
  "$@" > out.txt 2>&1 || status=$?
  cat out.txt
  [[ $status == "$want" ]] || fail "exit $status, expected $want: $*"
  local p
  for p in "${patterns[@]}"; do grep -qxE -- "$p" out.txt || fail "no line matching '$p'"; done
}

cat > tiny.toml <<'EOF'
name = "tiny"
seed = 3

[task]
kind = "reverse"
vocab = 6
min_length = 2
max_length = 5
validation_size = 32
test_size = 32

[model]
d_model = 8
heads = 2
d_ff = 16
layers = 1

[train]
steps = 30
batch = 8
eval_every = 10

[sweep]
"model.attention.qk" = ["separate", { kind = "shared", exclude_self = false }]
seeds = [0, 1]

[tune]
"train.lr" = [3e-3, 1e-2]
EOF

"$ablate" check tiny.toml | grep -oE '^  [0-9a-f]{16}  ' | tr -d ' ' > defined_ids.txt
[[ $(wc -l < defined_ids.txt) == 8 ]] || fail "ablate check listed $(wc -l < defined_ids.txt) trials, expected 8"
"$ablate" run tiny.toml --out first --jobs 2 --quiet > /dev/null
"$ablate" run tiny.toml --out second --jobs 2 --quiet > /dev/null
"$ablate" run tiny.toml 'sweep.seeds=[0]' --out seed0 --jobs 2 --quiet > /dev/null
cp first/tiny/results.csv committed.csv
grep -q '"' committed.csv || fail "expected a quoted field in results.csv (the shared qk's options)"

echo "== a rerun of every trial matches"
expect 0 'tiny: matches the committed results \(8 rows rerun of 8, ids identical\)' -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt committed.csv second/tiny/results.csv

echo "== a rerun of the first seed matches (same ids), selected aside"
expect 0 'tiny: matches the committed results \(4 rows rerun of 8, ids identical\)' -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt --ignore-column selected committed.csv seed0/tiny/results.csv

# The header's column number of $1 (no header field is quoted).
column_number() { head -n 1 committed.csv | tr ',' '\n' | grep -nx -- "$1" | cut -d: -f1; }
loss=$(column_number test_loss)
[[ -n $loss ]] || fail "results.csv has no test_loss column"

# Edits field $3 (counted from 1, the quoted field as one) of the row of trial $2 in
# file $1: its last digit goes up by one (9 -> 0). Prints "id old new".
edit_cell() {
  awk -F'\n' -v id="$2" -v column="$3" '
    function bump(v,   d) { d = substr(v, length(v), 1); return substr(v, 1, length(v) - 1) ((d + 1) % 10) }
    index($0, id ",") == 1 {
      # Split at commas outside quotes, keeping the quotes, so the row can be rejoined.
      n = 0; field = ""; quoted = 0
      for (i = 1; i <= length($0); i++) {
        c = substr($0, i, 1)
        if (c == "\"") quoted = !quoted
        if (c == "," && !quoted) { f[++n] = field; field = "" } else field = field c
      }
      f[++n] = field
      old = f[column]; f[column] = bump(old)
      print id, old, f[column] > "/dev/stderr"
      line = f[1]; for (i = 2; i <= n; i++) line = line "," f[i]
      print line; next
    }
    { print }' "$1" 2> edit.txt > edited.csv
  mv edited.csv "$1"
  cat edit.txt
}

plain_id=$(grep -v '"' committed.csv | sed -n 2p | cut -d, -f1)
quoted_id=$(grep '"' committed.csv | awk 'NR == 1' | cut -d, -f1)

echo "== a hand-edited number in a row without quotes fails, naming file, trial and column"
cp committed.csv edited_plain.csv
read -r id old new < <(edit_cell edited_plain.csv "$plain_id" "$loss")
[[ $old != "$new" ]] || fail "the edit changed nothing"
expect 1 "edited_plain.csv: trial $id: column test_loss: committed $new, rerun $old" \
  'tiny: 1 difference from the committed results \(8 rows rerun of 8\)' -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt edited_plain.csv second/tiny/results.csv

echo "== a hand-edited number in a row with a quoted field fails, naming the right column"
cp committed.csv edited_quoted.csv
read -r id old new < <(edit_cell edited_quoted.csv "$quoted_id" "$loss")
expect 1 "edited_quoted.csv: trial $id: column test_loss: committed $new, rerun $old" -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt edited_quoted.csv second/tiny/results.csv

echo "== an edit in a row the rerun did not run (seed 1) is not compared"
seed1_id=$(awk -F, -v s="$(column_number seed)" 'NR > 1 && $0 !~ /"/ && $s == 1 { print $1; exit }' committed.csv)
cp committed.csv edited_seed1.csv
edit_cell edited_seed1.csv "$seed1_id" "$loss" > /dev/null
expect 0 'tiny: matches the committed results \(4 rows rerun of 8, ids identical\)' -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt --ignore-column selected edited_seed1.csv seed0/tiny/results.csv

echo "== a committed column the rerun does not write fails, in every row that has a value in it"
sed '1s/,test_loss,/,test_loss_renamed,/' second/tiny/results.csv > renamed.csv
expect 1 "committed.csv: trial $id: column test_loss: committed .*, not written by the rerun" \
  'tiny: 8 differences from the committed results \(8 rows rerun of 8\)' -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt committed.csv renamed.csv

echo "== a committed column empty in every rerun row may be absent from the rerun (a slice)"
# A column only seed 1's rows have a value in (as only BatchNorm points write
# BatchNorm's telemetry), and a rerun of seed 0 alone, which does not write it.
awk -F, -v OFS=, -v s="$(column_number seed)" '
  NR == 1 { print $0, "only_some_points"; next }
  { print $0, ($0 !~ /"/ && $s == 1 ? "0.5" : "") }' committed.csv > sparse.csv
expect 0 'tiny: matches the committed results \(4 rows rerun of 8, ids identical\)' -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt --ignore-column selected sparse.csv seed0/tiny/results.csv

echo "== ids the file defines that differ from the committed ones fail, naming each"
dropped=$(sed -n 3p defined_ids.txt)
grep -vx "$dropped" defined_ids.txt > changed_ids.txt
echo 0123456789abcdef >> changed_ids.txt
expect 1 "committed.csv: trial $dropped: in the committed results, not defined by the experiment file today \(its id changed, or the file dropped it\)" \
  'committed.csv: trial 0123456789abcdef: defined by the experiment file today, not in the committed results' -- \
  bash "$compare" --name tiny --defined-ids changed_ids.txt committed.csv second/tiny/results.csv

echo "== a bf16 trial within the tolerance matches; beyond it, it fails"
cp committed.csv approx.csv
edit_cell approx.csv "$plain_id" "$loss" > /dev/null   # last digit of 6 significant: < 1e-4 relative
echo "$plain_id" > approx_ids.txt
expect 0 'tiny: matches the committed results \(8 rows rerun of 8, ids identical\)' -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt --approximate-ids approx_ids.txt approx.csv second/tiny/results.csv
expect 1 "approx.csv: trial $plain_id: column test_loss: committed .*, rerun .* \(beyond the relative tolerance 1e-6\)" -- \
  bash "$compare" --name tiny --defined-ids defined_ids.txt --approximate-ids approx_ids.txt --relative-tolerance 1e-6 \
  approx.csv second/tiny/results.csv

echo "== an adaptive design: the first block must be committed, and every committed id be the design's"
# The tiny file's task, model and training, on a learning-rate axis with no [tune].
sed -e 's/^name = "tiny"/name = "adaptive"/' -e '/^\[sweep\]/,$d' tiny.toml > adaptive.toml
cat >> adaptive.toml <<'EOF'
[sweep]
"train.lr" = [3e-3, 1e-6]
seeds = [0, 1]

[sweep.adaptive]
max_seeds = 4
block = 2
EOF
"$ablate" check adaptive.toml | grep -oE '^  [0-9a-f]{16}  ' | tr -d ' ' > block_ids.txt
"$ablate" check adaptive.toml --budget |
  grep -oE '^  [0-9a-f]{16}  ' | tr -d ' ' > budget_ids.txt
[[ $(wc -l < block_ids.txt) == 4 && $(wc -l < budget_ids.txt) == 8 ]] || fail "ablate check listed the wrong trials"
"$ablate" run adaptive.toml --out adaptive_full --jobs 2 --quiet > /dev/null
"$ablate" run adaptive.toml 'sweep.seeds=[0,1]' 'sweep.adaptive.max_seeds=2' --out adaptive_block --jobs 2 --quiet > /dev/null
full=adaptive_full/adaptive/results.csv
rows=$(($(wc -l < "$full") - 1))
[[ $rows -gt 4 ]] || fail "the adaptive run stopped at its first block ($rows trials): the case needs a second round"
expect 0 "adaptive: matches the committed results \(4 rows rerun of $rows, first block committed, every id within the design\)" -- \
  bash "$compare" --name adaptive --defined-ids block_ids.txt --possible-ids budget_ids.txt \
  "$full" adaptive_block/adaptive/results.csv
later=$(awk -F, 'NR > 1 { print $1 }' "$full" | grep -vxF -f block_ids.txt | head -n 1)
grep -vx "$later" budget_ids.txt > short_budget_ids.txt
expect 1 "$full: trial $later: in the committed results, not defined by the experiment file today \(its id changed, or the file dropped it, or it lies beyond the adaptive design and its budget\)" -- \
  bash "$compare" --name adaptive --defined-ids block_ids.txt --possible-ids short_budget_ids.txt \
  "$full" adaptive_block/adaptive/results.csv
echo 0123456789abcdef >> block_ids.txt
expect 1 "$full: trial 0123456789abcdef: defined by the experiment file today, not in the committed results" -- \
  bash "$compare" --name adaptive --defined-ids block_ids.txt --possible-ids budget_ids.txt \
  "$full" adaptive_block/adaptive/results.csv

echo "comparison_test: ok"
