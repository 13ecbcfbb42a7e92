#pragma once
// The axes of an experiment file's grid, read from its [sweep] and [tune] tables
// (experiment.h describes them): each axis a key and its list of values, or the keys
// of a [sweep.zip] group, whose lists vary together.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/adaptive_design.h"
#include "experiments/config/halving_schedule.h"
#include "experiments/config/toml_reader.h"

namespace ablate::experiments {

struct SweepAxis {
  bool zip = false;
  bool tune = false;              // an axis of [tune]: chosen per sweep point, not compared
  std::vector<std::string> keys;  // one, or several for a zip
  std::vector<std::vector<const toml::node*>> values;  // values[key][i]
  std::size_t size() const { return values.empty() ? 0 : values[0].size(); }
  // Where the file gives this axis's `key`: "sweep.K", "sweep.zip.K" or "tune.K".
  std::string entry(const std::string& key) const {
    return (tune ? "tune." : zip ? "sweep.zip." : "sweep.") + key;
  }
};

struct SweepAxes {
  // [sweep]'s axes in the file's order (a zip group is one axis), then [tune]'s.
  std::vector<SweepAxis> axes;
  std::vector<std::uint64_t> seeds;  // sweep.seeds; empty when not given
  // tune.seeds: the tuning stage's seeds (experiment.h, Experiment::tune_seeds); empty
  // when every [tune] setting runs on every seed.
  std::vector<std::uint64_t> tune_seeds;
  std::optional<AdaptiveDesign> adaptive;  // [sweep.adaptive]
  std::optional<HalvingSchedule> halving;  // [tune.halving]
};

// The axes of the document of `path` (pointing into `doc`: it must outlive them);
// every problem is appended. A document without [sweep] and [tune] has none.
SweepAxes read_sweep_axes(const toml::table& doc, const std::string& path,
                          const PositionIndex& positions, std::vector<ConfigProblem>& problems);

}  // namespace ablate::experiments
