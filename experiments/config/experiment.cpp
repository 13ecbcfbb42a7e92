#include "experiments/config/experiment.h"

#include "experiments/config/task_cache.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "experiments/config/overrides.h"
#include "experiments/config/quick_variant.h"
#include "experiments/config/toml_writer.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/file_digest.h"
#include "experiments/plugins/plugin.h"
#include "experiments/tasks/task.h"
#include "experiments/io/json_file.h"

namespace ablate::experiments {

namespace {

// Most trials one experiment file may expand to. Far beyond any CPU sweep (10,000
// trials of a minute are a week on 2 cores), low enough that validating them all
// takes seconds.
constexpr std::size_t kMaxTrials = 10'000;

// 16 hex digits of FNV-1a: a trial's (or a point's) id.
std::string hex_id(const std::string& config_toml) {
  std::ostringstream id;
  id << std::hex << std::setw(16) << std::setfill('0') << fnv1a64(config_toml);
  return id.str();
}

struct SweepAxis {
  bool zip = false;
  bool tune = false;  // an axis of [tune]: chosen per sweep point, not compared
  std::vector<std::string> keys;                        // one, or several for a zip
  std::vector<std::vector<const toml::node*>> values;   // values[key][i]
  std::size_t size() const { return values.empty() ? 0 : values[0].size(); }
};


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

// One axis of [sweep] (table "sweep") or [tune] (table "tune").
void read_axis(const std::string& table, const std::string& key, const toml::node& node, const std::string& file,
               const PositionIndex& positions, std::vector<ConfigProblem>& problems,
               std::vector<const toml::node*>& out) {
  const std::string at = table + "." + key;
  const char* verb = table == "tune" ? "search" : "sweep";
  auto [line, column] = positions.find(at);
  const toml::array* a = node.as_array();
  if (!a) {
    problems.push_back({file, line, column, at, std::string("must be a list of values to ") + verb});
    return;
  }
  if (a->empty()) {
    problems.push_back({file, line, column, at, std::string("is an empty list: nothing to ") + verb});
    return;
  }
  for (const toml::node& v : *a) out.push_back(&v);
}

}  // namespace

std::string Experiment::text_as_run() const { return read_file(file) + overrides_block(overrides); }

std::string Trial::point_label() const {
  std::string s;
  for (const auto& [k, v] : point) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string Trial::tune_label() const {
  std::string s;
  for (const auto& [k, v] : tune) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string Trial::seeded_label() const {
  std::string s = point_label();
  if (!tune.empty()) s += (s.empty() ? "" : " ") + tune_label();
  if (!s.empty()) s += ' ';
  return s.append("seed=").append(std::to_string(config.trial_seed));
}

std::uint64_t fnv1a64(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

namespace {

struct HomeRun {
  std::string run_dir, source_dir;
  std::vector<std::string> swept_keys;
  // Each indexed trial's sweep point, in sweep order.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> points;
};

// A trial's config.toml in its run directory: <run>/trials/<id>/config.toml, where
// <run> holds the sweep's trials.json.
std::optional<HomeRun> home_run_of_trial_config(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file = fs::absolute(path).lexically_normal();
  const fs::path trial_dir = file.parent_path(), trials = trial_dir.parent_path(), run = trials.parent_path();
  if (file.filename() != "config.toml" || trials.filename() != "trials" || !fs::is_regular_file(run / "trials.json"))
    return std::nullopt;
  HomeRun home;
  home.run_dir = run.string();
  try {
    const auto index = read_json_file((run / "trials.json").string());
    home.source_dir = index.value("source_dir", "");
    home.swept_keys = index.value("swept_keys", std::vector<std::string>{});
    for (const auto& t : index.at("trials")) {
      auto& point = home.points[t.at("id").get<std::string>()];
      for (const std::string& key : home.swept_keys)
        if (t.at("point").contains(key)) point.emplace_back(key, t.at("point").at(key).get<std::string>());
    }
  } catch (const std::exception&) {
    // an unreadable index: the paths resolve next to the file, as for any other
  }
  return home;
}

}  // namespace

// The file's `plugins` (paths relative to base_dir; with the digests a resolved
// config.toml recorded, `plugins_sha256`, checked) and then the command line's,
// loaded; every problem is appended.
std::vector<PluginRef> load_plugins(const toml::table& doc, const std::string& path, const std::string& base_dir,
                                    const PositionIndex& positions, const std::vector<std::string>& from_command_line,
                                    std::vector<ConfigProblem>& problems) {
  std::vector<PluginRef> plugins;
  std::set<std::string> resolved_paths;
  auto problem = [&](const std::string& key, const std::string& message) {
    auto [l, c] = positions.find(key);
    problems.push_back({path, l, c, key, message});
  };
  // Null (and a problem reported) when it cannot be loaded, or when already listed.
  auto load = [&](const std::string& as_written, const std::string& resolved,
                  const std::function<void(const std::string&)>& report) -> const Plugin* {
    try {
      const Plugin& plugin = load_plugin(resolved);
      if (!resolved_paths.insert(plugin.path).second) return nullptr;  // named twice: loaded once
      plugins.push_back({as_written, plugin.sha256, plugin.built_for});
      return &plugin;
    } catch (const PluginError& e) {
      report(e.what());
      return nullptr;
    }
  };
  std::vector<std::string> listed, recorded;
  for (const char* key : {"plugins", "plugins_sha256"}) {
    const toml::node* node = doc.get(key);
    if (!node) continue;
    const toml::array* array = node->as_array();
    std::vector<std::string>& out = std::string(key) == "plugins" ? listed : recorded;
    if (array)
      for (const toml::node& item : *array)
        if (auto text = item.value<std::string>()) out.push_back(*text);
    if (!array || out.size() != array->size())
      problem(key, std::string("must be a list of ") + (out.data() == listed.data() ? "paths to plugin files"
                                                                                    : "SHA-256 digests"));
  }
  if (!recorded.empty() && recorded.size() != listed.size())
    problem("plugins_sha256", "lists " + std::to_string(recorded.size()) + " digests for " +
                                  std::to_string(listed.size()) + " plugins");
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const std::string resolved = resolve_data_path(base_dir, listed[i]);
    // A recorded digest is compared before the file is loaded: a resolved config never
    // runs a library other than the one it was resolved with (its base directory comes
    // from the run directory's trials.json, which may have been handed over).
    std::error_code error;
    if (i < recorded.size() && std::filesystem::is_regular_file(resolved, error)) {
      const std::string absolute = std::filesystem::absolute(resolved).lexically_normal().string();
      std::string now = recorded[i];  // unreadable: load() below says why
      try {
        now = sha256_of_file(absolute);
      } catch (const std::exception&) {
      }
      if (now != recorded[i]) {
        problem("plugins_sha256", absolute + " has changed since this config was resolved (SHA-256 " +
                                      recorded[i].substr(0, 12) + "… recorded, " + now.substr(0, 12) +
                                      "… now); delete this key to run with the new build");
        continue;
      }
    }
    load(listed[i], resolved, [&](const std::string& why) { problem("plugins", why); });
  }
  for (const std::string& given : from_command_line) {
    const std::string absolute = std::filesystem::absolute(given).lexically_normal().string();
    load(absolute, absolute, [&](const std::string& why) { problems.push_back({"--plugin", 0, 0, "", why}); });
  }
  return plugins;
}

Experiment load_experiment_with(const std::string& path, const LoadOptions& options,
                                const std::vector<Override>& overrides) {
  Experiment e;
  e.file = path;
  e.base_dir = std::filesystem::path(path).parent_path().string();
  if (e.base_dir.empty()) e.base_dir = ".";
  const std::optional<HomeRun> home = home_run_of_trial_config(path);
  if (home) {
    e.home_run_dir = home->run_dir;
    if (!home->source_dir.empty()) e.base_dir = home->source_dir;
  }
  if (!options.base_dir.empty()) e.base_dir = options.base_dir;
  TomlDocument parsed = parse_experiment_file(path);
  PositionIndex positions(parsed);
  std::vector<ConfigProblem> problems;
  for (const Override& o : overrides)
    if (std::string err = apply_override(parsed.table, o); !err.empty())
      problems.push_back({"override '" + o.text + "'", 0, 0, "", err});
  if (!options.quick) check_quick_table(parsed.table, path, positions, problems);
  if (!problems.empty()) throw ConfigError(problems);
  e.overrides = overrides;
  const toml::table& doc = parsed.table;

  // ---- the plugins, before anything names their components
  e.plugins = load_plugins(doc, path, e.base_dir, positions, options.plugins, problems);
  if (!problems.empty()) throw ConfigError(problems);

  // ---- the sweep
  std::vector<SweepAxis> axes;
  e.seeds = {};
  e.declares_grid = doc.contains("sweep") || doc.contains("tune");
  if (const toml::node* sweep_node = doc.get("sweep")) {
    const toml::table* sweep = sweep_node->as_table();
    if (!sweep) {
      auto [l, c] = positions.find("sweep");
      problems.push_back({path, l, c, "sweep", "must be a table"});
    } else {
      // toml++ keeps keys sorted; the grid follows the file's order instead.
      std::vector<std::pair<std::string, const toml::node*>> entries;
      for (const auto& [k, v] : *sweep) entries.emplace_back(std::string(k.str()), &v);
      auto by_position = [&](const auto& a, const auto& b) {
        return positions.find("sweep." + a.first) < positions.find("sweep." + b.first);
      };
      std::stable_sort(entries.begin(), entries.end(), by_position);
      for (const auto& [key, node] : entries) {
        const toml::node& v = *node;
        if (key == "plugins" || key == "plugins_sha256") {  // loaded once, before any trial is read
          auto [l, c] = positions.find("sweep." + key);
          problems.push_back({path, l, c, "sweep." + key,
                              "plugins cannot be swept: list every plugin in the top-level `plugins` (loading "
                              "one only adds components; sweep the component's axis instead)"});
          continue;
        }
        if (key == "seeds") {
          const toml::array* a = v.as_array();
          auto [l, c] = positions.find("sweep.seeds");
          if (!a || a->empty()) {
            problems.push_back({path, l, c, "sweep.seeds", "must be a non-empty list of integers"});
            continue;
          }
          for (const toml::node& s : *a) {
            auto seed = integer_value(s);
            if (!seed || *seed < 0)
              problems.push_back({path, l, c, "sweep.seeds", "seeds must be integers >= 0"});
            else
              e.seeds.push_back(std::uint64_t(*seed));
          }
          continue;
        }
        if (key == "zip") {
          std::vector<const toml::table*> groups;
          if (const toml::table* t = v.as_table()) groups.push_back(t);
          else if (const toml::array* a = v.as_array(); a && a->is_array_of_tables())
            for (const toml::node& g : *a) groups.push_back(g.as_table());
          else {
            auto [l, c] = positions.find("sweep.zip");
            problems.push_back({path, l, c, "sweep.zip", "must be a table (or array of tables) of key = [values]"});
            continue;
          }
          for (const toml::table* g : groups) {
            SweepAxis axis;
            axis.zip = true;
            std::vector<std::pair<toml::key, const toml::node*>> zipped;
            for (const auto& [zk, zv] : *g) zipped.emplace_back(zk, &zv);
            std::stable_sort(zipped.begin(), zipped.end(), [](const auto& a, const auto& b) {
              return std::pair(a.first.source().begin.line, a.first.source().begin.column) <
                     std::pair(b.first.source().begin.line, b.first.source().begin.column);
            });
            for (const auto& [zk, zvp] : zipped) {
              const toml::node& zv = *zvp;
              std::vector<const toml::node*> values;
              read_axis("sweep", "zip." + std::string(zk.str()), zv, path, positions, problems, values);
              if (!axis.values.empty() && values.size() != axis.size()) {
                auto [l, c] = positions.find("sweep.zip." + std::string(zk.str()));
                problems.push_back({path, l, c, "sweep.zip." + std::string(zk.str()),
                                    "zipped lists must have equal lengths (" + std::to_string(values.size()) +
                                        " here, " + std::to_string(axis.size()) + " before)"});
                continue;
              }
              axis.keys.push_back(std::string(zk.str()));
              axis.values.push_back(values);
            }
            if (!axis.keys.empty()) axes.push_back(axis);
          }
          continue;
        }
        SweepAxis axis;
        axis.keys.push_back(key);
        axis.values.emplace_back();
        read_axis("sweep", key, v, path, positions, problems, axis.values[0]);
        if (!axis.values[0].empty()) axes.push_back(axis);
      }
    }
  }
  // ---- the tuning grid: axes like the sweep's, searched for each sweep point
  if (const toml::node* tune_node = doc.get("tune")) {
    const toml::table* tune = tune_node->as_table();
    if (!tune) {
      auto [l, c] = positions.find("tune");
      problems.push_back({path, l, c, "tune", "must be a table of key = [values] to search per sweep point"});
    } else {
      std::vector<std::pair<std::string, const toml::node*>> entries;
      for (const auto& [k, v] : *tune) entries.emplace_back(std::string(k.str()), &v);
      std::stable_sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
        return positions.find("tune." + a.first) < positions.find("tune." + b.first);
      });
      for (const auto& [tuned_key, node] : entries) {
        const std::string key = tuned_key;  // (Clang 14 cannot capture a structured binding)
        auto [l, c] = positions.find("tune." + key);
        const bool swept = std::any_of(axes.begin(), axes.end(), [&](const SweepAxis& a) {
          return std::find(a.keys.begin(), a.keys.end(), key) != a.keys.end();
        });
        if (swept) {
          problems.push_back({path, l, c, "tune." + key,
                              "is also swept: a key is either swept (its values compared) or tuned (the best "
                              "value chosen for each sweep point), not both"});
          continue;
        }
        if (key == "seeds" || key == "zip" || key == "plugins" || key == "plugins_sha256") {
          problems.push_back({path, l, c, "tune." + key,
                              "cannot be tuned: [tune] lists trial keys (e.g. \"train.lr\" = [3e-4, 1e-3]); "
                              "seeds come from sweep.seeds"});
          continue;
        }
        SweepAxis axis;
        axis.tune = true;
        axis.keys.push_back(key);
        axis.values.emplace_back();
        read_axis("tune", key, *node, path, positions, problems, axis.values[0]);
        if (!axis.values[0].empty()) axes.push_back(axis);
      }
    }
  }
  if (!problems.empty()) throw ConfigError(problems);
  std::vector<AxisValues> axis_values;
  for (const SweepAxis& a : axes) {
    if (a.tune) {
      e.tune_keys.push_back(a.keys.front());
      continue;
    }
    for (const std::string& k : a.keys) e.swept_keys.push_back(k);
    e.axes.push_back(a.keys);
    AxisValues v{a.keys, {}};
    for (const auto& values : a.values) {
      v.values.emplace_back();
      for (const toml::node* n : values) v.values.back().push_back(display_value(*n));
    }
    axis_values.push_back(std::move(v));
  }
  e.report = read_report_spec(doc, path, positions, axis_values, problems);
  if (!problems.empty()) throw ConfigError(problems);
  bool seeds_given = !e.seeds.empty();

  // ---- every grid point × seed, validated — after checking the count, so a typo'd
  // grid is an error rather than hours of validation.
  double trials = double(seeds_given ? e.seeds.size() : 1);  // a double: no overflow
  std::string grid;
  for (const SweepAxis& a : axes) {
    trials *= double(a.size());
    grid += std::to_string(a.size()) + " × ";
  }
  if (trials > double(kMaxTrials)) {
    auto [l, c] = positions.find("sweep");
    char count[32];
    std::snprintf(count, sizeof count, "%.4g", trials);
    throw ConfigError({{path, l, c, "sweep",
                        "expands to " + std::string(count) + " trials (" + grid +
                            std::to_string(seeds_given ? e.seeds.size() : 1) +
                            " seeds); at most " + std::to_string(kMaxTrials) +
                            " per file — split the sweep into several files"}});
  }
  const bool trial_seed_given =
      doc.get("trial_seed") ||
      std::find(e.swept_keys.begin(), e.swept_keys.end(), "trial_seed") != e.swept_keys.end();
  if (seeds_given && trial_seed_given) {
    auto [l, c] = positions.find("trial_seed");
    throw ConfigError({{path, l, c, "trial_seed",
                        "a single trial's seed cannot be combined with sweep.seeds (remove one)"}});
  }
  std::size_t points = 1;  // ≤ kMaxTrials, checked above
  for (const SweepAxis& a : axes) points *= a.size();
  toml::table base = doc;
  base.erase("sweep");
  // The sweep point each id came from: a second point giving an id already seen means
  // a swept key whose values resolve to the same trial.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> point_of_id;
  std::set<std::string> reported_keys;
  // Each problem of a grid point, with the points it arose at (in order of first
  // appearance): one that arises at every point does not depend on the swept values
  // and is reported once; others name their points.
  std::vector<std::pair<ConfigProblem, std::vector<std::string>>> point_problem_list;
  std::map<std::string, std::size_t> point_problem_index;
  FileDigests digests;  // each data file hashed once, however many grid points read it
  TaskCache tasks;      // and each distinct task built once
  for (std::size_t p = 0; p < points; ++p) {
    toml::table trial_doc = base;
    PositionIndex trial_positions = positions;
    // Every swept and tuned value of this grid point, with where the file gives it.
    std::vector<std::pair<std::string, std::string>> point;
    std::vector<std::string> point_paths;
    std::vector<bool> tuned;
    std::size_t rest = p;
    std::vector<std::size_t> index(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
      index[a] = rest % axes[a].size();
      rest /= axes[a].size();
    }
    for (std::size_t a = 0; a < axes.size(); ++a)
      for (std::size_t k = 0; k < axes[a].keys.size(); ++k) {
        const std::string& key = axes[a].keys[k];
        const toml::node& value = *axes[a].values[k][index[a]];
        std::string sweep_path = (axes[a].tune ? "tune." : axes[a].zip ? "sweep.zip." : "sweep.") + key;
        if (std::string err = set_path(trial_doc, key, value); !err.empty()) {
          auto [l, c] = positions.find(sweep_path);
          problems.push_back({path, l, c, sweep_path, err});
          continue;
        }
        trial_positions.add(value, key);  // problems in this value point at the sweep entry
        point.emplace_back(key, display_value(value));
        point_paths.push_back(sweep_path);
        tuned.push_back(axes[a].tune);
      }
    std::vector<std::pair<std::string, std::string>> swept_values, tuned_values;
    for (std::size_t k = 0; k < point.size(); ++k) (tuned[k] ? tuned_values : swept_values).push_back(point[k]);
    // Validated once per grid point; the seeds only change the trial's seed.
    std::vector<ConfigProblem> point_problems;
    TrialConfig config = read_trial_config(trial_doc, path, e.base_dir, trial_positions, point_problems, digests, &tasks);
    config.plugins = e.plugins;
    Trial labelled;
    labelled.point = point;  // swept and tuned values: where a problem arose
    for (ConfigProblem& pr : point_problems) {
      auto [it, first] = point_problem_index.emplace(pr.str(), point_problem_list.size());
      if (first) point_problem_list.push_back({pr, {}});
      point_problem_list[it->second].second.push_back(labelled.point_label());
    }
    if (!point_problems.empty()) continue;
    TrialConfig unseeded = config;  // the point: neither the seed nor the file's name
    unseeded.trial_seed = 0;
    unseeded.name.clear();
    const std::string point_id = hex_id(to_toml_string(unseeded));
    const std::string data_id = [&] {
      const toml::table resolved = to_toml(config);
      const toml::table* task = resolved["task"].as_table();
      return hex_id((task ? toml_document_text(*task) : std::string()) + "\nseed = " + std::to_string(config.data_seed));
    }();
    for (std::uint64_t seed : seeds_given ? e.seeds : std::vector<std::uint64_t>{config.trial_seed}) {
      Trial t;
      t.config = config;
      t.config.trial_seed = seed;
      t.config_toml = to_toml_string(t.config);
      t.id = hex_id(t.config_toml);
      t.point_id = point_id;
      t.data_id = data_id;
      t.point = swept_values;
      t.tune = tuned_values;
      auto [earlier, first] = point_of_id.emplace(t.id, point);
      if (first) {
        e.trials.push_back(std::move(t));
        continue;
      }
      if (point == earlier->second && reported_keys.insert("").second) {
        auto [l, col] = positions.find("sweep");
        problems.push_back({path, l, col, "sweep", "lists the same trial twice (a value or a seed repeated: " +
                                                       t.seeded_label() + ")"});
      }
      for (std::size_t k = 0; k < point.size() && k < earlier->second.size(); ++k) {
        const auto& [key, value] = point[k];
        const std::string& other = earlier->second[k].second;
        if (value == other || !reported_keys.insert(key).second) continue;
        auto [l, col] = positions.find(point_paths[k]);
        problems.push_back({path, l, col, point_paths[k],
                            "the values " + other + " and " + value + " give the same trial (" + key +
                                " is not part of a trial's identity, or both resolve to the same config); "
                                "sweep a key whose values differ"});
      }
    }
  }
  constexpr std::size_t kPointsNamed = 5;
  for (const auto& [pr, labels] : point_problem_list) {
    if (labels.size() == points) {
      problems.push_back(pr);
      continue;
    }
    for (std::size_t k = 0; k < labels.size() && k < kPointsNamed; ++k) {
      ConfigProblem at_point = pr;
      at_point.message += " (trial " + labels[k] + ")";
      if (k + 1 == kPointsNamed && labels.size() > kPointsNamed)
        at_point.message += " and " + std::to_string(labels.size() - kPointsNamed) + " more grid points";
      problems.push_back(at_point);
    }
  }
  if (!problems.empty()) throw ConfigError(problems);
  // A trial of a sweep, run again from its config.toml, keeps its place in the sweep.
  if (home)
    for (Trial& t : e.trials)
      if (auto p = home->points.find(t.id); p != home->points.end()) {
        t.point = p->second;
        e.swept_keys = home->swept_keys;
        e.axes.clear();
        for (const std::string& k : e.swept_keys) e.axes.push_back({k});
      }
  if (!e.trials.empty()) {
    if (std::string err = check_report_metric(e.report, e.trials.front().config.task.kind); !err.empty()) {
      auto [l, c] = positions.find("report.metric");
      throw ConfigError({{path, l, c, "report.metric", err}});
    }
    if (auto claim_problems = check_claims(e.report, e.trials.front().config.task.kind, path, positions);
        !claim_problems.empty())
      throw ConfigError(claim_problems);
    e.name = e.trials.front().config.name;
    e.description = e.trials.front().config.description;
  }
  if (!seeds_given) {  // each trial's own seed (trial_seed, default 0), in trial order
    for (const Trial& t : e.trials)
      if (std::find(e.seeds.begin(), e.seeds.end(), t.config.trial_seed) == e.seeds.end())
        e.seeds.push_back(t.config.trial_seed);
    if (e.seeds.empty()) e.seeds = {0};
  }
  return e;
}

Experiment load_experiment(const std::string& path, const LoadOptions& options) {
  std::vector<Override> overrides;
  if (options.quick) {
    TomlDocument parsed = parse_experiment_file(path);
    std::vector<ConfigProblem> problems;
    overrides = quick_overrides(parsed.table, path, PositionIndex(parsed), problems);
    if (!problems.empty()) throw ConfigError(problems);
  }
  for (Override& o : parse_overrides(options.overrides)) overrides.push_back(std::move(o));
  try {
    return load_experiment_with(path, options, overrides);
  } catch (const ConfigError& e) {
    if (overrides.empty()) throw;
    // A problem in a value an override set is the override's, not the file's line.
    std::vector<ConfigProblem> problems = e.problems();
    for (ConfigProblem& p : problems)
      if (const Override* o = override_of(overrides, p.key); o && p.file == path) {
        if (!o->file.empty()) {  // a [quick] entry: its own line in the file
          p.line = o->line;
          p.column = o->column;
          p.message += " (set by " + o->origin_key + " under --quick)";
          continue;
        }
        p.file = "override '" + o->text + "'";
        p.line = p.column = 0;
      }
    throw ConfigError(problems);
  }
}

}  // namespace ablate::experiments
