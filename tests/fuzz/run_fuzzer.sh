#!/usr/bin/env bash
# Runs one libFuzzer target for ctest (tests/fuzz/CMakeLists.txt).
#   run_fuzzer.sh replay TARGET CORPUS FOUND
#       every file of the seed corpus and of the found inputs, once each
#   run_fuzzer.sh fuzz TARGET CORPUS FOUND SECONDS WORKDIR
#       fuzzes for SECONDS from a copy of both (the repository is never written); a
#       crash, a hang (> 10 s per input), a leak, more than 2 GiB, a sanitizer report
#       or a violated property fails the test, and the input is left in
#       WORKDIR/artifacts/ — add it to FOUND as a regression (README.md).
set -euo pipefail
mode=$1 target=$2 corpus=$3 found=$4
dict=${corpus%/}.dict
dict_flag=()
[[ -f "$dict" ]] && dict_flag=(-dict="$dict")

inputs() { find "$corpus" "$found" -maxdepth 1 -type f 2>/dev/null | sort; }

case "$mode" in
  replay)
    mapfile -t files < <(inputs)
    (( ${#files[@]} > 0 )) || { echo "no inputs in $corpus" >&2; exit 1; }
    echo "replaying ${#files[@]} inputs"
    exec "$target" -timeout=10 -rss_limit_mb=2048 "${files[@]}"
    ;;
  fuzz)
    seconds=$5 work=$6
    rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
    inputs | while read -r f; do cp "$f" "$work/corpus/"; done
    # -print_final_stats: the execution count ends up in ctest's log (RELIABILITY.md).
    "$target" "${dict_flag[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" \
      2> "$work/log" && status=0 || status=$?
    grep -E "^(stat::number_of_executed_units|stat::new_units_added|INFO: seed corpus|#[0-9]+ *DONE)" "$work/log" || true
    if (( status != 0 )); then
      tail -n 60 "$work/log"
      echo "fuzzing failed (exit $status); the input is in $work/artifacts/" >&2
    fi
    exit "$status"
    ;;
  *) echo "usage: $0 replay|fuzz ..." >&2; exit 2 ;;
esac
