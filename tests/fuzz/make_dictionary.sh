#!/usr/bin/env bash
# The experiment loader's fuzz dictionary: the committed syntax part, then every key and
# component name from their declarations.
#   make_dictionary.sh ABLATE SYNTAX_DICT OUT
set -euo pipefail
ablate=$1 syntax=$2 out=$3
{ cat "$syntax"; ASAN_OPTIONS=detect_leaks=0 "$ablate" list --fuzz-dictionary; } > "$out.tmp"
mv "$out.tmp" "$out"
