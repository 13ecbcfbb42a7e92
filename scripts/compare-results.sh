#!/usr/bin/env bash
# Compares a rerun's results.csv with the committed one, cell by cell, and (given the
# ids the experiment file defines today) the committed trial ids with those ids.
#
#   scripts/compare-results.sh [options] COMMITTED_CSV RERUN_CSV
#     --name NAME              what the summary line calls the file (default: COMMITTED_CSV)
#     --defined-ids FILE       the trial ids the experiment file defines today, one a line
#                              (`ablate check FILE`): they must be exactly COMMITTED_CSV's ids
#     --possible-ids FILE      an adaptive design's every trial up to its budget: a committed
#                              id must be one of them, and --defined-ids (its first block)
#                              must all be committed; the seeds between follow from results
#     --ignore-column COLUMN   do not compare COLUMN (repeatable), e.g. `selected`, which
#                              depends on every seed of a point, when only some seeds reran
#     --approximate-ids FILE   trials (one id a line) whose numbers agree within
#                              --relative-tolerance instead of as text: bf16 trials
#     --relative-tolerance R   |committed - rerun| <= R * max(|committed|, |rerun|); default 0.01
#
# A rerun row is compared with the committed row of the same trial id; rows the rerun
# did not run (status `missing`, e.g. another shard's) are not compared. Columns are
# matched by name (their order moved between builds). Every cell must be the same
# text — results.csv prints a fixed 6 significant digits, and an f32 trial with a given
# seed is bit-identical wherever it runs on the same instruction set — except:
#   - the timing columns (wall_seconds, steps_per_second, and any *_seconds or
#     *per_second column): they measure the machine, not the trial;
#   - the columns given to --ignore-column;
#   - a column the committed file does not have (telemetry added after it was made):
#     named on a `not compared:` line, not a difference;
#   - the trials given to --approximate-ids, numeric cells within the tolerance.
# A column the committed file has and the rerun lacks is a difference in every rerun
# row whose committed cell in it is not empty (a slice that reruns only points that
# leave it empty, as LayerNorm points leave BatchNorm's telemetry, is not).
#
# Output: `NAME: matches the committed results (N rows rerun of M[, ids identical])`,
# exit 0; or one line per difference naming COMMITTED_CSV, the trial id, the column,
# the committed and the rerun value, exit 1. Exit 2 for bad usage or an unreadable file.
# Plain bash and POSIX awk (Debian's mawk): no Python needed. Fields may be
# double-quoted with "" for a quote inside (report_text.cpp's csv_field); no field
# holds a newline.
set -euo pipefail

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

name="" defined_ids="" possible_ids="" approximate_ids="" tolerance="0.01" ignored=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) name=${2:?}; shift 2 ;;
    --defined-ids) defined_ids=${2:?}; shift 2 ;;
    --possible-ids) possible_ids=${2:?}; shift 2 ;;
    --ignore-column) ignored+="${2:?},"; shift 2 ;;
    --approximate-ids) approximate_ids=${2:?}; shift 2 ;;
    --relative-tolerance) tolerance=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    --*) echo "compare-results.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[[ $# -eq 2 ]] || usage
committed=$1 rerun=$2
[[ -z $possible_ids || -n $defined_ids ]] || { echo "compare-results.sh: --possible-ids needs --defined-ids (the first block)" >&2; exit 2; }
for f in "$committed" "$rerun" ${defined_ids:+"$defined_ids"} ${possible_ids:+"$possible_ids"} ${approximate_ids:+"$approximate_ids"}; do
  [[ -r $f ]] || { echo "compare-results.sh: cannot read $f" >&2; exit 2; }
done
[[ -n $name ]] || name=$committed

LC_ALL=C exec awk -v committed="$committed" -v rerun="$rerun" -v name="$name" \
  -v defined_ids="$defined_ids" -v possible_ids="$possible_ids" -v approximate_ids="$approximate_ids" \
  -v tolerance="$tolerance" -v ignored="$ignored" '
# Splits one CSV line into out[1..n] (quotes removed, "" inside quotes = "); returns n.
function split_csv(line, out,    n, i, c, field, quoted, len) {
  n = 0; field = ""; quoted = 0; len = length(line)
  for (i = 1; i <= len; i++) {
    c = substr(line, i, 1)
    if (quoted) {
      if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
      else if (c == "\"") quoted = 0
      else field = field c
    } else if (c == "\"") quoted = 1
    else if (c == ",") { out[++n] = field; field = "" }
    else field = field c
  }
  out[++n] = field
  return n
}

function is_timing(column) {
  return column == "wall_seconds" || column == "steps_per_second" || column ~ /(_seconds|per_second)$/
}

function is_number(s) {
  return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/
}

function abs(x) { return x < 0 ? -x : x }

# Within the relative tolerance (numbers), or the same text.
function approximately_equal(a, b,    scale) {
  if (a == b) return 1
  if (!is_number(a) || !is_number(b)) return 0
  scale = abs(a + 0) > abs(b + 0) ? abs(a + 0) : abs(b + 0)
  return abs((a + 0) - (b + 0)) <= tolerance * scale
}

# Reads a CSV file: header[file, 1..columns[file]], cell[file, id, column name],
# ids in file order in order[file, 1..rows[file]]. Returns 0 if unreadable.
function read_csv(path, key,    line, n, i, f, id, status) {
  rows[key] = 0
  if ((getline line < path) <= 0) return 0
  sub(/\r$/, "", line)
  columns[key] = split_csv(line, f)
  for (i = 1; i <= columns[key]; i++) { header[key, i] = f[i]; has_column[key, f[i]] = 1 }
  if (f[1] != "trial") { print path ": the first column is not trial" > "/dev/stderr"; exit 2 }
  while ((status = getline line < path) > 0) {
    sub(/\r$/, "", line)
    if (line == "") continue
    n = split_csv(line, f)
    id = f[1]
    if ((key, id) in seen) { print path ": trial " id " has two rows" > "/dev/stderr"; exit 2 }
    seen[key, id] = 1
    order[key, ++rows[key]] = id
    for (i = 1; i <= n && i <= columns[key]; i++) cell[key, id, header[key, i]] = f[i]
  }
  if (status < 0) return 0
  close(path)
  return 1
}

# One id a line (blank lines skipped) into set[key, id]; returns the count.
function read_ids(path, key,    line, n) {
  n = 0
  while ((getline line < path) > 0) {
    gsub(/[ \t\r]/, "", line)
    if (line != "" && !((key, line) in listed)) { listed[key, line] = 1; n++ }
  }
  close(path)
  return n
}

BEGIN {
  differences = 0
  split(ignored, ignore_list, ",")
  for (i in ignore_list) if (ignore_list[i] != "") skip[ignore_list[i]] = 1
  if (!read_csv(committed, "c")) { print "cannot read " committed > "/dev/stderr"; exit 2 }
  if (!read_csv(rerun, "r")) { print "cannot read " rerun > "/dev/stderr"; exit 2 }
  if (approximate_ids != "") read_ids(approximate_ids, "approx")

  # The trial ids: what the file defines today against what was committed. An adaptive
  # design defines its first block, and its budget bounds the rest.
  if (defined_ids != "") {
    read_ids(defined_ids, "defined")
    allowed = "defined"
    if (possible_ids != "") { read_ids(possible_ids, "possible"); allowed = "possible" }
    for (k = 1; k <= rows["c"]; k++) {
      id = order["c", k]
      if (!((allowed, id) in listed)) {
        print committed ": trial " id ": in the committed results, not defined by the experiment file today (its id changed, or the file dropped it" \
          (possible_ids != "" ? ", or it lies beyond the adaptive design and its budget" : "") ")"
        differences++
      }
    }
    while ((getline line < defined_ids) > 0) {
      gsub(/[ \t\r]/, "", line)
      if (line != "" && !(("c", line) in seen) && !(line in reported_defined)) {
        reported_defined[line] = 1
        print committed ": trial " line ": defined by the experiment file today, not in the committed results"
        differences++
      }
    }
    close(defined_ids)
  }

  newer = ""
  for (i = 1; i <= columns["r"]; i++) {
    column = header["r", i]
    if (!(("c", column) in has_column) && !is_timing(column)) newer = newer (newer == "" ? "" : ", ") column
  }

  # Every rerun row against the committed row of its id.
  reran = 0
  for (k = 1; k <= rows["r"]; k++) {
    id = order["r", k]
    if (cell["r", id, "status"] == "missing") continue  # not rerun (another shard or seed)
    reran++
    if (!(("c", id) in seen)) {
      print committed ": trial " id ": rerun, but has no committed row"
      differences++
      continue
    }
    approximate = (("approx", id) in listed)
    for (i = 1; i <= columns["c"]; i++) {
      column = header["c", i]
      if (is_timing(column) || (column in skip)) continue
      a = cell["c", id, column]
      # A column the rerun lacks is a difference for a row that has a value in it: a
      # slice of a file reruns some points only, and a column only other points write
      # (BatchNorm telemetry in a file that also trains LayerNorm) is then absent.
      if (!(("r", column) in has_column)) {
        if (a == "") continue
        print committed ": trial " id ": column " column ": committed " a ", not written by the rerun"
        differences++
        continue
      }
      b = cell["r", id, column]
      if (a == b || (approximate && approximately_equal(a, b))) continue
      print committed ": trial " id ": column " column ": committed " a ", rerun " b \
        (approximate ? " (beyond the relative tolerance " tolerance ")" : "")
      differences++
    }
  }

  if (differences > 0) {
    print name ": " differences " difference" (differences == 1 ? "" : "s") " from the committed results (" \
      reran " rows rerun of " rows["c"] ")"
    exit 1
  }
  if (reran == 0) {
    print name ": nothing to compare: the rerun has no finished row" > "/dev/stderr"
    exit 1
  }
  print name ": matches the committed results (" reran " rows rerun of " rows["c"] \
    (possible_ids != "" ? ", first block committed, every id within the design" : defined_ids != "" ? ", ids identical" : "") ")"
  if (newer != "") print "  not compared (the committed results predate them): " newer
  exit 0
}'
