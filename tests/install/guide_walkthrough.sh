#!/usr/bin/env bash
# The walk-through of nn/README.md ("Writing a new variant"), end to end, as a
# researcher would do it outside this tree: every file the guide prints is extracted
# from the README as printed (and must equal nn/examples/, where it is kept as files),
# built against the *installed* package, gradchecked, and swept as a plugin by the
# *installed* `ablate`; then the plugin's source is changed and rebuilt, and its trials
# must run again.
#   guide_walkthrough.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work/guide"
prefix=$work/install

# 1. The files the guide prints: each block follows a line "<!-- file: NAME -->".
awk -v out="$work/guide" '
  /^<!-- file: .* -->$/ { name = $3; next }
  name != "" && /^```/ && !inside { inside = 1; file = out "/" name; printf "" > file; next }
  inside && /^```$/ { inside = 0; close(file); name = ""; next }
  inside { print >> file }
' "$src/nn/README.md"
for f in scale_norm.cpp gradcheck_scale_norm.cpp CMakeLists.txt scale_norm.toml; do
  [[ -f $work/guide/$f ]] || { echo "nn/README.md prints no $f"; exit 1; }
  diff -u "$src/nn/examples/$f" "$work/guide/$f" || { echo "nn/README.md's $f differs from nn/examples/$f"; exit 1; }
done

# 2. Install ablate, build the guide's project against it.
cmake --install "$build" --prefix "$prefix" > /dev/null
cd "$work/guide"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build build > /dev/null

# 3. Gradcheck, then sweep with the installed ablate.
build/gradcheck_scale_norm
"$prefix/bin/ablate" list --plugin build/libscale_norm.so | grep "  norm: scale" > /dev/null  # not -q: it would stop reading early (SIGPIPE under pipefail)
"$prefix/bin/ablate" run scale_norm.toml --out runs --quiet | tee "$work/first.log"
grep -q "4 trials (0 already done, 4 ok" "$work/first.log"
grep -q "^| scale | 2 |" runs/scale_norm/summary.md
grep -q "^| layer | 2 |" runs/scale_norm/summary.md

# 4. A changed plugin reruns its trials; an unchanged one does not.
"$prefix/bin/ablate" run scale_norm.toml --out runs --quiet | grep "4 trials (4 already done" > /dev/null
sed -i 's/ScaleNorm: g · x/ScaleNorm (edited): g · x/' scale_norm.cpp
cmake --build build > /dev/null
"$prefix/bin/ablate" run scale_norm.toml --out runs --quiet | tee "$work/rebuilt.log"
grep -q "4 trials (0 already done, 4 ok" "$work/rebuilt.log"
echo "guide walk-through: ok"
