#pragma once
// Claims fixed before the data: when a run's first trial starts, its claims (text,
// points, expectation, metric, margin, min_effect), α, the [report] settings they are
// judged by (metric, equivalence margin, baseline), the split they are judged on, how
// the family shares its error, the [tune] grid and the seeds are frozen into
// <run>/preregistration.json with the code version and the time. Editing the
// experiment file later is allowed; the report then compares the claims it judges
// with the frozen ones (claims_report.h): a claim that differs — or that every claim's
// design changed under it: other seeds, another [tune] grid, baseline, split or family
// procedure — is marked "changed after results existed", with the frozen version's
// verdict beside the new one, and claims.csv says `preregistered = no`.
//
// A run whose trials finished before this record existed (an older ablate) has none:
// nothing is frozen after the fact, and its claims read `preregistered = unknown`. A
// record older than one of its fields (baseline, split, family) froze nothing of it:
// that part is not compared.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiments/analysis/point_results.h"
#include "experiments/analysis/preregistration_record.h"

namespace ablate::experiments {

struct Experiment;

// Writes <run_dir>/preregistration.json unless it exists or a trial of the run has
// already finished; the first of several processes starting one run (shards) wins.
void freeze_preregistration(const std::string& run_dir, const Experiment& e);

// The record of `run_dir`, if it has one (a damaged one is an error naming the file).
std::optional<Preregistration> read_preregistration(const std::string& run_dir);

// The seeds and [tune] grid of a run index (trials.json), as Preregistration keeps them:
// for an adaptive design, its first block and the design rather than the seeds its
// rounds have reached.
std::string seeds_text(const nlohmann::json& index);
std::string tune_grid_text(const nlohmann::json& index);

// How a run index's design shares the error over the file's questions, as
// Preregistration keeps it (α is frozen beside it): for a fixed design "Holm over the
// file's claims, per direction".
std::string family_text(const nlohmann::json& index);

// A run index's [sweep.adaptive] design and first block (none for a fixed design);
// throws std::runtime_error (or a json exception) for one ablate would not write.
std::optional<AdaptiveIndex> adaptive_of_index(const nlohmann::json& index);

}  // namespace ablate::experiments
