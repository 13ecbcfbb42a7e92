#include "experiments/runner/trained_trial.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "experiments/config/experiment.h"
#include "experiments/config/toml_reader.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/runner/checkpoint_plugins.h"
#include "nn/checkpoint.h"
#include "nn/excerpt.h"
#include "nn/finite_state.h"
#include "nn/safetensors.h"

namespace ablate::experiments {

namespace fs = std::filesystem;

std::string trial_base_dir(const std::string& checkpoint) {
  const fs::path trial_dir = fs::absolute(checkpoint).lexically_normal().parent_path();
  const fs::path trials = trial_dir.parent_path(), run = trials.parent_path();
  const RunDir run_dir(run.string());
  if (trials.filename() == RunDir::kTrials && fs::is_regular_file(run_dir.trial_index())) {
    try {
      const nlohmann::json index = read_json_file(run_dir.trial_index());
      const std::string source_dir = index.value("source_dir", "");
      if (!source_dir.empty()) return source_dir;
    } catch (const std::exception&) {
      // an unreadable index: resolve next to the checkpoint, as for any other
    }
  }
  return trial_dir.string();
}

namespace {

// A safetensors file starts with its header's length (8 bytes, little-endian) and the
// header, a JSON object: '{'.
bool looks_like_safetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char start[9] = {};
  return in.read(start, sizeof start) && start[8] == '{';
}

// The checkpoint's resolved config, from its metadata.
std::string config_metadata(const std::string& checkpoint) {
  if (!fs::is_regular_file(checkpoint))
    throw std::invalid_argument(checkpoint +
                                ": no such checkpoint file (a trial writes checkpoint.safetensors "
                                "into its directory when train.checkpoint = true)");
  nn::SafetensorsFile file;
  try {
    file = nn::read_safetensors(checkpoint);
  } catch (const std::runtime_error& e) {
    // Another file given by mistake says what it is not first, then the reader's detail
    // ("header length ... exceeds the file size ..."); a damaged safetensors file, the
    // reader's message alone.
    std::string detail = e.what();
    if (!looks_like_safetensors(checkpoint)) {
      if (detail.rfind(checkpoint + ": ", 0) == 0) detail.erase(0, checkpoint.size() + 2);
      detail = checkpoint + ": not a safetensors checkpoint (" + detail + ")";
    }
    throw std::invalid_argument(detail);
  }
  auto format = file.metadata.find("format");
  if (format == file.metadata.end() || format->second != nn::kCheckpointFormat)
    throw std::invalid_argument(checkpoint + ": not an ablate checkpoint (no metadata format = \"" +
                                nn::kCheckpointFormat + "\")");
  auto config = file.metadata.find("config");
  if (config == file.metadata.end() || config->second.empty())
    throw std::invalid_argument(
        checkpoint +
        ": the checkpoint has no `config` metadata (saved by an older "
        "ablate, or not by a trial), so its task and model cannot be rebuilt");
  return config->second;
}

// The problems of a config, with a hint where they concern the task's data. A data
// file whose content changed cannot be run on anyway: the vocabularies the model
// learned came from the old content.
[[noreturn]] void throw_config_problems(std::vector<ConfigProblem> problems,
                                        const std::string& base_dir) {
  const std::string rerun_advice = "; delete this key to run on the new content";
  for (ConfigProblem& p : problems) {
    if (p.key.rfind("task", 0) != 0) continue;
    if (std::size_t advice = p.message.find(rerun_advice); advice != std::string::npos)
      p.message = p.message.substr(0, advice) +
                  "; the model was trained on the old content (restore it, or point "
                  "--data-dir at a copy of it)";
    else
      p.message += " (relative data paths resolve against " + base_dir +
                   "; --data-dir DIR resolves them elsewhere)";
  }
  throw ConfigError(std::move(problems));
}

// What the config names that nothing registered provides ("model.norm.kind: unknown
// norm 'scale'"): what a missing plugin would have provided.
std::vector<std::string> unknown_components(const TomlDocument& doc, const std::string& where,
                                            const std::string& base_dir) {
  PositionIndex positions(doc);
  std::vector<ConfigProblem> problems;
  FileDigests digests;
  read_trial_config(doc.table, where, base_dir, positions, problems, digests);
  std::vector<std::string> out;
  for (const ConfigProblem& p : problems)
    if (p.message.find("unknown ") != std::string::npos)
      out.push_back(excerpt(p.key + ": " + p.message, 160));
  return out;
}

}  // namespace

TrainedTrial read_trained_trial_config(const std::string& checkpoint, const std::string& data_dir,
                                       const std::vector<std::string>& plugins) {
  const std::string config_text = config_metadata(checkpoint);
  TrainedTrial t;
  t.base_dir = data_dir.empty() ? trial_base_dir(checkpoint) : data_dir;
  // Problems name the checkpoint, with positions in its config.
  const std::string where = checkpoint + " [config]";
  TomlDocument doc = parse_toml_text(config_text, where);
  // Plugins come from the command line only (checkpoint_plugins.h), never from the
  // paths the config records.
  std::vector<PluginRef> loaded =
      load_checkpoint_plugins(checkpoint, recorded_plugins(doc.table, where), plugins,
                              [&] { return unknown_components(doc, where, t.base_dir); });
  PositionIndex positions(doc);
  std::vector<ConfigProblem> problems;
  FileDigests digests;
  t.config = read_trial_config(doc.table, where, t.base_dir, positions, problems, digests);
  if (!problems.empty()) throw_config_problems(std::move(problems), t.base_dir);
  t.config.plugins = std::move(loaded);
  return t;
}

TrainedTrial load_trained_trial(const std::string& checkpoint, const std::string& data_dir,
                                const std::vector<std::string>& plugins) {
  TrainedTrial t = read_trained_trial_config(checkpoint, data_dir, plugins);
  try {
    t.task = task_registry().create(t.config.task.kind, t.config.task.options, t.config.data_seed,
                                    t.base_dir);
  } catch (const std::runtime_error& e) {  // user data; the config read it a moment ago
    throw std::invalid_argument(e.what());
  }
  t.model = build_model(t.config, *t.task);
  try {
    nn::load_checkpoint(*t.model.module, checkpoint, /*strict=*/true);
  } catch (const std::runtime_error& e) {  // weights that do not fit the model its config describes
    throw std::invalid_argument(e.what());
  }
  // A NaN or an infinity would decode every input to nothing, silently. Trials that
  // diverge write no checkpoint, so this is a damaged or hand-made file.
  if (const auto bad = nn::first_non_finite(*t.model.module))
    throw std::invalid_argument(checkpoint + ": the model is not finite: " + bad->str() +
                                " (predict needs finite weights; is the file damaged?)");
  t.model.module->eval();
  return t;
}

}  // namespace ablate::experiments
