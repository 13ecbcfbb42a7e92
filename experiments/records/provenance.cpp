#include "experiments/records/provenance.h"

#include <toml++/impl/version.h>
#include <boost/version.hpp>

#include "autograd/kernels/gemm.h"
#include "autograd/kernels/library_versions.h"
#include "experiments/records/build_info.h"
#include "experiments/records/code_version.h"
#include "experiments/records/machine.h"

namespace ablate::experiments {

namespace {

using json = nlohmann::json;

Invocation& mutable_invocation() {
  static Invocation current;
  return current;
}

// true / false, or "unknown" when git could not tell.
json dirty_json(const std::string& dirty) {
  if (dirty == "true" || dirty == "false") return dirty == "true";
  return "unknown";
}

json code_json() {
  const GitState git = git_state();
  json code{{"version", code_version()},
            {"commit", git.commit},
            {"describe", git.describe},
            {"dirty", dirty_json(git.dirty)},
            {"tree", git.tree}};
  if (code["dirty"] == true) code["diff_sha256"] = git.diff_sha256;
  return code;
}

json build_json() {
  const BuildFacts b = build_facts();
  return {{"compiler", std::string(b.compiler_id) + " " + b.compiler_version},
          {"build_type", b.build_type},
          {"cxx_flags", b.cxx_flags},
          {"instruction_sets", compiled_instruction_sets()}};
}

std::string dotted(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

json libraries_json(const kernels::LibraryVersions& v) {
  return {
      {"eigen", v.eigen},
      {"onednn", v.onednn},
      {"openblas", v.openblas},
      {"boost", dotted(BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100)},
      {"tomlplusplus", dotted(TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH)},
      {"nlohmann_json", dotted(NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                               NLOHMANN_JSON_VERSION_PATCH)}};
}

json machine_json(const kernels::LibraryVersions& v) {
  const CpuFacts& cpu = cpu_facts();
  return {{"cpu", cpu.model},
          {"instruction_sets", cpu.instruction_sets},
          {"onednn_isa", v.onednn_isa},
          {"openblas_core", v.openblas_core},
          {"gemm_backend", kernels::gemm_backend_name(kernels::gemm_backend())}};
}

}  // namespace

void set_command_line(int argc, const char* const* argv) {
  mutable_invocation().argv.assign(argv, argv + argc);
}

void set_overrides(const std::vector<std::string>& overrides) {
  mutable_invocation().overrides = overrides;
}

const Invocation& invocation() {
  return mutable_invocation();
}

json provenance(const Invocation& inv) {
  const kernels::LibraryVersions libraries = kernels::library_versions();
  return {{"code", code_json()},
          {"build", build_json()},
          {"libraries", libraries_json(libraries)},
          {"machine", machine_json(libraries)},
          {"invocation", {{"argv", inv.argv}, {"overrides", inv.overrides}}}};
}

json provenance() {
  return provenance(invocation());
}

}  // namespace ablate::experiments
