#pragma once
// The scaling-gradient study's report: study.md (each of the blog's claims, what the
// literal code shows, what the corrected experiment shows, a verdict from the
// numbers) and its plots under plots/study_*.
#include <nlohmann/json.hpp>
#include <string>

namespace ablate::experiments {

// The training part, condensed from the run directory's trials: per sweep point
// (scale × d_model × heads, at its chosen [tune] setting) the test loss and sequence
// accuracy with their intervals and comparisons with 1/sqrt(d_k) (as the run's
// comparisons.csv has them), and the attention entropy / saturation of the last
// evaluation (mean ± std over seeds).
nlohmann::json training_summary(const std::string& run_dir);

void write_study_report(const std::string& run_dir, const nlohmann::json& study);

}  // namespace ablate::experiments
