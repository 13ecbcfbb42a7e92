#pragma once
// What report.html draws besides its tables (report_html.h), read from a run directory:
// for each sweep point, every seed's evaluations (the curves), the mean over seeds at
// each step with its 95% interval, an attention map, sample predictions, and the
// point's resolved configuration for the "what differs" view. JSON, because the page's
// script takes it as is; only the trials the tables count are read (chosen_trials:
// with [tune], the chosen setting's).
#include <nlohmann/json.hpp>
#include <string>

#include "experiments/analysis/point_results.h"

namespace ablate::experiments {

// One entry per point of `run.points`, in that order:
//   {"run", "point_id", "label", "values": {key: value}, "test": {seed: {metric: value}},
//    "seeds": [{"seed", "trial", "steps": [...], "metrics": {name: [value|null, ...]}}],
//    "bands": {name: {"steps", "n", "mean", "low", "high"}},
//    "attention": {"trial", "seed", "modules": [...]} | null,
//    "samples": {"trial", "seed", "kind": "predictions"|"text", "columns", "rows"} | null,
//    "config": {"source", "values": {dotted key: value}}}
nlohmann::json report_figures(const std::string& run_dir, const RunPoints& run);

}  // namespace ablate::experiments

namespace ablate::experiments {

// What made the run's finished trials, grouped: one entry per distinct combination of
// their summaries' code_version, computation and provenance, with how many trials
// share it — [{"run", "trials", "code_version", "computation", "provenance"}]. A
// summary without provenance (written before ablate recorded it) groups as null.
nlohmann::json provenance_groups(const std::string& run_dir, const std::string& run_name);

}  // namespace ablate::experiments
