#include "experiments/config/experiment.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "experiments/config/halving_reader.h"
#include "experiments/config/overrides.h"
#include "experiments/config/quick_variant.h"
#include "experiments/config/report_reader.h"
#include "experiments/config/sweep_axes.h"
#include "experiments/config/sweep_overrides.h"
#include "experiments/config/toml_writer.h"
#include "experiments/config/trial_grid.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/file_digest.h"
#include "experiments/io/json_file.h"
#include "experiments/plugins/plugin.h"
#include "experiments/records/run_dir.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

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
  const fs::path trial_dir = file.parent_path(), trials = trial_dir.parent_path(),
                 run = trials.parent_path();
  const RunDir run_dir(run.string());
  if (file.filename() != TrialDir::kConfig || trials.filename() != RunDir::kTrials ||
      !fs::is_regular_file(run_dir.trial_index()))
    return std::nullopt;
  HomeRun home;
  home.run_dir = run.string();
  try {
    const auto index = read_json_file(run_dir.trial_index());
    home.source_dir = index.value("source_dir", "");
    home.swept_keys = index.value("swept_keys", std::vector<std::string>{});
    for (const auto& t : index.at("trials")) {
      auto& point = home.points[t.at("id").get<std::string>()];
      for (const std::string& key : home.swept_keys)
        if (t.at("point").contains(key))
          point.emplace_back(key, t.at("point").at(key).get<std::string>());
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
std::vector<PluginRef> load_plugins(const toml::table& doc, const std::string& path,
                                    const std::string& base_dir, const PositionIndex& positions,
                                    const std::vector<std::string>& from_command_line,
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
      problem(key, std::string("must be a list of ") +
                       (out.data() == listed.data() ? "paths to plugin files" : "SHA-256 digests"));
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
        problem("plugins_sha256",
                absolute + " has changed since this config was resolved (SHA-256 " +
                    recorded[i].substr(0, 12) + "… recorded, " + now.substr(0, 12) +
                    "… now); delete this key to run with the new build");
        continue;
      }
    }
    load(listed[i], resolved, [&](const std::string& why) { problem("plugins", why); });
  }
  for (const std::string& given : from_command_line) {
    const std::string absolute = std::filesystem::absolute(given).lexically_normal().string();
    load(absolute, absolute, [&](const std::string& why) {
      problems.push_back({"--plugin", 0, 0, "", why});
    });
  }
  return plugins;
}

namespace {

void throw_if_any(const std::vector<ConfigProblem>& problems) {
  if (!problems.empty()) throw ConfigError(problems);
}

// The experiment of `path`, before it is read: where its relative paths resolve (and,
// for a trial's config.toml in its run directory, that run).
Experiment located(const std::string& path, const LoadOptions& options,
                   const std::optional<HomeRun>& home) {
  Experiment e;
  e.file = path;
  e.base_dir = std::filesystem::path(path).parent_path().string();
  if (e.base_dir.empty()) e.base_dir = ".";
  if (home) {
    e.home_run_dir = home->run_dir;
    if (!home->source_dir.empty()) e.base_dir = home->source_dir;
  }
  if (!options.base_dir.empty()) e.base_dir = options.base_dir;
  return e;
}

// The overrides applied to the file's document (sweep_overrides.h), its grid tables'
// dotted keys flattened first; without --quick its [quick] table is only checked for
// its shape. Every problem is appended; a note for each axis an override replaced.
void apply_overrides(toml::table& doc, const std::string& path, const PositionIndex& positions,
                     const std::vector<Override>& overrides, bool quick,
                     std::vector<ConfigProblem>& problems, std::vector<std::string>& notes) {
  flatten_grid_tables(doc);
  for (const Override& o : overrides)
    if (std::string err = apply_to_document(doc, o, notes); !err.empty())
      problems.push_back({"override '" + o.text + "'", 0, 0, "", err});
  if (!quick) check_quick_table(doc, path, positions, problems);
}

// Records the axes' keys in `e`: the swept keys (by axis) and the tuned ones. Returns
// the swept axes' values as point labels show them, which [report] picks points by.
std::vector<AxisValues> record_axes(Experiment& e, const std::vector<SweepAxis>& axes) {
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
  return axis_values;
}

// A trial of a sweep, run again from its config.toml, keeps its place in the sweep.
void keep_place_in_home_sweep(Experiment& e, const HomeRun& home) {
  for (Trial& t : e.trials)
    if (auto p = home.points.find(t.id); p != home.points.end()) {
      t.point = p->second;
      e.swept_keys = home.swept_keys;
      e.axes.clear();
      for (const std::string& k : e.swept_keys) e.axes.push_back({k});
    }
}

// [report]'s metric and claims must be the task's (known once a trial is read).
void check_report_for_task(const ReportSpec& report, const std::string& task_kind,
                           const std::string& path, const PositionIndex& positions) {
  if (std::string err = check_report_metric(report, task_kind); !err.empty()) {
    auto [l, c] = positions.find("report.metric");
    throw ConfigError({{path, l, c, "report.metric", err}});
  }
  if (auto claim_problems = check_claims(report, task_kind, path, positions);
      !claim_problems.empty())
    throw ConfigError(claim_problems);
}

// Without sweep.seeds: each trial's own seed (trial_seed, default 0), in trial order.
std::vector<std::uint64_t> trial_seeds(const std::vector<Trial>& trials) {
  std::vector<std::uint64_t> seeds;
  for (const Trial& t : trials)
    if (std::find(seeds.begin(), seeds.end(), t.config.trial_seed) == seeds.end())
      seeds.push_back(t.config.trial_seed);
  if (seeds.empty()) seeds = {0};
  return seeds;
}

// An adaptive design may grow to every point × max_seeds: within the grid's limit.
void check_adaptive_budget(const Experiment& e, const std::string& path,
                           const PositionIndex& positions) {
  std::set<std::string> points;
  for (const Trial& t : e.trials) points.insert(t.point_id);
  // With tune.seeds the trials are the tuning stage's; each point then runs one setting.
  const double most = double(points.size()) * double(e.adaptive->max_seeds) +
                      (e.tune_seeds.empty() ? 0.0 : double(e.trials.size()));
  if (most <= double(kMaxTrials)) return;
  auto [l, c] = positions.find("sweep.adaptive.max_seeds");
  throw ConfigError(
      {{path, l, c, "sweep.adaptive.max_seeds",
        "lets the sweep grow to " + std::to_string(std::int64_t(most)) + " trials; at most " +
            std::to_string(kMaxTrials) + " per file — lower the budget or split the sweep"}});
}

// [report] lr_sensitivity names a [tune] key whose every setting runs on every seed
// (analysis/lr_sensitivity.h): a tuning stage would leave the sweep's seeds one setting.
void check_lr_sensitivity(const Experiment& e, const std::vector<SweepAxis>& axes,
                          const std::string& path, const PositionIndex& positions,
                          std::vector<ConfigProblem>& problems) {
  const std::string& key = e.report.lr_sensitivity;
  if (key.empty()) return;
  auto [l, c] = positions.find("report.lr_sensitivity");
  auto axis = std::find_if(axes.begin(), axes.end(), [&](const SweepAxis& a) {
    return a.tune && a.keys.size() == 1 && a.keys[0] == key;
  });
  if (axis == axes.end())
    problems.push_back({path, l, c, "report.lr_sensitivity",
                        "\"" + key +
                            "\" is not a [tune] key; LR sensitivity is taken over a "
                            "tuned key's settings (e.g. [tune] \"train.lr\" = [3e-4, 1e-3, 3e-3, "
                            "1e-2])"});
  else if (axis->size() < 3)
    problems.push_back({path, l, c, "report.lr_sensitivity",
                        "needs at least 3 settings of " + key +
                            " (the paper sweeps 7 across "
                            "three orders of magnitude)"});
  else if (!e.tune_seeds.empty())
    problems.push_back({path, l, c, "report.lr_sensitivity",
                        "needs every setting on every seed: remove tune.seeds (a tuning stage "
                        "runs the sweep's seeds at one setting)"});
}

// Prints the notes of `e` from the `first` on, when asked to.
void print_notes(const Experiment& e, std::size_t first, const LoadOptions& options) {
  if (!options.print_notes) return;
  for (std::size_t i = first; i < e.notes.size(); ++i) std::cerr << "note: " << e.notes[i] << "\n";
}

// The file read in stages, like a basic sweeper: overrides, plugins, the axes of
// [sweep] and [tune], [report], then every grid point × seed validated. Each stage
// throws every problem it found before the next one starts.
Experiment load_experiment_with(const std::string& path, const LoadOptions& options,
                                const std::vector<Override>& overrides) {
  const std::optional<HomeRun> home = home_run_of_trial_config(path);
  Experiment e = located(path, options, home);
  TomlDocument parsed = parse_experiment_file(path);
  PositionIndex positions(parsed);
  std::vector<ConfigProblem> problems;
  apply_overrides(parsed.table, path, positions, overrides, options.quick, problems, e.notes);
  throw_if_any(problems);
  print_notes(e, 0, options);
  e.overrides = overrides;
  const toml::table& doc = parsed.table;
  // The plugins, before anything names their components.
  e.plugins = load_plugins(doc, path, e.base_dir, positions, options.plugins, problems);
  throw_if_any(problems);
  e.declares_grid = doc.contains("sweep") || doc.contains("tune");
  const SweepAxes sweep = read_sweep_axes(doc, path, positions, problems);
  throw_if_any(problems);
  e.seeds = sweep.seeds;
  e.tune_seeds = sweep.tune_seeds;
  e.adaptive = sweep.adaptive;
  e.halving = sweep.halving;
  e.report = read_report_spec(doc, path, positions, record_axes(e, sweep.axes), problems);
  check_lr_sensitivity(e, sweep.axes, path, positions, problems);
  throw_if_any(problems);
  if (std::find(e.swept_keys.begin(), e.swept_keys.end(), "seed") != e.swept_keys.end()) {
    e.notes.push_back(
        "the data seed `seed` is swept: each of its values has its own task data and held-out "
        "splits, so points are compared on different test sets");
    print_notes(e, e.notes.size() - 1, options);
  }
  e.trials = expand_grid({doc, path, positions, e.base_dir, e.plugins}, sweep.axes,
                         e.tune_seeds.empty() ? sweep.seeds : e.tune_seeds, problems);
  check_halving_rungs(e, path, positions, problems);
  throw_if_any(problems);
  if (e.adaptive) check_adaptive_budget(e, path, positions);
  if (home) keep_place_in_home_sweep(e, *home);
  if (!e.trials.empty()) {
    check_report_for_task(e.report, e.trials.front().config.task.kind, path, positions);
    e.name = e.trials.front().config.name;
    e.description = e.trials.front().config.description;
  }
  if (sweep.seeds.empty()) e.seeds = trial_seeds(e.trials);
  return e;
}

}  // namespace

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
