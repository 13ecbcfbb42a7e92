#pragma once
// study.md's Claim 4 (study_report.h): the sweep's test results per scale and d_k,
// and the verdicts on the blog's two training claims.
#include <nlohmann/json.hpp>
#include <string>

namespace ablate::experiments {

// From training_summary's points.
std::string training_section(const nlohmann::json& t);

}  // namespace ablate::experiments
