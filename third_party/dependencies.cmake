# How ablate finds its dependencies. Every one is a Debian 12 package (see
# third_party/README.md); nothing is downloaded or vendored.

find_package(Eigen3 3.4 REQUIRED NO_MODULE)                 # libeigen3-dev
# Targets that compile Eigen link ablate_eigen. GCC 12 warns "'__Y' is used
# uninitialized" inside its own AVX-512 intrinsics (_mm512_undefined_*, GCC bug
# 105593) wherever Eigen's packets are inlined; those two warnings are silenced for
# Eigen users only, and stay on for everything else.
add_library(ablate_eigen INTERFACE)
target_link_libraries(ablate_eigen INTERFACE Eigen3::Eigen)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(ablate_eigen INTERFACE -Wno-uninitialized -Wno-maybe-uninitialized)
endif()
find_package(Boost 1.74 REQUIRED COMPONENTS program_options mpi serialization)
                                                            # libboost-dev, -program-options-dev, -mpi-dev
# OpenMPI: `mpirun -np N ablate run FILE` spreads a sweep over ranks (Boost.MPI on top).
find_package(MPI REQUIRED COMPONENTS CXX)                   # libopenmpi-dev, openmpi-bin
find_package(tomlplusplus 3 REQUIRED)                       # libtomlplusplus-dev
# ablate_toml: TOML++ as our targets use it. Normally Debian's shared library; in
# sanitizer builds the parser is compiled from the same package's headers into our own
# objects, so AddressSanitizer checks it and the experiment-file fuzzer gets coverage
# feedback from its branches — once, in experiments/config/toml_implementation.cpp,
# not in every file that includes it (its header-only mode cost ~6 s of Clang per
# file, in some forty files).
add_library(ablate_toml INTERFACE)
if(ABLATE_SANITIZE)
  get_target_property(ABLATE_TOML_INCLUDES tomlplusplus::tomlplusplus INTERFACE_INCLUDE_DIRECTORIES)
  target_include_directories(ablate_toml SYSTEM INTERFACE ${ABLATE_TOML_INCLUDES})
  target_compile_definitions(ablate_toml INTERFACE TOML_HEADER_ONLY=0 ABLATE_TOML_COMPILED_HERE=1)
else()
  target_link_libraries(ablate_toml INTERFACE tomlplusplus::tomlplusplus)
endif()
find_package(nlohmann_json 3.11 REQUIRED)                   # nlohmann-json3-dev (safetensors headers)
# OpenSSL's libcrypto: SHA-256 of every file a trial reads (its content is part of the
# trial's identity; experiments/io/file_digest.h).
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)          # libssl-dev

if(ABLATE_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)                           # catch2 (v2)
endif()
# OpenBLAS: the second GEMM backend (autograd/kernels/gemm.h says when it is used).
set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)                                 # libopenblas-dev

# oneDNN: the default f32 GEMM backend (its JIT'd AVX-512 sgemm). Its Debian build
# threads with OpenMP, so the GEMM wrapper sets OpenMP's per-thread team size.
find_package(dnnl 2.6 REQUIRED CONFIG)                      # libdnnl-dev
find_package(OpenMP REQUIRED)                               # libgomp (with g++)

if(ABLATE_BUILD_BENCH)
  find_package(benchmark 1.7 REQUIRED)                      # libbenchmark-dev
endif()
