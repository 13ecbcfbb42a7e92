#include "experiments/records/machine.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ablate::experiments {

const std::vector<std::string> kInstructionSets = {
    "sse4_2",      "avx",         "avx2",     "fma",      "f16c",
    "avx512f",     "avx512bw",    "avx512vl", "avx512dq", "avx512_vnni",
    "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16"};

namespace {

// The value of the first "key : value" line of `cpuinfo` whose key is `key`.
std::string cpuinfo_value(const std::string& cpuinfo, const std::string& key) {
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name != key) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

}  // namespace

CpuFacts cpu_facts_from(const std::string& cpuinfo) {
  CpuFacts facts;
  facts.model = cpuinfo_value(cpuinfo, "model name");
  if (facts.model.empty()) facts.model = "unknown";
  std::istringstream flags(cpuinfo_value(cpuinfo, "flags"));
  std::vector<std::string> has;
  for (std::string flag; flags >> flag;) has.push_back(flag);
  for (const std::string& isa : kInstructionSets)
    if (std::find(has.begin(), has.end(), isa) != has.end()) facts.instruction_sets.push_back(isa);
  return facts;
}

const CpuFacts& cpu_facts() {
  static const CpuFacts facts = [] {
    std::ifstream in("/proc/cpuinfo");
    std::ostringstream text;
    text << in.rdbuf();
    return cpu_facts_from(text.str());
  }();
  return facts;
}

// The compiler's macros for what -march (or its default) lets it emit, in this file's
// compilation — with the flags of every other file of the build.
const std::vector<std::string> kCompiledInstructionSets = {
#ifdef __SSE4_2__
    "sse4_2",
#endif
#ifdef __AVX__
    "avx",
#endif
#ifdef __AVX2__
    "avx2",
#endif
#ifdef __FMA__
    "fma",
#endif
#ifdef __F16C__
    "f16c",
#endif
#ifdef __AVX512F__
    "avx512f",
#endif
#ifdef __AVX512BW__
    "avx512bw",
#endif
#ifdef __AVX512VL__
    "avx512vl",
#endif
#ifdef __AVX512DQ__
    "avx512dq",
#endif
#ifdef __AVX512VNNI__
    "avx512_vnni",
#endif
#ifdef __AVX512BF16__
    "avx512_bf16",
#endif
#ifdef __AVX512FP16__
    "avx512_fp16",
#endif
#ifdef __AVXVNNI__
    "avx_vnni",
#endif
#ifdef __AMX_TILE__
    "amx_tile",
#endif
#ifdef __AMX_BF16__
    "amx_bf16",
#endif
};

std::vector<std::string> compiled_instruction_sets() {
  return kCompiledInstructionSets;
}

}  // namespace ablate::experiments
