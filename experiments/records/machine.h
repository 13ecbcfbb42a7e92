#pragma once
// The CPU a trial ran on and the instruction sets that mattered to its numbers: those
// the CPU has (of the ones ablate's kernels and its libraries choose between) and
// those this binary was compiled to use (-march, seen through the compiler's macros;
// ablate's own kernels have no run-time dispatch, oneDNN and OpenBLAS have theirs,
// kernels/library_versions.h).
#include <string>
#include <vector>

namespace ablate::experiments {

struct CpuFacts {
  std::string model;                          // /proc/cpuinfo's "model name", or "unknown"
  std::vector<std::string> instruction_sets;  // of kInstructionSets, those the CPU has
};

// The instruction sets recorded, in the names of /proc/cpuinfo's "flags".
extern const std::vector<std::string> kInstructionSets;

// This machine's CPU (read once).
const CpuFacts& cpu_facts();
// The CPU in `cpuinfo`, the text of a /proc/cpuinfo (its first processor).
CpuFacts cpu_facts_from(const std::string& cpuinfo);

// Of kInstructionSets, those the compiler was allowed to use for this binary.
std::vector<std::string> compiled_instruction_sets();

}  // namespace ablate::experiments
