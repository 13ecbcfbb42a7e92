#!/usr/bin/env bash
# The reproduce tier: reruns committed results and compares them with the rerun.
#
#   scripts/reproduce.sh [--no-build] [--keep] [--seeds first|all] [--jobs N] [NAME...]
#   scripts/reproduce.sh [--no-build] [--keep] --slice COMMIT
#
# NAME is a shipped experiment (`quickstart`: experiments/studies/quickstart.toml, results
# in experiments/studies/results/quickstart/) or a replication (`replications/press_alibi`,
# or `press_alibi`: experiments/studies/replications/press_alibi.toml, results in
# experiments/studies/results/replications/press_alibi/). No NAME: every shipped experiment and
# every replication. It builds `ablate` (scripts/build.sh --target ablate) unless
# --no-build or ABLATE is given; then for each file it
#   1. fetches the dataset the file reads, if any (`ablate data get`);
#   2. lists the trial ids the file defines today (`ablate check`);
#   3. reruns at full size the first seed of every sweep point and every [tune] value
#      (the override `sweep.seeds=[<first seed>]`, which keeps every trial's id: the id
#      hashes the trial's resolved config, which holds its own seed, not the list; for
#      an adaptive design, whose first block needs two seeds, the first two and a budget
#      of two; for a two-stage [tune] (tune.seeds), each point's committed trials of its
#      chosen setting at the first tuning seed and the first judged seed, by id with
#      `run --only-ids`) — or, with --seeds all, every trial (an adaptive design's
#      rounds and a two-stage file's second stage run again from the rerun's own
#      results) — into a temporary directory, removed after unless --keep;
#   4. compares (scripts/compare-results.sh) the committed ids with the defined ones
#      (for an adaptive design: the first block all committed, and every committed id
#      one of the design's up to its budget; with --seeds all, the rerun's ids),
#      and every rerun row with the committed row of the same id: every column the
#      same text, except the timings (wall_seconds, steps_per_second) and, when only
#      some seeds reran, `selected` (a point's chosen [tune] value is a mean over all
#      its seeds); columns the committed file predates are named, not compared.
# and prints `NAME: matches the committed results (N rows rerun of M, ids identical)`,
# or a line per differing cell (committed file, trial id, column, committed and rerun
# value). Exit 0 only if every file matched.
#
# Required before any change to committed results (experiments/studies/results/) or to a
# shipped or replication experiment file: a changed id or number must be explained.
#
# Precision. An f32 trial with a given seed reruns bit for bit on the same machine
# (single-threaded, deterministic), so f32 rows are compared as text. Across machines
# it does too, on any x86-64 CPU with AVX-512: the committed results were made on AMD
# Zen 5, and an Intel Xeon (AVX-512, AMX) reproduces every file tried digit for digit
# once GCC's tuning is pinned (CMakeLists.txt, ABLATE_TUNE; before, g2p, kazemnejad_nope
# and scaling_gradient's d_k = 4 point differed there: experiments/studies/results/README.md,
# "Checking these results"). A build with ABLATE_TUNE="" or another compiler may differ.
# On a CPU without AVX-512 (or ONEDNN_MAX_CPU_ISA=AVX2) every trained number differs
# (quickstart seed 0: test sequence accuracy 0.942 instead of 0.899); a warning says
# so. A difference is reported either way: this script does not guess its cause.
# A bf16 trial (`train.precision = "bf16"` in its config.toml) is compared within a
# relative tolerance of 1e-2 per numeric cell instead (text cells exactly). No
# committed file uses bf16. Measured on quickstart's seed 0 (2026-12-03): bf16 reruns
# bit for bit on the same CPU; oneDNN's bf16 kernel (AVX512_BF16) against the f32 GEMM
# on rounded inputs (ONEDNN_MAX_CPU_ISA=AVX512_CORE), which sums in another order,
# agree to 1.4e-5 in the gradient norm at initialisation but then train as different
# trajectories (test loss up to 47 %, sequence accuracy up to 3 % apart). So 1e-2
# passes a rerun on the machine's own path and still fails a changed computation,
# and a bf16 row reproduces only on a CPU that takes the same GEMM path: no tolerance
# narrower than the spread over seeds would hide that.
#
# Options:
#   --no-build        do not build (default: scripts/build.sh --target ablate)
#   --keep            keep the run directory (its path is printed)
#   --seeds all       rerun every trial, not only the first seed (hours for the lot;
#                     default: --seeds first)
#   --jobs N          trials side by side (default: the number of cores)
#   --slice COMMIT    CI's rotating slice: one file and one part of its first-seed trials,
#                     chosen from COMMIT's hash (below), --jobs 2; the ids still in full
# Environment: ABLATE=PATH runs that `ablate` binary (then nothing is built); default
# build/experiments/ablate.
#
# The slice. Each file's first-seed rerun is cut into PARTS parts (`ablate run --shard
# K/PARTS`: trials dealt longest-first by predicted work to the least-loaded part).
# The commit hash's first 8 hex digits, h, pick file h mod F (F files, sorted: each
# equally likely whatever its size) and part (h div F) mod PARTS + 1; hashes are
# uniformly spread, so each file is picked with probability 1/F at every landing.
# The table: each file's PARTS, then the seconds of its whole first-seed rerun and of
# its longest part with --jobs 2 on a 2-core machine to itself — estimated from the
# committed trials' wall_seconds (each part's trials scheduled longest-first on two
# cores; the AMD Zen 5 VM that made them, 2026-12-01/02, and 2026-12-04 for
# quickstart, whose adaptive design reruns its first two seeds; 2026-12-05/06 for the
# two-stage files, which rerun each point's chosen
# setting on its first tuning seed and its first compared seed — replications/
# shen_powernorm's and replications/zhu_dyt's tuning trials ran beside other work, up to
# 3.4 and 2.1 times slower, so their rows take both from the compared seed's time (as
# do replications/xiong_warmup's, 2026-12-06, for uniformity: it ran alone, and
# replications/vaswani_table3's, 2026-12-06: builds shared the machine during its tuning;
# replications/press_alibi's, 2026-12-06, ran beside builds throughout, so its row is
# its measured whole rerun, 188 s alone, with the compared seed's times scaled to it);
# replications/blog_scale's, 2026-12-06, ran alone;
# replications/wortsman_qk_norm runs every rate on every seed, so it reruns seed 0 at
# all seven rates for both points, timed by each trial's median over seeds 11-14, the
# seeds that ran with the machine to themselves; add a few seconds per run for
# `ablate check` and the reports).
# PARTS is the smallest count whose longest part is at most about 60 s, so that a
# slice stays under 3 minutes even when other builds share the machine (they slowed
# today's reruns 3-4 times, 2026-12-03), or the count at which one trial is the
# floor: g2p (72 s), replications/vaswani_table3 (69 s) and replications/blog_scale
# (64 s: one of its d_k = 128 trials) have single trials that take longer, so their
# slices can exceed 3 minutes on a shared machine. A new experiment or replication file must be added here (--slice refuses to
# run until it is); tests/reproduce/CMakeLists.txt reads the file seconds for ctest
# timeouts.
slice_table() {
  # name                          parts  file_s  part_s
  cat <<'EOF'
quickstart                          1       2       2
attention                           1      12      12
positions                           1      12      12
norms                               1      14      14
forecasting                         1      37      37
real_forecasting                    1      43      43
length_generalisation               2      85      43
scaling_gradient                    5     267      56
g2p                                 2     122      80
lm                                 10     329     102
replications/kazemnejad_nope       11     412      59
replications/blog_projections       4     149      55
replications/blog_scale             4     238      64
replications/press_alibi            5     188      57
replications/reformer_shared_qk     3     151      58
replications/shen_powernorm         4     146      38
replications/vaswani_table3         7     414      69
replications/xiong_warmup           6     283      57
replications/wortsman_qk_norm       7     344      67
replications/zhu_dyt                4     159      44
EOF
}
set -euo pipefail
# ABLATE may be relative to the caller's directory; the script runs from the clone's.
if [[ -n ${ABLATE:-} && $ABLATE != /* ]]; then ABLATE=$PWD/$ABLATE; fi
cd "$(dirname "$0")/.."
root=$PWD

build=1 keep=0 seeds=first jobs=$(nproc 2>/dev/null || echo 2) slice=""
names=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) build=0; shift ;;
    --keep) keep=1; shift ;;
    --seeds) seeds=${2:?--seeds first|all}; shift 2 ;;
    --jobs) jobs=${2:?--jobs N}; shift 2 ;;
    --slice) slice=${2:?--slice COMMIT}; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --*) echo "reproduce.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
[[ $seeds == first || $seeds == all ]] || { echo "reproduce.sh: --seeds first|all" >&2; exit 2; }
[[ -z $slice || ${#names[@]} -eq 0 ]] || { echo "reproduce.sh: --slice picks the file itself; give no NAME" >&2; exit 2; }

if [[ -n ${ABLATE:-} ]]; then
  ablate=$ABLATE
else
  ablate=$root/build/experiments/ablate
  if [[ $build == 1 ]]; then bash scripts/build.sh --target ablate > /dev/null; fi
fi
[[ -x $ablate ]] || { echo "reproduce.sh: no ablate binary at $ablate (build it, or set ABLATE)" >&2; exit 2; }
if { [[ -r /proc/cpuinfo ]] && ! grep -qw avx512f /proc/cpuinfo; } || [[ -n ${ONEDNN_MAX_CPU_ISA:-} ]]; then
  echo "warning: oneDNN cannot take its AVX-512 kernels here (no AVX-512, or ONEDNN_MAX_CPU_ISA is set):" \
    "the committed results were made with them, so trained numbers are expected to differ (see the header)" >&2
fi

# Every shipped experiment and replication, as NAMEs.
all_names() {
  local f
  for f in experiments/studies/*.toml; do basename "$f" .toml; done
  for f in experiments/studies/replications/*.toml; do echo "replications/$(basename "$f" .toml)"; done
}

# NAME (or a bare replication name) -> the canonical NAME; exits 2 if unknown.
canonical_name() {
  local n=${1%.toml}
  n=${n#experiments/studies/}
  if [[ $n == replications/* && -f experiments/studies/$n.toml ]]; then echo "$n"; return; fi
  if [[ -f experiments/studies/$n.toml && -f experiments/studies/replications/$n.toml ]]; then
    echo "reproduce.sh: $n is both a shipped experiment and a replication: say replications/$n" >&2; exit 2
  fi
  if [[ -f experiments/studies/$n.toml ]]; then echo "$n"; return; fi
  if [[ -f experiments/studies/replications/$n.toml ]]; then echo "replications/$n"; return; fi
  echo "reproduce.sh: no experiment file for $1 (shipped: experiments/studies/<name>.toml; replications: experiments/studies/replications/<name>.toml)" >&2
  exit 2
}

# The datasets (`ablate data get` names) a file reads: every data:<name>/ path it
# writes, and the defaults of the tasks that read one unless told otherwise
# (docs/reference/task.md: lm reads sotu, g2p cmudict).
datasets_of() {
  local file=$1
  {
    grep -oE 'data:[A-Za-z0-9_-]+/' "$file" | sed 's/^data://; s/\/$//' || true
    grep -qE '^kind *= *"lm"' "$file" && echo sotu
    grep -qE '^kind *= *"g2p"' "$file" && echo cmudict
  } | sort -u
}

# The trials a first-seed rerun of a two-stage file names, from its committed
# results.csv: each point's chosen setting (`selected`) at the smallest tuning seed
# (`tuning_stage` 1), and its trial at the smallest seed the sweep judged it on.
first_seed_ids() {
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
tuning = [r for r in rows if r["tuning_stage"] == "1"]
judged = [r for r in rows if r["tuning_stage"] == "0"]
first_tuning = min(int(r["seed"]) for r in tuning)
first_judged = min(int(r["seed"]) for r in judged)
for r in tuning:
    if int(r["seed"]) == first_tuning and r["selected"] == "1":
        print(r["trial"])
for r in judged:
    if int(r["seed"]) == first_judged:
        print(r["trial"])
PY
}

# Chooses the slice of commit $1: sets names=(NAME) and shard=K/N, prints why.
choose_slice() {
  local hash files=() name parts seconds part_seconds
  if [[ $1 =~ ^[0-9a-fA-F]{8,40}$ ]]; then hash=$1
  else hash=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "reproduce.sh: --slice $1: not a commit hash" >&2; exit 2; }
  fi
  local -A table_parts=() table_seconds=() table_part_seconds=()
  while read -r name parts seconds part_seconds; do
    table_parts[$name]=$parts table_seconds[$name]=$seconds table_part_seconds[$name]=$part_seconds
  done < <(slice_table)
  while read -r name; do
    [[ -n ${table_parts[$name]:-} ]] ||
      { echo "reproduce.sh: $name is not in the slice table of scripts/reproduce.sh: measure its first-seed rerun and add it" >&2; exit 2; }
    files+=("$name")
  done < <(all_names | LC_ALL=C sort)
  local h=$((16#${hash:0:8})) count=${#files[@]}
  local index=$((h % count))
  local pick=${files[$index]}
  local n=${table_parts[$pick]}
  local k=$(((h / count) % n + 1))
  names=("$pick")
  shard="$k/$n"
  echo "slice of ${hash:0:12}: $pick, part $k of $n (file $((index + 1)) of $count, chosen by the hash's" \
    "first 8 hex digits; its first-seed rerun takes about ${table_seconds[$pick]} s with --jobs 2, cut into $n" \
    "part$([[ $n == 1 ]] || echo s) of at most about ${table_part_seconds[$pick]} s, estimated from its committed trials)"
}

# Every NAME is checked before anything runs: a typo fails at once, not after hours.
for requested in "${names[@]}"; do canonical_name "$requested" > /dev/null; done

shard=""
if [[ -n $slice ]]; then
  choose_slice "$slice"
  jobs=2
elif [[ ${#names[@]} -eq 0 ]]; then
  mapfile -t names < <(all_names)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ablate-reproduce.XXXXXX")
if [[ $keep == 1 ]]; then echo "run directories kept in $work"
else trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT  # so that the EXIT trap runs (and the run directories go) on Ctrl-C
trap 'exit 143' TERM

failed=()
for requested in "${names[@]}"; do
  name=$(canonical_name "$requested")
  file=experiments/studies/$name.toml
  committed=experiments/studies/results/$name/results.csv
  start=$SECONDS
  if [[ ! -f $committed ]]; then
    echo "$name: no committed results ($committed)"
    failed+=("$name")
    continue
  fi
  out=$work/${name//\//_}
  mkdir -p "$out"

  for dataset in $(datasets_of "$file"); do
    "$ablate" data get "$dataset" > "$out/data.log" 2>&1 ||
      { cat "$out/data.log"; echo "$name: could not fetch dataset $dataset"; failed+=("$name"); continue 2; }
  done

  if ! "$ablate" check "$file" > "$out/check.txt" 2>&1; then
    cat "$out/check.txt"
    echo "$name: ablate check failed"
    failed+=("$name")
    continue
  fi
  grep -oE '^  [0-9a-f]{16}  ' "$out/check.txt" | tr -d ' ' > "$out/defined_ids.txt"
  # The first block's seeds, in order; whether the design is adaptive (`ablate check` says so).
  mapfile -t block_seeds < <(grep -oE '^  [0-9a-f]{16}  seed [0-9]+' "$out/check.txt" | awk '!seen[$3]++ {print $3}')
  adaptive=$(grep -c '^  adaptive: ' "$out/check.txt" || true)
  # A two-stage [tune] (tune.seeds): check lists its tuning stage.
  staged=$(grep -c '^  tuning stage: ' "$out/check.txt" || true)

  run_args=(run "$file" --out "$out/runs" --jobs "$jobs" --quiet)
  compare_args=(--name "$name" --defined-ids "$out/defined_ids.txt")
  if [[ $adaptive -gt 0 || $staged -gt 0 ]]; then
    # Adaptive or two-stage: check defines the first block or the tuning stage; the committed trials beyond it must be
    # the design's, some point at some seed its budget allows (`ablate check --budget`).
    "$ablate" check "$file" --budget | grep -oE '^  [0-9a-f]{16}  ' | tr -d ' ' > "$out/possible_ids.txt"
    compare_args+=(--possible-ids "$out/possible_ids.txt")
  fi
  if [[ $seeds == first && $staged -gt 0 ]]; then
    # Two-stage: the committed trials of each point's chosen setting at the first tuning
    # seed and at the first seed it was judged on, named (`run --only-ids`): a partial
    # tuning stage could choose another setting than the whole one did.
    first_seed_ids "$committed" > "$out/rerun_ids.txt"
    run_args+=(--only-ids "$out/rerun_ids.txt")
  elif [[ $seeds == first && $adaptive -eq 0 ]]; then
    run_args+=("sweep.seeds=[${block_seeds[0]}]")
  elif [[ $seeds == first ]]; then
    # An adaptive first block needs two seeds: the first two, and a budget of two, so
    # that the rerun stops after them.
    run_args+=("sweep.seeds=[${block_seeds[0]},${block_seeds[1]}]" "sweep.adaptive.max_seeds=2")
  fi
  [[ -z $shard ]] || run_args+=(--shard "$shard")
  # `selected` is a property of a point's every seed: only a complete rerun recomputes it.
  [[ $seeds == all && -z $shard ]] || compare_args+=(--ignore-column selected)

  status=0
  "$ablate" "${run_args[@]}" > "$out/run.log" 2>&1 || status=$?
  if [[ $status -ne 0 && $status -ne 1 ]]; then  # 1: a trial failed; its row says which
    tail -n 20 "$out/run.log"
    echo "$name: ablate run exited $status"
    failed+=("$name")
    continue
  fi
  run_dir=$(find "$out/runs" -mindepth 1 -maxdepth 1 -type d | awk 'NR == 1')
  if [[ ($adaptive -gt 0 || $staged -gt 0) && $seeds == all && -z $shard ]]; then
    # The rounds ran again: their trials must be exactly the committed ones.
    awk -F, 'NR > 1 { print $1 }' "$run_dir/results.csv" | tee "$out/defined_ids.txt" > "$out/possible_ids.txt"
  fi
  grep -lE '^precision *= *"bf16"' "$run_dir"/trials/*/config.toml 2>/dev/null |
    xargs -r -n1 dirname | xargs -r -n1 basename > "$out/bf16_ids.txt" || true
  [[ ! -s $out/bf16_ids.txt ]] || compare_args+=(--approximate-ids "$out/bf16_ids.txt" --relative-tolerance 1e-2)

  if ! bash scripts/compare-results.sh "${compare_args[@]}" "$committed" "$run_dir/results.csv"; then
    failed+=("$name")
  fi
  echo "  ($name: $((SECONDS - start)) s${shard:+, shard $shard}, --jobs $jobs)"
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "reproduce: ${#failed[@]} of ${#names[@]} files do not match the committed results: ${failed[*]}"
  exit 1
fi
echo "reproduce: all ${#names[@]} files match the committed results"
