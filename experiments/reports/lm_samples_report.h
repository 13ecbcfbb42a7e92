#pragma once
// summary.md's "Samples" section for a language-modelling run: per sweep point, the
// text its lowest-seed trial (at the point's chosen [tune] setting) generated after
// each prompt (samples.txt, lm_samples.h) — to see what a bits-per-character number
// means, not to compare variants by.
#include <string>

#include "experiments/analysis/point_results.h"

namespace ablate::experiments {

// "" when no trial of the run wrote samples.txt (every run but a language model's).
std::string lm_samples_section(const std::string& run_dir, const RunPoints& run);

}  // namespace ablate::experiments
