#!/usr/bin/env bash
# path-hint.sh CLI: unless `ablate` on PATH is the executable CLI (e.g. the
# build/experiments/ablate that set-up (a) built), says on stderr how to make it so —
# the docs write `ablate run …`, and a copied command must work. Prints nothing when
# it already does. Called by scripts/run.sh; tests/experiments/cli_help_test.cpp runs it.
set -euo pipefail
cli=$(realpath "$1")
if [[ "$(command -v ablate 2>/dev/null | xargs -r realpath)" == "$cli" ]]; then
  exit 0
fi
dir=$(dirname "$cli")
build=$(dirname "$dir")
cat >&2 <<EOF
The ablate command is $cli. To type \`ablate …\` as the docs do:
  export PATH="$dir:\$PATH"    # this shell (add the line to ~/.bashrc to keep it)
or install it, with the headers and CMake package that plugins build against:
  cmake --install $build --prefix ~/.local    # ablate in ~/.local/bin (Debian's login puts it on PATH)
EOF
