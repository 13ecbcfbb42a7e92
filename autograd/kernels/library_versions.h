#pragma once
// The versions of the numerical libraries linked into ablate, as they report them at
// run time (oneDNN, OpenBLAS: shared libraries, which may be upgraded under a built
// binary) or as compiled in (Eigen, header-only). experiments/records/provenance.h
// records them with every trial.
#include <string>

namespace ablate::kernels {

struct LibraryVersions {
  std::string eigen;          // e.g. "3.4.0"
  std::string onednn;         // e.g. "2.7.3 (commit 6f6a8b4...)"
  std::string onednn_isa;     // the instruction set oneDNN's JIT dispatches to on this CPU
  std::string openblas;       // openblas_get_config(): version and build options
  std::string openblas_core;  // the kernel OpenBLAS chose for this CPU (OPENBLAS_CORETYPE)
};

LibraryVersions library_versions();

}  // namespace ablate::kernels
