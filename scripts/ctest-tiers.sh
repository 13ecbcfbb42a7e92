#!/usr/bin/env bash
# ctest-tiers.sh BUILD_DIR LABEL_REGEX [ctest args...]: the tests of those tiers
# (tests/README.md; "" = select with the args alone) in parallel, with their output on
# failure, then the 15 slowest of them, so that a test that grew slow is seen at once.
set -euo pipefail
dir=$1 labels=()
[[ -z $2 ]] || labels=(-L "$2")
shift 2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
(cd "$dir" && ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" "${labels[@]}" "$@") |
  tee "$log" || status=$?
echo "-- the 15 slowest tests of this suite:"
grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* sec$' "$log" |
  sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: (.*[^ .]) *\.+ *[A-Za-z*]+[^0-9]*([0-9.]+) sec$/\2 s  \1/' |
  # awk, not head: head exits after 15 lines and, under pipefail, sort then dies of
  # SIGPIPE (exit 141) whenever its output outgrows the pipe buffer.
  sort -rn | awk 'NR <= 15' | sed 's/^/   /'
exit "$status"
