// The training telemetry of experiments/runner/initial_gradients.h and norm_telemetry.h
// end to end: what summary.json, metrics.jsonl, results.csv and summary.md hold, and
// that neither key changes a trial's id at its default.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "experiments/config/experiment.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;
using Catch::Detail::Approx;

namespace {

const std::string kCli = ABLATE_CLI;

std::vector<json> jsonl(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

std::vector<std::string> trial_dirs(const std::string& run_dir) {
  std::vector<std::string> out;
  for (const auto& d : fs::directory_iterator(run_dir + "/trials"))
    out.push_back(d.path().string());
  return out;
}

}  // namespace

TEST_CASE("the gradient norms at initialisation are the first step's, before clipping",
          "[telemetry][e2e]") {
  ScratchDir dir("telemetry_init");
  // Evaluating every step: metrics.jsonl's first record holds step 1's norms too.
  std::string toml = tiny_experiment("init", "clip_grad_norm = 0.01\n");
  toml.replace(toml.find("steps = 30"), 10, "steps = 3");
  toml.replace(toml.find("eval_every = 10"), 15, "eval_every = 1");
  toml.replace(toml.find("layers = 1\n"), 11, "layers = 2\n");
  REQUIRE(
      run_command(kCli + " run " + dir.file("exp.toml", toml) + " --out " + dir.str() + " --quiet")
          .status == 0);
  const std::string trial = trial_dirs(dir.str() + "/init").at(0);
  const json summary = json::parse(read_text(trial + "/summary.json"));
  const json first = jsonl(read_text(trial + "/metrics.jsonl")).at(0);
  REQUIRE(first.at("step") == 1);
  CHECK(summary.at("init_grad_norm") == first.at("grad_norm"));  // bit for bit
  CHECK(summary.at("init_grad_norm").get<double>() > 0.01);      // not the clipped norm
  CHECK(summary.at("init_grad_norms") == first.at("grad_norms"));
  double squares = 0;
  for (const json& n : summary.at("init_grad_norms")) squares += n.get<double>() * n.get<double>();
  CHECK(std::sqrt(squares) == Approx(summary.at("init_grad_norm").get<double>()).epsilon(1e-9));
  for (const char* group : {"encoder.layers.0", "encoder.layers.1", "decoder.layers.1", "output"})
    CHECK(summary.at("init_grad_norms").contains(group));
  CHECK_FALSE(summary.contains("norm_drift"));  // off by default

  // results.csv: the global norm and, per stack of two layers, the last layer's over the first's.
  const std::string csv = read_text(dir.str() + "/init/results.csv");
  CHECK_THAT(csv, Catch::Contains(",init_grad_norm,init_grad_ratio_decoder,init_grad_ratio_encoder,"
                                  "attention_path,gemm_backend,precision,params,"));
  CHECK_THAT(csv, !Catch::Contains("bn_mean_drift"));
  const json& g = summary.at("init_grad_norms");
  std::ostringstream ratio;  // the cell, as results.csv writes numbers
  ratio << "," << std::setprecision(6)
        << g.at("encoder.layers.1").get<double>() / g.at("encoder.layers.0").get<double>() << ",";
  CHECK_THAT(csv, Catch::Contains(ratio.str()));
  // The summary.md table is opt-in: [report] grad_norms_at_init.
  CHECK_THAT(read_text(dir.str() + "/init/summary.md"),
             !Catch::Contains("Gradient norms at initialisation"));
}

TEST_CASE("summary.md's gradient norms at initialisation, per point at its chosen setting",
          "[telemetry][e2e]") {
  ScratchDir dir("telemetry_init_report");
  std::string toml = tiny_experiment("points");
  toml.replace(toml.find("layers = 1\n"), 11, "layers = 2\n");
  toml +=
      "\n[sweep]\n\"model.norm.placement\" = [\"post\", \"pre\"]\nseeds = [0, 1]\n"
      "[tune]\n\"train.lr\" = [3e-3, 1e-2]\n[report]\ngrad_norms_at_init = true\n";
  const std::string file = dir.file("exp.toml", toml);
  // [report] is not part of any trial's id.
  std::string plain = toml;
  plain.erase(plain.find("[report]"));
  CHECK(load_experiment(file).trials.at(0).id ==
        load_experiment(dir.file("plain.toml", plain)).trials.at(0).id);
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + " --quiet").status == 0);
  const std::string md = read_text(dir.str() + "/points/summary.md");
  INFO(md);
  const std::size_t at = md.find("## Gradient norms at initialisation");
  REQUIRE(at != std::string::npos);
  const std::string section = md.substr(at);
  // Groups by name, each stack's layers in depth order; the pre-LN points' final norms too.
  CHECK_THAT(section,
             Catch::Contains(
                 "| model.norm.placement | seeds | global | decoder.layers.0 | decoder.layers.1 |"
                 " decoder.norm | encoder.layers.0 | encoder.layers.1 | encoder.norm | output |"));
  CHECK_THAT(section, Catch::Contains("| decoder last/first | encoder last/first |"));
  // One row per point, over its 2 seeds at the chosen learning rate (not all 4 trials).
  CHECK_THAT(section, Catch::Contains("| post | 2 |"));
  CHECK_THAT(section, Catch::Contains("| pre | 2 |"));
}

TEST_CASE("train.norm_telemetry: BatchNorm drift per evaluation, over training, in the reports",
          "[telemetry][e2e]") {
  ScratchDir dir("telemetry_norm");
  const std::string toml = tiny_experiment("drift", "norm_telemetry = true\n") +
                           "\n[sweep]\n\"model.norm.kind\" = [\"batch\", \"layer\"]\n";
  REQUIRE(
      run_command(kCli + " run " + dir.file("exp.toml", toml) + " --out " + dir.str() + " --quiet")
          .status == 0);
  int batch_trials = 0;
  for (const std::string& trial : trial_dirs(dir.str() + "/drift")) {
    const json summary = json::parse(read_text(trial + "/summary.json"));
    const std::vector<json> records = jsonl(read_text(trial + "/metrics.jsonl"));
    const bool batch = summary.at("point").at("model.norm.kind") == "batch";
    INFO(trial);
    // LayerNorm has no batch statistics: no entry at all, not a zero.
    CHECK(summary.contains("norm_drift") == batch);
    for (const json& r : records) CHECK(r.contains("norm_drift") == batch);
    if (!batch) continue;
    ++batch_trials;
    const json& training = summary.at("norm_drift").at("training");
    REQUIRE(training.size() == 5);  // encoder norm1, norm2; decoder norm1..3
    for (const json& m : training) {
      CHECK(m.at("mean").get<double>() > 0);
      CHECK(std::isfinite(m.at("var").get<double>()));
    }
    CHECK(summary.at("norm_drift").at("last_interval") == records.back().at("norm_drift"));
    // The running statistics start at (0, 1), far from the first batches: the first
    // interval's drift is above the last one's.
    const json& first = records.front().at("norm_drift").at("encoder.layers.0.norm1");
    const json& last = records.back().at("norm_drift").at("encoder.layers.0.norm1");
    CHECK(first.at("mean").get<double>() > last.at("mean").get<double>());
  }
  CHECK(batch_trials == 1);
  const std::string csv = read_text(dir.str() + "/drift/results.csv");
  CHECK_THAT(csv, Catch::Contains(",bn_mean_drift,bn_var_drift,bn_mean_drift_last,bn_var_drift_"
                                  "last,attention_path,gemm_backend,precision,params,"));
  const std::string md = read_text(dir.str() + "/drift/summary.md");
  INFO(md);
  REQUIRE_THAT(md, Catch::Contains("## BatchNorm statistics drift"));
  const std::string section = md.substr(md.find("## BatchNorm statistics drift"));
  CHECK_THAT(section, Catch::Contains("| model.norm.kind | seeds | mean drift | var drift |"));
  CHECK_THAT(section, Catch::Contains("| layer | 0 | — | — | — | — |"));
}

TEST_CASE("train.norm_telemetry is false by default and left out of the resolved config then",
          "[telemetry][config]") {
  // Adding the key to every config would have renamed every existing trial.
  ScratchDir dir("telemetry_config");
  const Experiment off = load_experiment(dir.file("off.toml", tiny_experiment()));
  CHECK_FALSE(off.trials[0].config.train.norm_telemetry);
  CHECK_THAT(off.trials[0].config_toml, !Catch::Contains("norm_telemetry"));
  const Experiment off_explicit = load_experiment(
      dir.file("explicit.toml", tiny_experiment("tiny", "norm_telemetry = false\n")));
  CHECK(off_explicit.trials[0].id == off.trials[0].id);
  const Experiment on =
      load_experiment(dir.file("on.toml", tiny_experiment("tiny", "norm_telemetry = true\n")));
  CHECK_THAT(on.trials[0].config_toml, Catch::Contains("norm_telemetry = true"));
  CHECK(on.trials[0].id != off.trials[0].id);
}
