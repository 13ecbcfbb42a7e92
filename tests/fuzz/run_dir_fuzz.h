#pragma once
// What the trials.json and summary.json targets share: a scratch run directory with a
// valid trials.json naming one trial, one of its files replaced by the input, read as
// `ablate report` reads a run (read_run_points). Bad input must be a
// std::runtime_error naming the run directory; a crash, a stack overflow (a value
// nested deep) or an escaped nlohmann exception is a finding.
#include <filesystem>
#include <string>

#include "experiments/reports/run_points.h"
#include "tests/fuzz/fuzz_input.h"

namespace ablate::fuzz {

inline const char* kTrialsJson =
    R"({"name": "fuzz", "swept_keys": [], "task": "copy", "family": "seq2seq", "trials": [)"
    R"({"id": "0123456789abcdef", "point_id": "p", "data_id": "d", "seed": 0, "label": "", "point": {}}]})";

// Writes the input as `file` ("trials.json" or "trials/<id>/summary.json") of a run
// directory whose other files are valid, and reads the run.
inline void read_run_with(const std::string& file, const std::uint8_t* data, std::size_t size) {
  const std::string run_dir = (scratch_dir() / "run").string();
  std::filesystem::create_directories(run_dir + "/trials/0123456789abcdef");
  write_scratch_file("run/trials.json", std::string(kTrialsJson));
  write_scratch_file("run/" + file, data, size);
  rejected_naming(run_dir, [&] { (void)experiments::read_run_points(run_dir); });
}

}  // namespace ablate::fuzz
