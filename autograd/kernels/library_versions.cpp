#include "autograd/kernels/library_versions.h"

#include <cblas.h>
#include <dnnl.h>

#include <Eigen/Core>

namespace ablate::kernels {

namespace {

// oneDNN's name of an instruction set (dnnl_types.h's dnnl_cpu_isa_t, oneDNN 2.x).
std::string onednn_isa_name(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default:  // a value this ablate does not name: its number, not a guess
      return "isa " + std::to_string(int(isa));
  }
}

std::string trimmed(const char* text) {
  std::string s = text ? text : "";
  const auto first = s.find_first_not_of(' ');
  const auto last = s.find_last_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

}  // namespace

LibraryVersions library_versions() {
  LibraryVersions v;
  v.eigen = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
            std::to_string(EIGEN_MINOR_VERSION);
  const dnnl_version_t* d = dnnl_version();
  v.onednn =
      std::to_string(d->major) + "." + std::to_string(d->minor) + "." + std::to_string(d->patch);
  // Debian's build says "N/A": no commit to name.
  if (const std::string hash = trimmed(d->hash); !hash.empty() && hash != "N/A")
    v.onednn += " (commit " + hash + ")";
  v.onednn_isa = onednn_isa_name(dnnl_get_effective_cpu_isa());
  v.openblas = trimmed(openblas_get_config());
  v.openblas_core = trimmed(openblas_get_corename());
  return v;
}

}  // namespace ablate::kernels
