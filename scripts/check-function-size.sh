#!/usr/bin/env bash
# check-function-size.sh DIR...: no function defined under DIR... is longer than 80
# lines — from its first line to its closing brace, as Universal Ctags reads C++ (its
# `end:` field), lambdas counted in the function that holds them. A long function is a
# sequence of steps waiting for their names. Ctags parses without compiling: the whole
# tree in about a tenth of a second.
# Exits 1 listing each longer function (file:line: name, N lines), 2 on a usage error.
set -euo pipefail
readonly limit=80
if (($# == 0)); then
  echo "usage: $0 DIR..." >&2
  exit 2
fi
command -v ctags >/dev/null || {
  echo "$0: ctags not found (Debian's universal-ctags: scripts/install-deps.sh test)" >&2
  exit 2
}
long=$(ctags -R --languages=C++ --kinds-C++=f --fields=+ne --extras=-F -o - "$@" |
  awk -F'\t' -v limit="$limit" '
    { line = 0; end = 0
      for (i = 4; i <= NF; i++) {
        if ($i ~ /^line:/) line = substr($i, 6)
        if ($i ~ /^end:/) end = substr($i, 5)
      }
      if (end - line + 1 > limit) printf "%s:%d: %s, %d lines\n", $2, line, $1, end - line + 1 }' |
  sort)
if [[ -n $long ]]; then
  echo "$long"
  exit 1
fi
