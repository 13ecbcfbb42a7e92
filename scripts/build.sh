#!/usr/bin/env bash
# Configures (once) and builds ablate in Release into build/. Extra arguments go to
# `cmake --build` (e.g. --target ablate).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
fi
cmake --build build --parallel "$jobs" "$@"
