#include "experiments/runner/predict_target.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace {

namespace fs = std::filesystem;

// One trial of a run's trials.json: what --point and --seed are matched against.
struct IndexedTrial {
  std::string id, label;
  std::map<std::string, std::string> point;
  std::uint64_t seed = 0;
  std::string seeded_label() const {
    return (label.empty() ? "" : label + " ") + "seed=" + std::to_string(seed);
  }
};

struct RunIndex {
  std::vector<std::string> swept_keys;
  std::vector<IndexedTrial> trials;
};

RunIndex read_run_index(const RunDir& run) {
  RunIndex index;
  try {
    const nlohmann::json j = read_json_file(run.trial_index());
    index.swept_keys = j.value("swept_keys", std::vector<std::string>{});
    for (const nlohmann::json& t : j.at("trials")) {
      IndexedTrial trial{t.at("id").get<std::string>(), t.value("label", ""), {}, 0};
      const nlohmann::json point = t.value("point", nlohmann::json::object());
      for (const auto& [k, v] : point.items())
        trial.point[k] = v.is_string() ? v.get<std::string>() : v.dump();
      trial.seed = t.value("seed", std::uint64_t(0));
      index.trials.push_back(std::move(trial));
    }
  } catch (const std::exception& e) {
    throw std::invalid_argument(run.trial_index() + ": unreadable trial index (" + e.what() + ")");
  }
  return index;
}

// The swept key `key` names: itself, or the one swept key it is a dotted suffix of.
std::string swept_key(const std::string& key, const RunIndex& index, const std::string& run) {
  std::vector<std::string> matches;
  for (const std::string& k : index.swept_keys)
    if (k == key)
      return k;
    else if (k.size() > key.size() && k.compare(k.size() - key.size(), key.size(), key) == 0 &&
             k[k.size() - key.size() - 1] == '.')
      matches.push_back(k);
  if (matches.size() == 1) return matches[0];
  constexpr std::size_t kListedKeys = 20;  // trials.json may list any number of keys
  std::string keys;
  for (std::size_t i = 0; i < index.swept_keys.size() && i < kListedKeys; ++i)
    keys += (keys.empty() ? "" : ", ") + excerpt(index.swept_keys[i], 160);
  if (index.swept_keys.size() > kListedKeys)
    keys += ", ... (" + std::to_string(index.swept_keys.size()) + " keys)";
  throw std::invalid_argument(
      "--point " + key + ": " + (matches.empty() ? "not a swept key" : "ambiguous") + " of " + run +
      " (its swept keys: " + (keys.empty() ? "none, a single point" : keys) + ")");
}

// A value as given ("layer", "\"layer\"", "1e-3") equals one as recorded ("layer", "0.001").
bool same_value(std::string given, const std::string& recorded) {
  if (given.size() >= 2 && (given.front() == '"' || given.front() == '\'') &&
      given.back() == given.front())
    given = given.substr(1, given.size() - 2);
  if (given == recorded) return true;
  char *end_a = nullptr, *end_b = nullptr;
  const double a = std::strtod(given.c_str(), &end_a), b = std::strtod(recorded.c_str(), &end_b);
  return !given.empty() && !recorded.empty() && *end_a == '\0' && *end_b == '\0' && a == b;
}

// At most kListed of them: a large sweep's would bury the advice above it.
std::string listing(const std::vector<const IndexedTrial*>& trials) {
  constexpr std::size_t kListed = 20;
  std::string out;
  for (std::size_t i = 0; i < trials.size() && i < kListed; ++i)
    out += "\n  " + trials[i]->seeded_label() + "  (" + trials[i]->id + ")";
  if (trials.size() > kListed)
    out += "\n  ... and " + std::to_string(trials.size() - kListed) + " more";
  return out;
}

// Each point once, with its seeds: what a run holds, however many seeds it has. At most
// kListed points, kListedSeeds seeds a point and 160 bytes a label: trials.json may
// come from someone else and hold 100,000 of any of them.
std::string points_listing(const std::vector<IndexedTrial>& trials) {
  constexpr std::size_t kListed = 20, kListedSeeds = 10;
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> points;  // label, seeds
  std::map<std::string, std::size_t> position;  // label -> its index in points
  for (const IndexedTrial& t : trials) {
    const auto [at, added] = position.emplace(t.label, points.size());
    if (added) points.push_back({t.label, {}});
    points[at->second].second.push_back(t.seed);
  }
  std::string out;
  for (std::size_t i = 0; i < points.size() && i < kListed; ++i) {
    const auto& [label, seeds] = points[i];
    std::string listed;
    for (std::size_t k = 0; k < seeds.size() && k < kListedSeeds; ++k)
      listed += (k ? ", " : "") + std::to_string(seeds[k]);
    if (seeds.size() > kListedSeeds) listed += ", ... (" + std::to_string(seeds.size()) + " seeds)";
    out += "\n  " + (label.empty() ? std::string("(the only point)") : excerpt(label, 160)) +
           "  seeds " + listed;
  }
  if (points.size() > kListed)
    out += "\n  ... and " + std::to_string(points.size() - kListed) + " more points";
  return out;
}

// The keys (and "--seed") whose values differ among `matches`: what tells them apart.
std::string keys_to_add(const std::vector<const IndexedTrial*>& matches, const RunIndex& index) {
  std::string keys;
  for (const std::string& k : index.swept_keys) {
    std::set<std::string> values;
    for (const IndexedTrial* t : matches) values.insert(t->point.count(k) ? t->point.at(k) : "");
    if (values.size() > 1) keys += (keys.empty() ? "--point " : ", --point ") + k + "=...";
  }
  std::set<std::uint64_t> seeds;
  for (const IndexedTrial* t : matches) seeds.insert(t->seed);
  if (seeds.size() > 1) keys += (keys.empty() ? "" : ", ") + std::string("--seed N");
  return keys;
}

// The trial of `run` that the --point values and --seed name.
std::string trial_of_run(const PredictTarget& target, const RunDir& run) {
  const RunIndex index = read_run_index(run);
  std::vector<std::pair<std::string, std::string>> wanted;
  std::string asked;
  for (const std::string& p : target.points) {
    const std::size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(
          "--point " + p + ": expected KEY=VALUE (e.g. --point " +
          (index.swept_keys.empty() ? "model.norm.kind" : index.swept_keys.front()) + "=...)");
    wanted.emplace_back(swept_key(p.substr(0, eq), index, run.path()), p.substr(eq + 1));
    asked += (asked.empty() ? "" : " ") + wanted.back().first + "=" + wanted.back().second;
  }
  if (target.seed)
    asked += std::string(asked.empty() ? "" : " ") + "seed=" + std::to_string(*target.seed);
  std::vector<const IndexedTrial*> matches;
  for (const IndexedTrial& t : index.trials) {
    bool match = !target.seed || t.seed == *target.seed;
    for (const auto& [k, v] : wanted)
      match = match && t.point.count(k) && same_value(v, t.point.at(k));
    if (match) matches.push_back(&t);
  }
  if (matches.size() == 1) return matches.front()->id;
  if (matches.empty())
    throw std::invalid_argument(run.path() + ": no trial has " +
                                (asked.empty() ? "anything (the run has no trials)" : asked) +
                                "; its points:" + points_listing(index.trials));
  throw std::invalid_argument(run.path() + ": " + std::to_string(matches.size()) + " trials match" +
                              (asked.empty() ? "" : " " + asked) + " — name one with " +
                              keys_to_add(matches, index) + "; they are:" + listing(matches));
}

// Where a trial without a checkpoint gets one, without training any other trial again.
[[noreturn]] void throw_no_checkpoint(const TrialDir& trial, const std::string& what) {
  if (!fs::is_regular_file(trial.summary()))
    throw std::invalid_argument(trial.path() + ": " + what +
                                " has not finished training (no summary.json): run its "
                                "experiment (with train.checkpoint = true) first");
  throw std::invalid_argument(
      trial.path() + ": " + what +
      " has no checkpoint.safetensors (it was trained with train.checkpoint = false). Train "
      "this trial again with one, into its run (same id, seed and metrics, checked): "
      "ablate run " +
      trial.config() +
      " train.checkpoint=true — or the experiment file with train.checkpoint=true, which "
      "trains again only the finished trials that have none");
}

bool is_trial_dir(const TrialDir& d) {
  return fs::is_regular_file(d.checkpoint()) || fs::is_regular_file(d.config()) ||
         fs::is_regular_file(d.summary());
}

}  // namespace

std::string checkpoint_of(const PredictTarget& target) {
  const std::string& path = target.path;
  const bool by_point = !target.points.empty() || target.seed;
  const std::string point_options = std::string(target.points.empty() ? "--seed" : "--point") +
                                    " names a trial of a run directory; " + path + " is ";
  if (!fs::exists(path))
    throw std::invalid_argument(path +
                                ": no such file or directory (give a checkpoint, a trial "
                                "directory, or a run directory with --point and --seed)");
  if (!fs::is_directory(path)) {
    if (by_point)
      throw std::invalid_argument(point_options + "a file (the sampler's seed is --sample-seed)");
    return path;
  }
  const TrialDir trial(path);
  if (is_trial_dir(trial)) {
    if (by_point)
      throw std::invalid_argument(point_options +
                                  "a trial directory (the sampler's seed is --sample-seed)");
    if (!fs::is_regular_file(trial.checkpoint())) throw_no_checkpoint(trial, "the trial");
    return trial.checkpoint();
  }
  const RunDir run(path);
  if (!fs::is_regular_file(run.trial_index()))
    throw std::invalid_argument(
        path + ": neither a trial directory (no " + TrialDir::kCheckpoint + " or " +
        TrialDir::kConfig + ") nor a run directory (no " + RunDir::kTrialIndex +
        "); give a checkpoint, a trial directory (<run>/trials/<id>) or a run directory");
  const std::string id = trial_of_run(target, run);
  const TrialDir chosen = run.trial(id);
  if (!fs::is_regular_file(chosen.checkpoint())) throw_no_checkpoint(chosen, "the trial " + id);
  return chosen.checkpoint();
}

}  // namespace ablate::experiments
