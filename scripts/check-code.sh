#!/usr/bin/env bash
# check-code.sh: the habits the test command enforces on the source tree.
#   1. Format: every tracked .cpp/.h is as .clang-format lays it out
#      (clang-format --dry-run -Werror; fix with `clang-format -i FILE`).
#   2. Function size: no function under autograd/, nn/ or experiments/ is longer than
#      80 lines (scripts/check-function-size.sh, by Universal Ctags: a tenth of a second).
#   3. File size: no source file is over 500 lines unless a line near its top
#      ("Over 500 lines ...") says why.
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
exit "$status"
