#pragma once
// The summary parts most trials of a run share, kept once in a run record's header
// ("trial_defaults", reports/run_record.h) instead of on every trial's line: where the
// run ran, on which data files, by which build (provenance, files, code_version,
// computation) — about 1.3 kB of each line, most of a record when repeated.
#include <nlohmann/json.hpp>
#include <vector>

namespace ablate::experiments {

// For each shared part, the value most summaries have (the first such on a tie), when
// at least two have it; an object of part → value.
nlohmann::json trial_defaults(const std::vector<nlohmann::json>& summaries);

// Removes from `summary` the parts equal to `defaults`; returns the names of the
// default parts it does not have at all, which restoring must not add.
nlohmann::json drop_trial_defaults(nlohmann::json& summary, const nlohmann::json& defaults);

// The inverse: adds each default part `summary` lacks, except those named in `lacks`.
void restore_trial_defaults(nlohmann::json& summary, const nlohmann::json& defaults,
                            const nlohmann::json& lacks);

}  // namespace ablate::experiments
