#pragma once
// A committed fixture of tests/golden/ (written by its make_*_fixtures.py), parsed:
// the numbers SciPy and statsmodels computed for the statistics tests to compare.
#include <nlohmann/json.hpp>
#include <string>

#include "tests/build_paths.h"
#include "tests/experiments/experiment_files.h"

namespace ablate::experiments::testing {

inline nlohmann::json golden_json(const std::string& file) {
  return nlohmann::json::parse(read_text(std::string(ABLATE_TEST_DATA_DIR) + "/golden/" + file));
}

}  // namespace ablate::experiments::testing
