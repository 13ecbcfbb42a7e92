#!/usr/bin/env bash
# cmake/fetchNpmFile.cmake uses a tarball only if it has the pinned SHA-256: a registry
# serving other bytes fails the build with a message naming both digests, and leaves
# neither an output nor a cached tarball behind. The registry here is a folder
# (ABLATE_NPM_REGISTRY=file://...) and npm is kept off PATH, so the test needs no network.
#   npm_pin_test.sh CMAKE SOURCE_DIR SCRATCH_DIR
set -euo pipefail
cmake=$1 source=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch/package/build" "$scratch/registry/vega-embed/-"
echo 'window.vegaEmbed = null; /* not the real library */' > "$scratch/package/build/vega-embed.min.js"
echo 'Copyright nobody' > "$scratch/package/LICENSE"
tar -czf "$scratch/registry/vega-embed/-/vega-embed-7.3.0.tgz" -C "$scratch" package
fetch() {  # fetch SHA256 → the script's status; its output in $scratch/log
  env PATH=/nonexistent ABLATE_NPM_REGISTRY="file://$scratch/registry" "$cmake" \
    -DPACKAGE=vega-embed -DVERSION=7.3.0 -DSHA256="$1" -DFILE=build/vega-embed.min.js \
    -DLICENCE=LICENSE -DCACHE_DIR="$scratch/cache" -DSCRIPT_OUT="$scratch/out.js" \
    -DLICENCE_OUT="$scratch/out.LICENSE" -P "$source/cmake/fetchNpmFile.cmake" > "$scratch/log" 2>&1
}
pinned=$(grep -o 'vega-embed|7.3.0|[0-9a-f]*' "$source/cmake/reportLibraries.cmake" | cut -d'|' -f3)
served=$(sha256sum "$scratch/registry/vega-embed/-/vega-embed-7.3.0.tgz" | cut -d' ' -f1)
if fetch "$pinned"; then echo "FAIL: a tarball that is not the pinned one was used"; exit 1; fi
tr -s ' \n' '  ' < "$scratch/log" | grep -q "has SHA-256 $served, not the pinned $pinned" ||
  { echo "FAIL: the message does not name both digests:"; cat "$scratch/log"; exit 1; }
[[ ! -e "$scratch/out.js" && -z "$(ls -A "$scratch/cache" 2>/dev/null)" ]] ||
  { echo "FAIL: the refused tarball left an output or a cached copy"; exit 1; }
echo "ok   a tarball with another SHA-256 is refused, naming both digests, leaving nothing"
# The same bytes pinned are taken: the refusal above was the digest's, not the fetch's.
fetch "$served" || { echo "FAIL: the pinned tarball was not taken:"; cat "$scratch/log"; exit 1; }
cmp -s "$scratch/out.js" "$scratch/package/build/vega-embed.min.js" ||
  { echo "FAIL: the extracted file is not the tarball's"; exit 1; }
echo "ok   the pinned tarball is fetched, cached and its file extracted"
