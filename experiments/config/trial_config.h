#pragma once
// Reading a trial's configuration from TOML and writing it back (the structs are plain
// data in records/trial_config.h). docs/reference/ documents each key.
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/config_error.h"
#include "experiments/config/toml_reader.h"
#include "experiments/io/file_digest.h"
#include "experiments/records/trial_config.h"

namespace ablate::experiments {

// Reads and validates one trial from a TOML document whose [sweep] (if any) is
// ignored. Problems are appended to `problems` (positions from the nodes, so values
// that came from a sweep point at the sweep entry). base_dir resolves task data paths;
// the files they name are hashed through `digests` (once per loading of a file), and
// the task is built through `tasks` when given (once per distinct task; else afresh).
class TaskCache;
TrialConfig read_trial_config(const toml::table& doc, const std::string& file,
                              const std::string& base_dir, const PositionIndex& positions,
                              std::vector<ConfigProblem>& problems, FileDigests& digests,
                              TaskCache* tasks = nullptr);

// The resolved trial as TOML (every key explicit, keys sorted): written as the trial's
// config.toml, and hashed for its id. Excludes the description (prose changes must not
// invalidate results).
toml::table to_toml(const TrialConfig& config);
std::string to_toml_string(const TrialConfig& config);

}  // namespace ablate::experiments
