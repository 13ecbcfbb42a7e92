// A run directory's layout (experiments/records/run_dir.h) and summary.json as plain
// data (experiments/records/trial_summary.h): every path where the documentation puts
// it, a summary with every field through JSON and back unchanged, and the summary of
// every trial in every committed results folder's record.jsonl read and written back
// as it is.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/records/run_dir.h"
#include "experiments/records/trial_summary.h"
#include "tests/build_paths.h"

using namespace ablate::experiments;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A summary with every field set, as the trial runner fills it (and the telemetry a
// record derived from results.csv holds).
TrialSummary full_summary() {
  TrialSummary s;
  s.id = "0123456789abcdef";
  s.status = "diverged";
  s.error = "loss is nan at step 7";
  s.params = 1234;
  s.steps = 7;
  s.train_steps = 20;
  s.resumed_from_step = 5;
  s.diverged_at = 7;
  s.stopped_early = false;
  s.final = {6, 0.5, 0.75, 1e-3, 2.5, 1.25, {{"token_accuracy", 0.5}}, std::nullopt};
  s.best = {4, 0.25, 0.875, 2e-3, 1.5, 0.625, {}, std::nullopt};
  s.best.metrics = {{"token_accuracy", 0.75}, {"sequence_accuracy", 0.125}};
  SummaryEvaluation test;
  test.step = 4;
  test.loss = 0.375;
  test.metrics = {{"token_accuracy", 0.625}, {"loss_len4", INFINITY}};
  test.standard_errors = {{"loss", 0.03125}, {"token_accuracy", -INFINITY}};
  s.test = test;
  s.init_gradients = {true, 3.5, {{"decoder", 1.5}, {"encoder.layers.0", 2.5}}};
  s.norm_drift = BatchNormDrift{{{"encoder.norm", 0.5, 0.25}}, {{"encoder.norm", 0.125, INFINITY}}};
  s.wall_seconds = 1.5;
  s.steps_per_second = 4.75;
  s.peak_rss_mib = 96.5;
  s.seed = 3;
  s.data_seed = 18446744073709551615ull;
  s.files["task.train"] = {"data/train.tsv", std::string(64, 'a')};
  s.code_version = "v1.2-3-gabcdef0";
  s.computation =
      SummaryComputation{"mixed", "decoder.layers.0.self_attn: a mask", "blocked", "bf16"};
  s.plugins = {{"plugins/scale_norm.so", std::string(64, 'b'), "v1.2"}};
  s.point = std::map<std::string, std::string>{{"model.norm.kind", "rms"}, {"train.lr", "0.002"}};
  s.telemetry = {{"init_grad_norm", 3.5}, {"bn_mean_drift", 0.5}};
  return s;
}

// `j` without its null members, at any depth (a record derived from results.csv fills
// the fields reports read unasked with null; TrialSummary reads null as absent).
json without_nulls(const json& j) {
  if (!j.is_object()) return j;
  json out = json::object();
  for (const auto& [k, v] : j.items())
    if (!v.is_null()) out[k] = without_nulls(v);
  return out;
}

std::vector<fs::path> committed_records() {
  std::vector<fs::path> out;
  const fs::path results =
      fs::path(ABLATE_TEST_DATA_DIR) / ".." / "experiments" / "studies" / "results";
  for (const auto& f : fs::recursive_directory_iterator(results))
    if (f.path().filename() == RunDir::kRecord) out.push_back(f.path());
  return out;
}

}  // namespace

TEST_CASE("a TrialSummary with every field goes through summary.json's JSON and back unchanged") {
  const json j = to_json(full_summary());
  for (const char* key : {"id",
                          "status",
                          "error",
                          "params",
                          "steps",
                          "train_steps",
                          "resumed_from_step",
                          "diverged_at",
                          "stopped_early",
                          "final",
                          "best",
                          "test",
                          "init_grad_norm",
                          "init_grad_norms",
                          "norm_drift",
                          "wall_seconds",
                          "steps_per_second",
                          "peak_rss_mib",
                          "seed",
                          "data_seed",
                          "files",
                          "code_version",
                          "computation",
                          "plugins",
                          "point",
                          "telemetry"})
    CHECK(j.contains(key));
  CHECK(j["test"]["loss_len4"] == "inf");  // NaN and infinity as io/json_number.h writes them
  CHECK(j["test"]["standard_errors"]["token_accuracy"] == "-inf");
  CHECK(j["final"]["val_loss"] == 0.5);
  CHECK(j["test"]["loss"] == 0.375);
  CHECK(j["computation"]["attention"]["path"] == "mixed");

  const TrialSummary back = trial_summary_from_json(json::parse(j.dump(2)));
  CHECK(to_json(back).dump(2) == j.dump(2));
  CHECK(back.status == "diverged");
  CHECK(*back.data_seed == 18446744073709551615ull);
  CHECK(*back.best.step == 4);
  CHECK(back.best.metrics.at("sequence_accuracy") == 0.125);
  CHECK(std::isinf(back.test->metrics.at("loss_len4")));
  CHECK(back.init_gradients.recorded);
  CHECK(back.init_gradients.groups.size() == 2);
  CHECK(back.norm_drift->last_interval.at(0).module == "encoder.norm");
  CHECK(back.files.at("task.train").path == "data/train.tsv");
  CHECK(back.plugins.at(0).built_for == "v1.2");
  CHECK(*back.computation->gemm_backend == "blocked");
  CHECK(back.point->at("train.lr") == "0.002");
}

TEST_CASE("summary.json's optional fields are written only when present, and read back absent") {
  TrialSummary s;
  s.status = "failed";
  const json j = to_json(s);
  CHECK(j == json{{"status", "failed"}, {"final", json::object()}, {"best", json::object()}});
  const TrialSummary back = trial_summary_from_json(j);
  CHECK(!back.id);
  CHECK(!back.test);
  CHECK(!back.init_gradients.recorded);
  CHECK(!back.computation);
  CHECK(!back.point);
  CHECK_THROWS_WITH(trial_summary_from_json(json{{"status", "ok"}, {"steps", "many"}}),
                    "summary.json: steps must be an integer");
  CHECK_THROWS_WITH(
      trial_summary_from_json(json{{"status", "ok"}, {"final", {{"val_loss", "low"}}}}),
      "summary.json: final.val_loss must be a number");
}

TEST_CASE(
    "the summary of every trial in every committed results folder's record reads, and writes back "
    "as it is") {
  const std::vector<fs::path> records = committed_records();
  REQUIRE(records.size() >= 10);
  for (const fs::path& record : records) {
    std::ifstream in(record);
    std::string line;
    std::getline(in, line);  // the header: the run's index
    int trials = 0;
    while (std::getline(in, line)) {
      const json summary = json::parse(line).at("summary");
      ++trials;
      INFO(record.string() << " trial " << trials);
      TrialSummary read;
      REQUIRE_NOTHROW(read = trial_summary_from_json(summary));
      CHECK(!read.status.empty());
      CHECK(to_json(read) == without_nulls(summary));  // numbers compared by value
    }
    CHECK(trials > 0);
  }
}

TEST_CASE("a run directory's paths are the documented layout") {
  const RunDir run("runs/norms");
  CHECK(run.path() == "runs/norms");
  CHECK(run.experiment() == "runs/norms/experiment.toml");
  CHECK(run.trial_index() == "runs/norms/trials.json");
  CHECK(run.preregistration() == "runs/norms/preregistration.json");
  CHECK(run.record() == "runs/norms/record.jsonl");
  CHECK(run.results() == "runs/norms/results.csv");
  CHECK(run.comparisons() == "runs/norms/comparisons.csv");
  CHECK(run.claims() == "runs/norms/claims.csv");
  CHECK(run.summary_table() == "runs/norms/summary.md");
  CHECK(run.plots() == "runs/norms/plots");
  CHECK(run.history() == "runs/norms/history");
  CHECK(run.earlier_experiment(1) == "runs/norms/history/experiment-001.toml");
  CHECK(run.earlier_trial_index(12) == "runs/norms/history/trials-012.json");
  CHECK(run.trials() == "runs/norms/trials");
  CHECK(run.lock() == "runs/norms/.lock");
  CHECK(run.shard_lock(2, 3) == "runs/norms/.lock.shard-2-of-3");

  const TrialDir trial = run.trial("9e8563f0ffa4fd36");
  CHECK(trial.path() == "runs/norms/trials/9e8563f0ffa4fd36");
  CHECK(trial.config() == trial.path() + "/config.toml");
  CHECK(trial.metrics() == trial.path() + "/metrics.jsonl");
  CHECK(trial.summary() == trial.path() + "/summary.json");
  CHECK(trial.checkpoint() == trial.path() + "/checkpoint.safetensors");
  CHECK(trial.resume_state() == trial.path() + "/resume.safetensors");
  CHECK(trial.attention() == trial.path() + "/attention.json");
  CHECK(trial.samples() == trial.path() + "/samples.txt");
  CHECK(trial.predictions() == trial.path() + "/predictions.tsv");
  CHECK(trial.file("other.txt") == trial.path() + "/other.txt");
}
