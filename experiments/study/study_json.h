#pragma once
// study.json, the scaling-gradient study's values (study_runner.h writes it), read
// back for `ablate report` to rebuild study.md from it. The file may come from
// elsewhere: it is checked against the shape study_report.h reads before anything
// reads it.
#include <nlohmann/json.hpp>
#include <string>

namespace ablate::experiments {

// The study.json at `path`, checked; throws std::invalid_argument naming the file and
// the field when it is not JSON or lacks what study.md is made from.
nlohmann::json read_study_json(const std::string& path);

}  // namespace ablate::experiments
