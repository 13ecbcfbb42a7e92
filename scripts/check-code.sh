#!/usr/bin/env bash
# check-code.sh [BUILD_DIR]: the habits the test command enforces on the source tree.
#   1. Format: every tracked .cpp/.h is as .clang-format lays it out
#      (clang-format --dry-run -Werror; fix with `clang-format -i FILE`).
#   2. Function size: no function under experiments/ is longer than 80 lines
#      (clang-tidy's readability-function-size, configured in .clang-tidy), over the
#      compile commands of BUILD_DIR (default build/); a file whose preprocessed text,
#      flags, configuration and tool are those of an earlier pass is not parsed again
#      (scripts/check-function-size.py says why that is exact).
#   3. File size: no source file is over 500 lines unless a line near its top
#      ("Over 500 lines ...") says why.
# Exits 1 naming every file that breaks one of them.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
status=0
mapfile -t sources < <(git ls-files '*.cpp' '*.h')

echo "-- format (${#sources[@]} files)"
clang-format --dry-run -Werror "${sources[@]}" || {
  echo "check-code: the files above are not formatted; run clang-format -i on them" >&2
  status=1
}

echo "-- function size (experiments/, at most 80 lines)"
mapfile -t experiments < <(git ls-files 'experiments/*.cpp')
/usr/bin/python3 scripts/check-function-size.py "$build" "${experiments[@]}" || {
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
