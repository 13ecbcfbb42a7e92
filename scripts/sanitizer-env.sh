# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: how the ASan + UBSan build runs.
# Reports abort (the test fails) and carry symbolized stacks. OpenMPI leaks its own
# allocations at MPI_Finalize; lsan.supp names those libraries, and matching them needs
# full stacks at malloc (OpenMPI is built without frame pointers): the tests start their
# ranks through scripts/mpiexec-full-stacks.sh, which turns that on for them alone. Here,
# for everything else, the stack at malloc is taken by frame pointers (ASan's default),
# which made a seeded fuzzing run three times cheaper in CPU (2026-12-06: checkpoint_config,
# 2,000 inputs, 25.5 s → 8.2 s user, the same inputs and corpus digest).
scripts_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$scripts_dir/lsan.supp:print_suppressions=0"
ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
export ASAN_SYMBOLIZER_PATH
# OpenBLAS starts a thread pool (one thread per extra core) when it is loaded, though
# every GEMM runs on one thread (autograd/kernels/gemm.cpp sets it); that idle thread
# is then shut down by OpenBLAS's destructor while LeakSanitizer's exit-time check
# stops the world. One fresh-clone CI run saw a CLI call abort (status 134) with no
# report of ours; with no pool there is nothing to race.
export OPENBLAS_NUM_THREADS=1
