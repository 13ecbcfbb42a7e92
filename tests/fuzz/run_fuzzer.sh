#!/usr/bin/env bash
# Runs one libFuzzer target (tests/fuzz/CMakeLists.txt, scripts/fuzz.sh).
#   run_fuzzer.sh replay TARGET CORPUS FOUND
#       every file of the seed corpus and of the found inputs, once each.
#   run_fuzzer.sh seeded TARGET CORPUS FOUND RUNS SEED WORKDIR
#       the test command's run: exactly RUNS executions from libFuzzer seed SEED — the
#       same inputs on every machine and every run (ASLR off, a fixed scratch path, no
#       time limit, no corpus reloading), so a green gate stays green. Prints the
#       execution count, the coverage units found and a digest of the final corpus,
#       which two runs of the same build must share.
#   run_fuzzer.sh search TARGET CORPUS FOUND SECONDS WORKDIR
#       open-ended fuzzing for SECONDS with a random seed (printed, to reproduce a run).
# CORPUS is a directory of seeds, or several joined by ':' (the committed seeds, then
# those the build generates from the shipped experiment files, make_seeds.sh); each
# must exist. Both fuzzing modes work on a copy of CORPUS and FOUND in WORKDIR (the
# repository is never written). A crash, a hang (> 10 s per input), a leak, more than
# 2 GiB, a sanitizer report or a violated property fails, and the input is left in
# WORKDIR/artifacts/ — add it to FOUND as a regression (README.md).
set -euo pipefail
mode=$1 target=$(realpath "$2") corpus=$3 found=$4
IFS=: read -ra corpora <<< "$corpus"
for dir in "${corpora[@]}"; do
  [[ -d $dir ]] || { echo "no seed directory $dir (a generated one is made by building the tests)" >&2; exit 1; }
done
# The data cache (experiments/data/data_cache.cpp): a fixed relative path holding
# nothing, so a `data:` reference — the shipped lm, g2p and real-data seeds, and lm's
# and g2p's default datasets — is the same ConfigError on every machine, fetched
# datasets or not, and no input spends seconds reading a real dataset.
export ABLATE_DATA=no-data-cache
# A target's dictionary: $ABLATE_FUZZ_DICT if set (the experiment loader's, generated at
# build time), else <first CORPUS>.dict if there is one.
dict=${ABLATE_FUZZ_DICT:-${corpora[0]%/}.dict}
dict_flag=()
[[ -f "$dict" ]] && dict_flag=(-dict="$dict")

# A target without found inputs has no regressions/<target>/ (git keeps no empty folder).
inputs() {
  local dir
  for dir in "${corpora[@]}" "$found"; do
    if [[ -d $dir ]]; then find "$dir" -maxdepth 1 -type f; fi
  done | sort
}

# Fuzzes in WORKDIR with the given libFuzzer flags; prints the run's figures.
fuzz() {
  local work=$1
  shift
  rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
  inputs | while read -r f; do cp "$f" "$work/corpus/"; done
  local status=0
  # -print_final_stats: the execution count ends up in ctest's log (RELIABILITY.md).
  (cd "$work" && ABLATE_FUZZ_SCRATCH=scratch "${launcher[@]}" "$target" "${dict_flag[@]}" "$@" \
     -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=artifacts/ corpus \
     2> log) || status=$?
  local runs new digest
  runs=$(grep -m1 -oP 'stat::number_of_executed_units: *\K[0-9]+' "$work/log" || echo "?")
  new=$(grep -m1 -oP 'stat::new_units_added: *\K[0-9]+' "$work/log" || echo "?")
  digest=$(cd "$work/corpus" && sha256sum -- * | sort | sha256sum | cut -c1-16)
  echo "fuzz $(basename "$target" _fuzz): $runs inputs executed, $new new coverage units, corpus digest $digest" |
    tee "$work/summary"
  if (( status != 0 )); then
    tail -n 60 "$work/log"
    echo "fuzzing failed (exit $status); the input is in $work/artifacts/" >&2
  fi
  return "$status"
}

case "$mode" in
  replay)
    mapfile -t files < <(inputs)
    (( ${#files[@]} > 0 )) || { echo "no inputs in $corpus" >&2; exit 1; }
    echo "replaying ${#files[@]} inputs"
    exec "$target" -timeout=10 -rss_limit_mb=2048 "${files[@]}"
    ;;
  seeded)
    runs=$5 seed=$6 work=$7
    # Addresses must not vary between runs: comparisons of pointers steer mutations too.
    launcher=(setarch "$(uname -m)" --addr-no-randomize)
    fuzz "$work" -runs="$runs" -seed="$seed" -reload=0
    ;;
  search)
    seconds=$5 work=$6
    seed=$(( (RANDOM << 15 | RANDOM) + 1 ))
    launcher=()
    echo "searching for $seconds s from seed $seed"
    fuzz "$work" -max_total_time="$seconds" -seed="$seed"
    ;;
  *) echo "usage: $0 replay|seeded|search ..." >&2; exit 2 ;;
esac
