// Fuzz target: the experiment-file loader — TOML parsing, validation of every key,
// sweep expansion and trial ids (load_experiment), the path `ablate run` and
// `ablate check` take before anything runs.
//
// Bad input must be a ConfigError (exit status 2, file:line:column: key: message).
// Accepted input must expand into trials whose ids are the FNV-1a of their resolved
// config, all distinct, and whose resolved config.toml loads back as exactly that one
// trial — what a run directory's config.toml promises (it reproduces the trial).
#include <cstdio>
#include <iomanip>
#include <set>
#include <sstream>

#include "experiments/config/config_error.h"
#include "experiments/config/experiment.h"
#include "experiments/config/trial_grid.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ablate::experiments;
using ablate::fuzz::require;
using ablate::fuzz::write_scratch_file;

namespace {

// Data files a fuzzed [task] can point at (csv = "series.csv", path = "pairs.tsv"), so
// the loaders behind the file are reached too.
void write_data_files() {
  std::string csv = "a,b\n";
  for (int t = 0; t < 40; ++t) csv += std::to_string(t % 7) + "," + std::to_string(t * 0.5) + "\n";
  write_scratch_file("series.csv", csv);
  write_scratch_file("pairs.tsv", "abc\tcba\nhello\tolleh\nxy\tyx\nab ba\tab ab\n");
}

std::string hex_id(const std::string& config_toml) {
  std::ostringstream id;
  id << std::hex << std::setw(16) << std::setfill('0') << fnv1a64(config_toml);
  return id.str();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  write_data_files();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = write_scratch_file("experiment.toml", data, size);
  Experiment e;
  try {
    e = load_experiment(path);
  } catch (const ConfigError& error) {
    require(std::string(error.what()).find("experiment.toml") != std::string::npos,
            "a ConfigError names the file");
    return 0;
  }
  require(!e.trials.empty(), "an accepted experiment has at least one trial");
  std::set<std::string> ids;
  for (const Trial& t : e.trials) {
    require(t.id == hex_id(t.config_toml), "a trial's id is the FNV-1a of its resolved config");
    require(ids.insert(t.id).second, "trial ids are distinct");
  }
  // The resolved config of the first and the last trial, loaded as experiment files.
  for (const Trial* t : {&e.trials.front(), &e.trials.back()}) {
    const std::string resolved = write_scratch_file("resolved.toml", t->config_toml);
    Experiment again;
    try {
      again = load_experiment(resolved);
    } catch (const ConfigError& error) {
      std::fprintf(stderr, "%s\n", error.what());
      require(false, "a resolved config.toml loads");
    }
    require(again.trials.size() == 1, "a resolved config.toml is one trial");
    require(again.trials[0].config_toml == t->config_toml,
            "a resolved config.toml resolves to itself (same trial id)");
  }
  return 0;
}
