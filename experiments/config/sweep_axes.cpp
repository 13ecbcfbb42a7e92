#include "experiments/config/sweep_axes.h"

#include <algorithm>
#include <utility>

#include "experiments/config/halving_reader.h"
#include "experiments/config/setting_keys.h"

namespace ablate::experiments {

namespace {

using Entry = std::pair<std::string, const toml::node*>;

// The keys of a [sweep.zip] group in the file's order. By their own source positions:
// the groups of [[sweep.zip]] share one dotted path, so the position index cannot
// tell their keys apart.
std::vector<std::pair<toml::key, const toml::node*>> zip_keys_in_file_order(
    const toml::table& group) {
  std::vector<std::pair<toml::key, const toml::node*>> zipped;
  for (const auto& [key, value] : group) zipped.emplace_back(key, &value);
  std::stable_sort(zipped.begin(), zipped.end(), [](const auto& a, const auto& b) {
    return std::pair(a.first.source().begin.line, a.first.source().begin.column) <
           std::pair(b.first.source().begin.line, b.first.source().begin.column);
  });
  return zipped;
}

// Reads the axes of [sweep] and [tune]. Problems go through a reader of the whole
// document, which places each at its dotted key's position in the file.
class AxisReader {
 public:
  AxisReader(const toml::table& doc, const std::string& path, const PositionIndex& positions,
             std::vector<ConfigProblem>& problems)
      : positions_(positions), file_(&doc, "", path, problems, positions) {}

  void read_sweep(const toml::node& sweep);
  // After read_sweep: a key may not be both swept and tuned.
  void read_tune(const toml::node& tune);
  SweepAxes take() { return std::move(out_); }

 private:
  std::vector<Entry> entries(const toml::node& node, const std::string& table,
                             const std::string& not_a_table);
  std::vector<const toml::node*> list_values(const std::string& table, const std::string& key,
                                             const toml::node& node);
  void add_list_axis(const std::string& table, const std::string& key, const toml::node& node);
  void read_seeds(const std::string& at, const toml::node& node, std::vector<std::uint64_t>& out);
  void read_zip(const toml::node& node);
  void read_adaptive(const toml::node& node);
  void read_halving(const toml::node& node);
  void read_zip_group(const toml::table& group);
  bool is_swept(const std::string& key) const;
  void check_data_seed(bool seeds_given);

 public:
  // After read_tune: what [sweep.adaptive] and tune.seeds need of the rest of the grid.
  void check_adaptive();
  void check_tune_seeds();
  void check_halving();

 private:
  const PositionIndex& positions_;
  TomlReader file_;
  SweepAxes out_;
};

// The entries of [sweep] or [tune] in the file's order (toml++ keeps keys sorted; the
// grid follows the file instead); none, and a problem, when it is not a table.
std::vector<Entry> AxisReader::entries(const toml::node& node, const std::string& table,
                                       const std::string& not_a_table) {
  std::vector<Entry> entries;
  const toml::table* t = node.as_table();
  if (!t) {
    file_.problem(table, not_a_table);
    return entries;
  }
  for (const auto& [k, v] : *t) entries.emplace_back(std::string(k.str()), &v);
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    return positions_.find(table + "." + a.first) < positions_.find(table + "." + b.first);
  });
  return entries;
}

// One key's values, in a list of [sweep] (table "sweep") or [tune] (table "tune");
// none, and a problem, when they are not a non-empty list.
std::vector<const toml::node*> AxisReader::list_values(const std::string& table,
                                                       const std::string& key,
                                                       const toml::node& node) {
  const std::string at = table + "." + key;
  const char* verb = table == "tune" ? "search" : "sweep";
  std::vector<const toml::node*> values;
  const toml::array* a = node.as_array();
  if (!a) {
    file_.problem(at, std::string("must be a list of values to ") + verb);
    return values;
  }
  if (a->empty()) {
    file_.problem(at, std::string("is an empty list: nothing to ") + verb);
    return values;
  }
  for (const toml::node& v : *a) values.push_back(&v);
  return values;
}

// The axis of one key of [sweep] or [tune] (none when its list is unusable).
void AxisReader::add_list_axis(const std::string& table, const std::string& key,
                               const toml::node& node) {
  SweepAxis axis;
  axis.tune = table == "tune";
  axis.keys.push_back(key);
  axis.values.push_back(list_values(table, key, node));
  if (!axis.values[0].empty()) out_.axes.push_back(std::move(axis));
}

// sweep.seeds or tune.seeds (`at`), into `out`.
void AxisReader::read_seeds(const std::string& at, const toml::node& node,
                            std::vector<std::uint64_t>& out) {
  const toml::array* a = node.as_array();
  if (!a || a->empty()) {
    file_.problem(at, "must be a non-empty list of integers");
    return;
  }
  for (const toml::node& s : *a) {
    auto seed = integer_value(s);
    if (!seed || *seed < 0)
      file_.problem(at, "seeds must be integers >= 0");
    else if (std::find(out.begin(), out.end(), std::uint64_t(*seed)) != out.end())
      file_.problem(at, "lists seed " + std::to_string(*seed) + " twice");
    else
      out.push_back(std::uint64_t(*seed));
  }
}

// [sweep.zip] (one group) or [[sweep.zip]] (several): each group one axis.
void AxisReader::read_zip(const toml::node& node) {
  std::vector<const toml::table*> groups;
  if (const toml::table* t = node.as_table())
    groups.push_back(t);
  else if (const toml::array* a = node.as_array(); a && a->is_array_of_tables())
    for (const toml::node& g : *a) groups.push_back(g.as_table());
  else {
    file_.problem("sweep.zip", "must be a table (or array of tables) of key = [values]");
    return;
  }
  for (const toml::table* g : groups) read_zip_group(*g);
}

void AxisReader::read_zip_group(const toml::table& group) {
  SweepAxis axis;
  axis.zip = true;
  for (const auto& [key, node] : zip_keys_in_file_order(group)) {
    const std::string name(key.str());
    std::vector<const toml::node*> values = list_values("sweep", "zip." + name, *node);
    if (!axis.values.empty() && values.size() != axis.size()) {
      file_.problem("sweep.zip." + name, "zipped lists must have equal lengths (" +
                                             std::to_string(values.size()) + " here, " +
                                             std::to_string(axis.size()) + " before)");
      continue;
    }
    axis.keys.push_back(name);
    axis.values.push_back(values);
  }
  if (!axis.keys.empty()) out_.axes.push_back(std::move(axis));
}

// `seed` is the data seed; `seeds` the training seeds every point repeats. A sweep of
// `seed` without `seeds` is nearly always the typo: one training seed per point, no
// statistics. Sweeping the data seed on purpose says so by giving `seeds` too.
void AxisReader::check_data_seed(bool seeds_given) {
  if (seeds_given) return;
  for (const SweepAxis& a : out_.axes)
    for (const std::string& key : a.keys)
      if (key == "seed")
        file_.problem(a.entry(key),
                      "did you mean seeds? `seed` is the data seed (task data and held-out "
                      "splits), `seeds` the training seeds each point repeats; to sweep the data "
                      "seed on purpose, give seeds too (e.g. seeds = [0])");
}

void AxisReader::read_sweep(const toml::node& sweep) {
  const toml::table* table = sweep.as_table();
  const bool seeds_given = table && table->contains("seeds");
  for (const auto& [key, node] : entries(sweep, "sweep", "must be a table")) {
    if (key == "plugins" || key == "plugins_sha256")  // loaded once, before any trial is read
      file_.problem("sweep." + key,
                    "plugins cannot be swept: list every plugin in the top-level `plugins` "
                    "(loading one only adds components; sweep the component's axis instead)");
    else if (key == "seeds")
      read_seeds("sweep.seeds", *node, out_.seeds);
    else if (key == "zip")
      read_zip(*node);
    else if (key == "adaptive")
      read_adaptive(*node);
    else
      add_list_axis("sweep", key, *node);
  }
  check_data_seed(seeds_given);
}

// [sweep.adaptive] (adaptive_design.h): its keys, and what they need of the sweep.
void AxisReader::read_adaptive(const toml::node& node) {
  const toml::table* table = node.as_table();
  if (!table) {
    file_.problem("sweep.adaptive", "must be a table: max_seeds = N, block = N");
    return;
  }
  TomlReader reader = file_.child(nullptr, "sweep").child(table, "adaptive");
  AdaptiveDesign design;
  read_setting_keys(reader, design);
  reader.finish();
  out_.adaptive = design;
}

void AxisReader::check_adaptive() {
  if (!out_.adaptive) return;
  const std::size_t first = out_.seeds.size();
  if (first == 0)
    file_.problem("sweep.adaptive",
                  "needs sweep.seeds, the first block of seeds (e.g. seeds = [0, 1, 2, 3, 4])");
  else if (first < 2)
    file_.problem("sweep.seeds",
                  "an adaptive design's first block needs at least 2 seeds (5 or more "
                  "recommended: the confidence sequences decide little below that)");
  else if (out_.adaptive->max_seeds < std::int64_t(first))
    file_.problem("sweep.adaptive.max_seeds", "is below the first block's " +
                                                  std::to_string(first) +
                                                  " seeds (sweep.seeds); the budget includes them");
  else if (out_.adaptive->design == "group_sequential" &&
           planned_look_count(std::int64_t(first), *out_.adaptive) > kMaxGroupSequentialLooks)
    file_.problem("sweep.adaptive.block",
                  "plans " +
                      std::to_string(planned_look_count(std::int64_t(first), *out_.adaptive)) +
                      " looks (the first block, then one a block up to max_seeds); a "
                      "group-sequential design allows at most " +
                      std::to_string(kMaxGroupSequentialLooks) +
                      ": a larger block, or design = \"confidence_sequence\", which allows any");
  if (out_.adaptive->design == "confidence_sequence" &&
      (out_.adaptive->spending != "power" || !out_.adaptive->futility))
    file_.problem(
        out_.adaptive->spending != "power" ? "sweep.adaptive.spending" : "sweep.adaptive.futility",
        "applies to design = \"group_sequential\" only (this file's design is "
        "\"confidence_sequence\")");
  if (out_.tune_seeds.empty() &&
      std::any_of(out_.axes.begin(), out_.axes.end(), [](const SweepAxis& a) { return a.tune; }))
    file_.problem("sweep.adaptive",
                  "needs tune.seeds with [tune]: tuned on every seed, a point's chosen setting "
                  "could change as seeds are added, and with it every decision before; give "
                  "[tune] seeds of their own (e.g. seeds = [100, 101, 102]) to choose each "
                  "point's setting first, then run it on the sweep's seeds");
}

// tune.seeds: a tuning stage before the sweep's seeds, which judge what it chose.
void AxisReader::check_tune_seeds() {
  if (out_.tune_seeds.empty()) return;
  if (std::none_of(out_.axes.begin(), out_.axes.end(), [](const SweepAxis& a) { return a.tune; }))
    file_.problem("tune.seeds", "needs a key to tune (e.g. \"train.lr\" = [1e-3, 3e-3, 1e-2])");
  if (out_.seeds.empty()) {
    file_.problem("tune.seeds",
                  "needs sweep.seeds: the seeds each point's chosen setting then runs on");
    return;
  }
  // The trials that choose a setting must not also judge it: reused, they would bring
  // the validation luck the choice selected for into the comparison.
  const std::vector<std::uint64_t> judged =
      out_.adaptive ? adaptive_seed_sequence(out_.seeds, out_.adaptive->max_seeds) : out_.seeds;
  for (std::uint64_t s : out_.tune_seeds)
    if (std::find(judged.begin(), judged.end(), s) != judged.end()) {
      file_.problem("tune.seeds",
                    "shares seed " + std::to_string(s) + " with the sweep's seeds" +
                        (out_.adaptive ? " (sweep.seeds and the adaptive design's later ones, " +
                                             std::to_string(judged.front()) + "–" +
                                             std::to_string(judged.back()) + ")"
                                       : "") +
                        ": the trials that choose a setting must not also judge it; use seeds "
                        "of their own");
      return;
    }
}

// [tune.halving] (halving_schedule.h).
void AxisReader::read_halving(const toml::node& node) {
  const toml::table* table = node.as_table();
  if (!table) {
    file_.problem("tune.halving",
                  "must be a table: rungs = [fractions of train.steps], keep = the fraction kept "
                  "at each rung (e.g. halving = { rungs = [0.25, 0.5], keep = 0.5 })");
    return;
  }
  TomlReader reader = file_.child(nullptr, "tune").child(table, "halving");
  HalvingSchedule schedule = read_halving_schedule(reader);
  reader.finish();
  out_.halving = schedule;
}

// Halving stops settings on the tuning seeds only, and ranks them at one step.
void AxisReader::check_halving() {
  if (!out_.halving) return;
  if (out_.tune_seeds.empty())
    file_.problem("tune.halving",
                  "needs tune.seeds: halving stops settings on the tuning stage's seeds only "
                  "(without tune.seeds every setting runs on the compared seeds, which always "
                  "train in full); give [tune] seeds of their own (e.g. seeds = [100, 101])");
  std::size_t settings = 1;
  for (const SweepAxis& a : out_.axes) {
    if (!a.tune) continue;
    settings *= a.size();
    for (const std::string& key : a.keys)
      if (key == "train.steps" || key == "train.eval_every")
        file_.problem("tune.halving", "cannot halve a tuning of " + key +
                                          ": its settings would be ranked at different steps");
  }
  if (settings < 2)
    file_.problem("tune.halving",
                  "needs at least 2 [tune] settings to choose between (this grid has " +
                      std::to_string(settings) + ")");
}

bool AxisReader::is_swept(const std::string& key) const {
  return std::any_of(out_.axes.begin(), out_.axes.end(), [&](const SweepAxis& a) {
    return std::find(a.keys.begin(), a.keys.end(), key) != a.keys.end();
  });
}

// The tuning grid: axes like the sweep's, searched for each sweep point.
void AxisReader::read_tune(const toml::node& tune) {
  for (const auto& [key, node] :
       entries(tune, "tune", "must be a table of key = [values] to search per sweep point")) {
    if (is_swept(key))
      file_.problem("tune." + key,
                    "is also swept: a key is either swept (its values compared) or tuned (the "
                    "best value chosen for each sweep point), not both");
    else if (key == "seed")
      file_.problem("tune.seed",
                    "cannot be tuned: choosing the data seed by validation loss picks the "
                    "easiest held-out split; sweep it (with sweep.seeds) or fix it");
    else if (key == "seeds")
      read_seeds("tune.seeds", *node, out_.tune_seeds);
    else if (key == "halving")
      read_halving(*node);
    else if (key == "zip" || key == "plugins" || key == "plugins_sha256")
      file_.problem("tune." + key,
                    "cannot be tuned: [tune] lists trial keys (e.g. \"train.lr\" = [3e-4, "
                    "1e-3]); seeds come from sweep.seeds");
    else
      add_list_axis("tune", key, *node);
  }
}

}  // namespace

SweepAxes read_sweep_axes(const toml::table& doc, const std::string& path,
                          const PositionIndex& positions, std::vector<ConfigProblem>& problems) {
  AxisReader reader(doc, path, positions, problems);
  if (const toml::node* sweep = doc.get("sweep")) reader.read_sweep(*sweep);
  if (const toml::node* tune = doc.get("tune")) reader.read_tune(*tune);
  reader.check_adaptive();
  reader.check_tune_seeds();
  reader.check_halving();
  return reader.take();
}

}  // namespace ablate::experiments
