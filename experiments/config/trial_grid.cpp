#include "experiments/config/trial_grid.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "experiments/config/overrides.h"
#include "experiments/config/suggestions.h"
#include "experiments/config/task_cache.h"
#include "experiments/config/toml_writer.h"
#include "experiments/io/file_digest.h"

namespace ablate::experiments {

std::uint64_t fnv1a64(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

namespace {

// Points named with a problem that arises at some points only; the rest are counted.
constexpr std::size_t kPointsNamed = 5;

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// 16 hex digits of FNV-1a: a trial's (or a point's) id.
std::string hex_id(const std::string& config_toml) {
  std::ostringstream id;
  id << std::hex << std::setw(16) << std::setfill('0') << fnv1a64(config_toml);
  return id.str();
}

// The config text an id hashes: train.checkpoint written as false, whatever it is.
// Saving the selected model changes nothing the trial computes, so asking for
// checkpoints of a finished sweep keeps its trials (runner/sweep_runner.cpp retrains
// only those that lack one); false is the value every trial hashed before, so no id
// changes.
std::string identity_toml(TrialConfig config) {
  config.train.checkpoint = false;
  return to_toml_string(config);
}

// Sets `path` (dotted) in `doc` to a copy of `value`, creating tables on the way; a
// component written as a string ("norm = 'layer'") becomes { kind = "layer" } when a
// key below it is swept.
std::string set_path(toml::table& doc, const std::string& path, const toml::node& value) {
  std::vector<std::string> keys;
  for (std::size_t start = 0;;) {
    std::size_t dot = path.find('.', start);
    keys.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (keys.back().empty()) return "is not a valid dotted key";
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return set_key_path(doc, keys, value);
}

// Refuses a grid of more than kMaxTrials trials — checked first, so that a typo'd grid
// is an error rather than hours of validation — and sweep.seeds beside a single trial's
// seed.
void check_grid_shape(const GridSource& source, const std::vector<SweepAxis>& axes,
                      const std::vector<std::uint64_t>& seeds) {
  const std::size_t seed_count = seeds.empty() ? 1 : seeds.size();
  double trials = double(seed_count);  // a double: no overflow
  std::string grid;
  for (const SweepAxis& a : axes) {
    trials *= double(a.size());
    grid += std::to_string(a.size()) + " × ";
  }
  if (trials > double(kMaxTrials)) {
    auto [l, c] = source.positions.find("sweep");
    char count[32];
    std::snprintf(count, sizeof count, "%.4g", trials);
    throw ConfigError(
        {{source.path, l, c, "sweep",
          "expands to " + std::string(count) + " trials (" + grid + std::to_string(seed_count) +
              " seeds); at most " + std::to_string(kMaxTrials) +
              " per file — split the sweep into several files"}});
  }
  const bool trial_seed_swept = std::any_of(axes.begin(), axes.end(), [](const SweepAxis& a) {
    return !a.tune && std::find(a.keys.begin(), a.keys.end(), "trial_seed") != a.keys.end();
  });
  if (!seeds.empty() && (source.doc.get("trial_seed") || trial_seed_swept)) {
    auto [l, c] = source.positions.find("trial_seed");
    throw ConfigError({{source.path, l, c, "trial_seed",
                        "a single trial's seed cannot be combined with sweep.seeds (remove one)"}});
  }
}

// One grid point's values: every swept and tuned value, in axis order.
struct GridPoint {
  KeyValues values;                  // as written in TOML
  std::vector<std::string> entries;  // where the file gives each: "sweep.K", "tune.K", ...
  std::vector<bool> tuned;

  KeyValues swept_values() const { return of_kind(false); }
  KeyValues tuned_values() const { return of_kind(true); }
  std::string label() const {  // "model.heads=3 train.lr=0.001": where a problem arose
    Trial labelled;
    labelled.point = values;
    return labelled.point_label();
  }

 private:
  KeyValues of_kind(bool is_tuned) const {
    KeyValues out;
    for (std::size_t k = 0; k < values.size(); ++k)
      if (tuned[k] == is_tuned) out.push_back(values[k]);
    return out;
  }
};

// The sweep point of a trial, whatever its seed: the id of its config with trial_seed
// 0 and no name.
std::string point_id_of(const TrialConfig& config) {
  TrialConfig unseeded = config;
  unseeded.trial_seed = 0;
  unseeded.name.clear();
  return hex_id(identity_toml(unseeded));
}

// What a trial is evaluated on: its resolved [task] and data seed.
std::string data_id_of(const TrialConfig& config) {
  const toml::table resolved = to_toml(config);
  const toml::table* task = resolved["task"].as_table();
  return hex_id((task ? toml_document_text(*task) : std::string()) +
                "\nseed = " + std::to_string(config.data_seed));
}

std::string label_of(const KeyValues& values) {
  Trial labelled;
  labelled.point = values;
  return labelled.point_label();
}

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

// The grid points a problem arose at, as few words as say which: "trial K=V ..." for
// one, "at the 3 grid points with model.heads=3" when the values they share pick them
// out, else the first few.
std::string points_text(const std::vector<KeyValues>& points, const std::vector<KeyValues>& all) {
  if (points.size() == 1) return "(trial " + label_of(points[0]) + ")";
  KeyValues shared = points[0];
  for (const KeyValues& p : points)
    std::erase_if(shared,
                  [&](const auto& kv) { return std::find(p.begin(), p.end(), kv) == p.end(); });
  const auto has_shared = [&](const KeyValues& p) {
    return std::all_of(shared.begin(), shared.end(), [&](const auto& kv) {
      return std::find(p.begin(), p.end(), kv) != p.end();
    });
  };
  const std::string count = std::to_string(points.size());
  if (!shared.empty() &&
      std::size_t(std::count_if(all.begin(), all.end(), has_shared)) == points.size())
    return "(at the " + count + " grid points with " + label_of(shared) + ")";
  std::vector<std::string> named;
  for (std::size_t k = 0; k < points.size() && k < kPointsNamed; ++k)
    named.push_back(label_of(points[k]));
  if (points.size() > kPointsNamed)
    named.push_back("and " + std::to_string(points.size() - kPointsNamed) + " more");
  return "(at " + count + " grid points: " + joined(named, "; ") + ")";
}

// Each distinct problem of the grid points, once, with the points it arose at (in order
// of first appearance): one arising at every point does not depend on the swept values
// and names none. Problems that differ only in the names allowed where an unknown one
// was written (kAllowedHere: the options differ per swept kind) are one mistake.
class PointProblems {
 public:
  // Every point of the grid, in order (whether or not it has problems).
  void add_point(const KeyValues& point) { all_.push_back(point); }

  void add(const std::vector<ConfigProblem>& found, const KeyValues& point) {
    for (const ConfigProblem& pr : found) {
      ConfigProblem stem = pr;
      std::vector<std::string> allowed;
      if (const std::size_t at = pr.message.find(kAllowedHere); at != std::string::npos) {
        stem.message = pr.message.substr(0, at);
        std::istringstream words(pr.message.substr(at + std::string(kAllowedHere).size()));
        for (std::string w; words >> w;) allowed.push_back(w);
      }
      auto [it, first] = index_.emplace(stem.str(), list_.size());
      if (first) list_.push_back({stem, pr.message != stem.message, {}, allowed, allowed});
      Group& g = list_[it->second];
      g.points.push_back(point);
      std::erase_if(g.everywhere, [&](const std::string& w) {
        return std::find(allowed.begin(), allowed.end(), w) == allowed.end();
      });
      for (const std::string& w : allowed)
        if (std::find(g.anywhere.begin(), g.anywhere.end(), w) == g.anywhere.end())
          g.anywhere.push_back(w);
    }
  }

  void report(std::vector<ConfigProblem>& problems) const {
    for (const Group& g : list_) {
      ConfigProblem pr = g.stem;
      if (g.lists_allowed) pr.message += allowed_text(g);
      if (g.points.size() != all_.size()) {
        pr.message += ' ';  // not " " + std::string: GCC 12 warns falsely (-Wrestrict)
        pr.message += points_text(g.points, all_);
      }
      problems.push_back(pr);
    }
  }

 private:
  struct Group {
    ConfigProblem stem;  // the message without its list of allowed names
    bool lists_allowed;
    std::vector<KeyValues> points;
    std::vector<std::string> everywhere, anywhere;  // allowed at every point, at some
  };

  static std::string allowed_text(const Group& g) {
    std::vector<std::string> some;
    for (const std::string& w : g.anywhere)
      if (std::find(g.everywhere.begin(), g.everywhere.end(), w) == g.everywhere.end())
        some.push_back(w);
    std::vector<std::string> every = g.everywhere;
    std::sort(every.begin(), every.end());
    std::sort(some.begin(), some.end());
    return kAllowedHere + (" " + joined(every, " ")) +
           (some.empty() ? "" : "; at some of these points also: " + joined(some, " "));
  }

  std::vector<Group> list_;
  std::map<std::string, std::size_t> index_;
  std::vector<KeyValues> all_;
};

// The trial ids of a grid, with the point each came from: a second point giving an
// id already seen means a swept key whose values resolve to the same trial.
class TrialIds {
 public:
  explicit TrialIds(TomlReader& file) : file_(file) {}

  // Whether `t` is new; if not, the problem (each once per file: per key, or the same
  // point repeated).
  bool add(const Trial& t, const GridPoint& point) {
    auto [earlier, first] = point_of_id_.emplace(t.id, point.values);
    if (first) return true;
    if (point.values == earlier->second && reported_keys_.insert("").second)
      file_.problem("sweep", "lists the same trial twice (a value or a seed repeated: " +
                                 t.seeded_label() + ")");
    for (std::size_t k = 0; k < point.values.size() && k < earlier->second.size(); ++k) {
      const auto& [key, value] = point.values[k];
      const std::string& other = earlier->second[k].second;
      if (value == other || !reported_keys_.insert(key).second) continue;
      file_.problem(point.entries[k],
                    "the values " + other + " and " + value + " give the same trial (" + key +
                        " is not part of a trial's identity, or both resolve to the same "
                        "config); sweep a key whose values differ");
    }
    return false;
  }

 private:
  TomlReader& file_;
  std::map<std::string, KeyValues> point_of_id_;
  std::set<std::string> reported_keys_;
};

class GridExpansion {
 public:
  GridExpansion(const GridSource& source, const std::vector<SweepAxis>& axes,
                const std::vector<std::uint64_t>& seeds, std::vector<ConfigProblem>& problems)
      : source_(source),
        axes_(axes),
        seeds_(seeds),
        problems_(problems),
        file_(&source.doc, "", source.path, problems, source.positions),
        ids_(file_),
        base_(source.doc) {
    base_.erase("sweep");
  }

  std::size_t points() const {
    std::size_t points = 1;  // ≤ kMaxTrials, checked before
    for (const SweepAxis& a : axes_) points *= a.size();
    return points;
  }
  void expand_point(std::size_t p);
  void check_replaced_values();
  // The trials; the problems of points reported.
  std::vector<Trial> finish() {
    point_problems_.report(problems_);
    return std::move(trials_);
  }

 private:
  GridPoint set_point(std::size_t p, toml::table& doc, PositionIndex& positions);
  void add_trials(const TrialConfig& config, const GridPoint& point);

  const GridSource& source_;
  const std::vector<SweepAxis>& axes_;
  const std::vector<std::uint64_t>& seeds_;
  std::vector<ConfigProblem>& problems_;
  TomlReader file_;  // places a problem at its dotted key's position in the file
  TrialIds ids_;
  PointProblems point_problems_;
  toml::table base_;     // the file's document without [sweep]
  FileDigests digests_;  // each data file hashed once, however many grid points read it
  TaskCache& tasks_ = shared_task_cache();  // and each distinct task built once, for the trials too
  std::vector<Trial> trials_;
};

// Sets the values of grid point `p` in `doc`; a problem in a value points at its
// entry in [sweep] or [tune].
GridPoint GridExpansion::set_point(std::size_t p, toml::table& doc, PositionIndex& positions) {
  std::vector<std::size_t> index(axes_.size());  // along each axis; the first is slowest
  for (std::size_t a = axes_.size(); a-- > 0;) {
    index[a] = p % axes_[a].size();
    p /= axes_[a].size();
  }
  GridPoint point;
  for (std::size_t a = 0; a < axes_.size(); ++a)
    for (std::size_t k = 0; k < axes_[a].keys.size(); ++k) {
      const std::string& key = axes_[a].keys[k];
      const toml::node& value = *axes_[a].values[k][index[a]];
      const std::string entry = axes_[a].entry(key);
      if (std::string err = set_path(doc, key, value); !err.empty()) {
        file_.problem(entry, err);
        continue;
      }
      positions.add(value, key);
      point.values.emplace_back(key, display_value(value));
      point.entries.push_back(entry);
      point.tuned.push_back(axes_[a].tune);
    }
  return point;
}

void GridExpansion::expand_point(std::size_t p) {
  toml::table doc = base_;
  PositionIndex positions = source_.positions;
  const GridPoint point = set_point(p, doc, positions);
  point_problems_.add_point(point.values);
  // Validated once per grid point; the seeds only change the trial's seed.
  std::vector<ConfigProblem> found;
  TrialConfig config =
      read_trial_config(doc, source_.path, source_.base_dir, positions, found, digests_, &tasks_);
  config.plugins = source_.plugins;
  if (!found.empty()) {
    point_problems_.add(found, point.values);
    return;
  }
  add_trials(config, point);
}

// The point's trials, one per seed, each with its ids.
void GridExpansion::add_trials(const TrialConfig& config, const GridPoint& point) {
  const std::string point_id = point_id_of(config), data_id = data_id_of(config);
  for (std::uint64_t seed :
       seeds_.empty() ? std::vector<std::uint64_t>{config.trial_seed} : seeds_) {
    Trial t;
    t.config = config;
    t.point_id = point_id;
    t.data_id = data_id;
    t.point = point.swept_values();
    t.tune = point.tuned_values();
    t = reseeded(t, seed);
    if (ids_.add(t, point)) trials_.push_back(std::move(t));
  }
}

// The path of `doc` an axis key replaces: the key itself when `doc` sets it, or the
// value above it that is not a table (norm = "scalenorm" for model.norm.kind); "" when
// `doc` leaves it to its default.
std::string replaced_path(const toml::table& doc, const std::string& key) {
  const toml::table* t = &doc;
  std::string path;
  for (std::size_t start = 0; t;) {
    const std::size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? dot : dot - start);
    path += (path.empty() ? "" : ".") + part;
    const toml::node* n = t->get(part);
    if (!n) return "";
    if (dot == std::string::npos || !n->is_table()) return path;
    t = n->as_table();
    start = dot + 1;
  }
  return "";
}

// The file's own values under the swept and tuned keys are checked too, though every
// trial replaces them: a wrong one (placement = "middle") would otherwise pass until
// the sweep is removed. The document is read once as a trial without [sweep]; only
// its problems at the keys an axis replaces are reported (others arise at the points
// too, or concern options of a kind only the file's value has).
void GridExpansion::check_replaced_values() {
  std::vector<std::string> replaced;
  for (const SweepAxis& a : axes_)
    for (const std::string& key : a.keys)
      if (std::string p = replaced_path(base_, key); !p.empty()) replaced.push_back(p);
  if (replaced.empty()) return;
  std::vector<ConfigProblem> found;
  read_trial_config(base_, source_.path, source_.base_dir, source_.positions, found, digests_,
                    &tasks_);
  for (ConfigProblem& pr : found)
    if (std::any_of(replaced.begin(), replaced.end(), [&](const std::string& p) {
          return pr.key == p || pr.key.rfind(p + ".", 0) == 0;
        })) {
      pr.message +=
          " (the file's value, which the sweep replaces in every trial; it must be "
          "valid on its own too)";
      problems_.push_back(pr);
    }
}

}  // namespace

Trial reseeded(const Trial& t, std::uint64_t seed) {
  Trial out = t;
  out.config.trial_seed = seed;
  out.config_toml = to_toml_string(out.config);
  out.id = hex_id(identity_toml(out.config));
  return out;
}

std::vector<Trial> expand_grid(const GridSource& source, const std::vector<SweepAxis>& axes,
                               const std::vector<std::uint64_t>& seeds,
                               std::vector<ConfigProblem>& problems) {
  check_grid_shape(source, axes, seeds);
  GridExpansion grid(source, axes, seeds, problems);
  grid.check_replaced_values();
  const std::size_t points = grid.points();
  for (std::size_t p = 0; p < points; ++p) grid.expand_point(p);
  return grid.finish();
}

}  // namespace ablate::experiments
