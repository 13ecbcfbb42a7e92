#pragma once
// What summary.json's `provenance` (records/provenance.h) says of the code and the
// machine that made a run's trials, as the reports say it: summary.md's line on who
// made the finished trials, and `ablate compare`'s warning when runs were made by
// different code. Summaries written before ablate recorded provenance have none: they
// are "not recorded", never a difference.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/reports/run_rows.h"

namespace ablate::experiments {

// The facts the reports compare, in the order they print them. `code`: a difference
// means other code made the numbers (another commit, other uncommitted changes, another
// ablate version); otherwise a difference is worth a note (compiler, flags, libraries,
// CPU), not a warning of its own.
struct ProvenanceFact {
  const char* name;
  bool code;
};
extern const std::vector<ProvenanceFact> kProvenanceFacts;

// Each fact of a summary's provenance as text ("7a548b65ac26 with uncommitted changes,
// diff sha256 9fe52af69bf8e05d"); none for a summary without provenance.
std::optional<std::map<std::string, std::string>> provenance_facts(const nlohmann::json& summary);

// fact → its text → how many of the run's finished trials say it.
using ProvenanceCounts = std::map<std::string, std::map<std::string, int>>;
ProvenanceCounts provenance_counts(const RunRows& run);

// summary.md's lines on what made the finished trials, each value with its count when
// they differ; "" when no summary records provenance.
std::string provenance_note(const RunRows& run);

// One line per fact in which the runs (name, counts) differ, naming each run's values;
// a run without provenance is "not recorded" and differs from none. Lines of `code`
// facts start "made by different code", the others "built or run differently".
std::vector<std::string> provenance_differences(
    const std::vector<std::pair<std::string, ProvenanceCounts>>& runs);

}  // namespace ablate::experiments
