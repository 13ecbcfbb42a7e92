#pragma once
// An experiment file expanded into its trials. [sweep] maps dotted keys to lists of
// values (the grid is their product), `seeds = [...]` repeats every grid point, and
// [sweep.zip] (or [[sweep.zip]]) maps keys to lists of equal length that vary
// together. [tune] maps keys to lists searched for every sweep point (an inner grid:
// each point is reported at the setting with the lowest mean validation loss). Every
// trial is validated before anything runs; all problems of the file are thrown at
// once as a ConfigError.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/config/experiment_spec.h"
#include "experiments/config/overrides.h"
#include "experiments/config/trial_config.h"

namespace ablate::experiments {

struct LoadOptions {
  // Plugins named on the command line (--plugin), as given (relative to the working
  // directory); loaded after the file's own `plugins`.
  std::vector<std::string> plugins;
  // Where relative paths resolve, instead of the file's directory ("" = as above): an
  // MPI rank loading rank 0's file from a copy passes rank 0's base_dir.
  std::string base_dir;
  // key=value overrides of the file's values (overrides.h), applied in order.
  std::vector<std::string> overrides;
  // --quick: apply the file's [quick] table first (quick_variant.h).
  bool quick = false;
  // Print Experiment::notes on stderr ("note: ..."), once, as the file is loaded.
  bool print_notes = true;
};

// Loads the experiment's plugins (its `plugins` key, then options.plugins) first, so
// their components validate like built-in ones; a plugin that cannot be used is a
// ConfigError at the `plugins` key (or, from the command line, at "--plugin").
Experiment load_experiment(const std::string& path, const LoadOptions& options = {});

// The plugins of a document (its `plugins` paths, relative to base_dir, checked against
// `plugins_sha256` when recorded), then those named on the command line, loaded in
// order; every problem is appended (at `path`'s keys). load_experiment uses it, and so
// does anything rebuilding a trial from its resolved config (ablate predict).
std::vector<PluginRef> load_plugins(const toml::table& doc, const std::string& path,
                                    const std::string& base_dir, const PositionIndex& positions,
                                    const std::vector<std::string>& from_command_line,
                                    std::vector<ConfigProblem>& problems);

}  // namespace ablate::experiments
