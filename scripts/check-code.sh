#!/usr/bin/env bash
# check-code.sh: the habits the test command enforces on the source tree.
#   1. Format: every tracked .cpp/.h is as .clang-format lays it out
#      (clang-format --dry-run -Werror; fix with `clang-format -i FILE`).
#   2. Function size: no function under autograd/, nn/ or experiments/ is longer than
#      80 lines (scripts/check-function-size.sh, by Universal Ctags: a tenth of a second).
#   3. File size: no source file is over 500 lines unless a line near its top
#      ("Over 500 lines ...") says why.
#   4. Committed results: experiments/studies/results/ holds at most 25 MB — what
#      rebuilds the reports and the images summary.md shows, not what `ablate report`
#      regenerates (.gitignore).
# Exits 1 naming every file that breaks one of them.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
mapfile -t sources < <(git ls-files '*.cpp' '*.h')

echo "-- format (${#sources[@]} files)"
clang-format --dry-run -Werror "${sources[@]}" || {
  echo "check-code: the files above are not formatted; run clang-format -i on them" >&2
  status=1
}

echo "-- function size (autograd/, nn/, experiments/: at most 80 lines)"
bash scripts/check-function-size.sh autograd nn experiments || {
  echo "check-code: the functions above are longer than 80 lines; split them into named steps" >&2
  status=1
}

echo "-- file size (at most 500 lines, or a stated reason)"
for f in "${sources[@]}"; do
  lines=$(wc -l < "$f")
  if ((lines > 500)) && ! awk 'NR <= 20 && /Over 500 lines/ { found = 1 } END { exit !found }' "$f"; then
    echo "$f: $lines lines, and no 'Over 500 lines ...' reason near its top" >&2
    status=1
  fi
done

echo "-- committed results (experiments/studies/results/: at most 25 MB)"
results_bytes=$(git ls-files -z experiments/studies/results | du -cb --files0-from=- | tail -1 | cut -f1)
if ((results_bytes > 25000000)); then
  echo "experiments/studies/results/: $results_bytes bytes committed, over 25,000,000; commit what" \
    "rebuilds a report (record.jsonl, CSVs, summary.md, SVG plots), not what ablate report makes" >&2
  status=1
fi
# ... and each image it commits is one its summary.md or study.md shows (the others
# are regenerated, and .gitignore keeps them out).
while IFS= read -r image; do
  folder=${image%%/plots/*} name=plots/${image#*/plots/}
  if ! grep -sqF "($name)" "$folder/summary.md" "$folder/study.md"; then
    echo "$image: committed but not shown by $folder/summary.md or study.md" >&2
    status=1
  fi
done < <(git ls-files experiments/studies/results | grep -E '/plots/[^/]+\.(png|svg)$')
exit "$status"
