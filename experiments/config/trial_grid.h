#pragma once
// An experiment's grid expanded into its trials: every point of the sweep and tune
// axes (the first axis slowest) × every seed. Each point is validated once, and each
// trial gets its ids (experiment.h, Trial); two points that resolve to the same trial
// are an error naming the key that does not change it.
#include <cstdint>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/experiment_spec.h"
#include "experiments/config/sweep_axes.h"

namespace ablate::experiments {

// Most trials one experiment file may expand to (an adaptive design's budget
// included). Far beyond any CPU sweep (10,000 trials of a minute are a week on 2
// cores), low enough that validating them all takes seconds.
inline constexpr std::size_t kMaxTrials = 10'000;

// What a grid is expanded from: the file's document and where its trials' relative
// paths resolve.
struct GridSource {
  const toml::table& doc;  // overrides applied; its [sweep] is left out of every trial
  const std::string& path;
  const PositionIndex& positions;
  const std::string& base_dir;
  const std::vector<PluginRef>& plugins;  // every trial's config lists them
};

// The trials of every grid point × seed (`seeds`, or each point's own trial_seed when
// empty), in grid order with seeds innermost. Throws a ConfigError before validating
// anything when the grid has too many trials or sweep.seeds meets a single trial's
// seed. Appends every problem of the points (each distinct one once: with no point when
// it arises at every point, else with the points it arose at), of values giving the
// same trial, and of the file's own values under swept keys (checked though every
// trial replaces them).
// `t` with another trial seed: its config, ids and point as they are, its id anew (the
// trials an adaptive sweep adds after its first block).
Trial reseeded(const Trial& t, std::uint64_t seed);

std::vector<Trial> expand_grid(const GridSource& source, const std::vector<SweepAxis>& axes,
                               const std::vector<std::uint64_t>& seeds,
                               std::vector<ConfigProblem>& problems);

// FNV-1a 64-bit: a stable hash (the same on every machine and compiler).
std::uint64_t fnv1a64(const std::string& text);

}  // namespace ablate::experiments
