#include "experiments/study/study_runner.h"

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "experiments/config/experiment.h"
#include "experiments/config/setting_keys.h"
#include "experiments/config/toml_reader.h"
#include "experiments/io/atomic_file.h"
#include "experiments/runner/experiment_runner.h"
#include "experiments/runner/listed_trials.h"
#include "experiments/study/gradient_study.h"
#include "experiments/study/study_report.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool is_study_file(const std::string& path) {
  try {
    return parse_experiment_file(path).table.get("study") != nullptr;
  } catch (const ConfigError&) {
    return false;  // load_experiment reports why
  }
}

namespace {

struct StudyConfig {
  std::string name, description;
  bool literal = true, corrected = true, attention = true, training = true;
  study::AttentionStudyOptions attention_options;
};

StudyConfig read_study(const std::string& path) {
  TomlDocument parsed = parse_experiment_file(path);
  const toml::table& doc = parsed.table;
  PositionIndex positions(parsed);
  std::vector<ConfigProblem> problems;
  StudyConfig c;
  TomlReader top(&doc, "", path, problems, positions);
  c.name = top.required_string("name");
  c.description = top.string("description", "");
  TomlReader s = top.child(top.table("study"), "study");
  StudySettings settings;  // the declared keys (config/setting_keys.h)
  read_setting_keys(s, settings);
  TomlReader a = s.child(s.table("attention"), "attention");
  read_setting_keys(a, settings);
  c.literal = settings.literal;
  c.corrected = settings.corrected;
  c.training = settings.training;
  c.attention = settings.attention;
  if (const toml::node* dk = a.node("d_k")) {
    const toml::array* list = dk->as_array();
    c.attention_options.d_k.clear();
    if (!list || list->empty())
      a.problem("d_k", "must be a non-empty list of integers");
    else
      for (const toml::node& v : *list) {
        auto d = integer_value(v);
        if (!d || *d < 1 || *d > 65536) {
          a.problem("d_k", "entries must be integers from 1 to 65536");
          break;
        }
        c.attention_options.d_k.push_back(*d);
      }
  }
  c.attention_options.length = settings.attention_length;
  c.attention_options.seeds = settings.attention_seeds;
  c.attention_options.seed =
      std::uint64_t(top.integer("seed", 0, 0, std::numeric_limits<std::int64_t>::max()));
  a.finish();
  s.finish();
  // The rest of the file (task, model, train, sweep) is the training part's; its own
  // validation (load_experiment) checks it.
  if (!problems.empty()) throw ConfigError(problems);
  return c;
}

}  // namespace

StudySummary run_study(const std::string& path, const RunOptions& options,
                       const std::string& only_ids) {
  StudyConfig c = read_study(path);
  Experiment training;
  if (c.training) {
    training = load_experiment(path, load_options(options));  // validate everything before running
    if (!only_ids.empty()) training = only_listed_trials(training, only_ids);
  }
  StudySummary summary;
  summary.run_dir = options.out + "/" + c.name;
  fs::create_directories(summary.run_dir);

  json study{{"name", c.name}, {"description", c.description}};
  if (c.literal) study["literal"] = study::literal_part(DType::f64);
  if (c.corrected) study["corrected"] = study::corrected_part(DType::f64);
  if (c.attention) study["attention"] = study::attention_part(c.attention_options);
  if (c.training) {
    summary.training = run_experiment(training, options);
    summary.training_ran = true;
    study["training"] = training_summary(summary.run_dir);
  }
  write_file_atomically(summary.run_dir + "/study.json", study.dump(2) + "\n");
  write_study_report(summary.run_dir, study);
  return summary;
}

}  // namespace ablate::experiments
