#pragma once
// trials.json, the run index a run directory starts with (report.h's reports read it).
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace ablate::experiments {

struct Experiment;

// The run index: the trials the experiment expects (id, seed, point), its swept keys
// and [report] settings, so reports can tell what is missing. write_trial_index
// writes it to <run_dir>/trials.json, with the `provenance` of the invocation writing
// it (records/provenance.h), which trial_index_json leaves out: it says who wrote the
// index, not what the experiment is.
nlohmann::json trial_index_json(const Experiment& experiment);
void write_trial_index(const std::string& run_dir, const Experiment& experiment);

}  // namespace ablate::experiments
