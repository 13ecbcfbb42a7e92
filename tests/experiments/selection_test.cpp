// Validation selects, test reports: a trial keeps the model of its lowest validation
// loss, evaluates the test split once with it, and saves it as its checkpoint — not
// the last model. The task here is made to overfit (targets unrelated to sources),
// so the validation loss rises again and the selected model is an early one.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "experiments/config/experiment.h"
#include "experiments/models/model_factory.h"
#include "experiments/runner/evaluation.h"
#include "experiments/runner/trial_runner.h"
#include "nn/checkpoint.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;

TEST_CASE(
    "the test split is evaluated once, with the model validation selected, which the checkpoint "
    "holds",
    "[selection][e2e]") {
  ScratchDir dir("selection");
  // 80 pairs whose targets are random: nothing generalises, so memorising the
  // training pairs makes the validation loss worse.
  std::mt19937 rng(5);
  std::string tsv;
  auto word = [&] {
    std::string w;
    for (int i = 0; i < 4; ++i) w += char('a' + rng() % 6);
    return w;
  };
  for (int i = 0; i < 80; ++i) tsv += word() + "\t" + word() + "\n";
  dir.file("pairs.tsv", tsv);
  const std::string file = dir.file(
      "exp.toml",
      "name = \"selection\"\nseed = 1\n[task]\nkind = \"text_pairs\"\npath = \"pairs.tsv\"\n"
      "validation_fraction = 0.2\ntest_fraction = 0.2\n"
      "[model]\nd_model = 32\nheads = 2\nd_ff = 64\nlayers = 1\n"
      "[train]\nsteps = 300\nbatch = 16\nlr = 3e-3\neval_every = 20\ncheckpoint = true\n");
  Experiment e = load_experiment(file);
  REQUIRE(e.trials.size() == 1);
  const Trial& trial = e.trials[0];
  const std::string trial_dir = dir.str() + "/trial";
  TrialOutcome o = run_trial(trial, e.base_dir, trial_dir);
  REQUIRE(o.status == "ok");
  REQUIRE(o.tested);
  INFO("best step " << o.best.step << " of " << o.steps);
  REQUIRE(o.best.step < o.steps);  // the scenario: validation chose an earlier model
  CHECK(o.best.loss < o.final.loss);
  CHECK(o.test.step == o.best.step);

  const nlohmann::json summary = nlohmann::json::parse(read_text(trial_dir + "/summary.json"));
  CHECK(summary["test"]["step"] == o.best.step);
  CHECK(summary["test"]["loss"].get<double>() == o.test.loss);
  CHECK(summary["test"]["standard_errors"]["loss"].get<double>() > 0);

  // The checkpoint is the selected model: loaded into a fresh model it gives the best
  // evaluation's validation loss and the test metrics, exactly.
  std::unique_ptr<Task> task = task_registry().create(
      trial.config.task.kind, trial.config.task.options, trial.config.data_seed, e.base_dir);
  TrialModel model = build_model(trial.config, *task);
  nn::Checkpoint ck = nn::load_checkpoint(*model.module, trial_dir + "/checkpoint.safetensors");
  CHECK(ck.file.metadata.at("step") == std::to_string(o.best.step));
  Evaluator evaluator(trial.config, *task, model);
  Evaluation validation = evaluator.evaluate(Split::validation);
  Evaluation test = evaluator.evaluate(Split::test);
  CHECK(validation.loss == o.best.loss);
  CHECK(test.loss == o.test.loss);
  CHECK(test.metrics == o.test.metrics);
  CHECK(test.standard_errors == o.test.standard_errors);
  // And it is not the last model: that one's validation loss was higher.
  CHECK(validation.loss != o.final.loss);
}
