#!/usr/bin/env bash
# Installs the Debian packages ablate builds with, and only those that are missing:
# a machine that has them all runs no apt-get at all (fast, idempotent).
set -euo pipefail

packages=(
  g++ cmake make                  # toolchain (Debian 12: g++ 12, CMake 3.25)
  libeigen3-dev                   # Eigen 3.4: tensors' kernels
  libopenblas-dev                 # OpenBLAS: a GEMM backend
  libdnnl-dev                     # oneDNN: the default f32 GEMM backend
  libboost-dev libboost-program-options-dev   # CLI
  openmpi-bin libopenmpi-dev libboost-mpi-dev # sweeps over MPI ranks (mpirun)
  libtomlplusplus-dev             # TOML++: experiment files
  nlohmann-json3-dev              # JSON: safetensors headers, run records
  catch2                          # Catch2 v2: tests
  libbenchmark-dev                # Google Benchmark: bench/
  gnuplot-nox                     # plots of sweep results (SVG, PNG)
  clang-14 libclang-rt-14-dev llvm-14 libomp-14-dev
                                  # the sanitizer + libFuzzer build (scripts/sanitize.sh):
                                  # Clang, its ASan/UBSan/libFuzzer runtimes, the symbolizer,
                                  # and OpenMP for Clang
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# Only refresh the package lists when apt cannot find a package without it.
if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
