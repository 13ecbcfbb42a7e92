// The dyt norm and the qk_norm attention.qk kind from an experiment file: a 2 × 2 sweep
// of model.norm.kind = layer | dyt and model.attention.qk = separate | qk_norm passes
// `ablate check`, every trial's model holds the new components' parameters, and the
// sweep trains a few steps to finite losses.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "experiments/config/experiment.h"
#include "experiments/models/model_factory.h"
#include "experiments/tasks/task.h"
#include "tests/experiments/experiment_files.h"

namespace {

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

// Which of the new components' parameters a trial's model holds.
struct NewParameters {
  bool alpha = false;   // dyt's α
  bool q_norm = false;  // qk_norm's LayerNorm of the queries
};

NewParameters new_parameters(const Experiment& e, const Trial& t) {
  std::unique_ptr<Task> task = task_registry().create(t.config.task.kind, t.config.task.options,
                                                      t.config.data_seed, e.base_dir);
  TrialModel model = build_model(t.config, *task);
  NewParameters found;
  for (const auto& [name, p] : model.module->named_parameters()) {
    found.alpha |= name.ends_with(".alpha");
    found.q_norm |= name.find(".q_norm.") != std::string::npos;
  }
  return found;
}

}  // namespace

TEST_CASE("a sweep over dyt and qk_norm checks, builds both components and trains",
          "[dyt_qk_norm][e2e]") {
  ScratchDir dir("dyt_qk_norm_sweep");
  const std::string file =
      dir.file("variants.toml", with_steps(tiny_experiment("variants"), 10) +
                                    "\n[sweep]\n\"model.norm.kind\" = [\"layer\", \"dyt\"]\n"
                                    "\"model.attention.qk\" = [\"separate\", \"qk_norm\"]\n");
  const std::string cli = ABLATE_CLI;
  CommandResult check = run_command(cli + " check " + file);
  INFO(check.output);
  REQUIRE(check.status == 0);
  CHECK(ids_of(check.output).size() == 4);

  const Experiment e = load_experiment(file);
  REQUIRE(e.trials.size() == 4);
  for (const Trial& t : e.trials) {
    INFO("norm " << t.config.model.transformer.norm.kind << ", qk "
                 << t.config.model.transformer.attention.qk.kind);
    NewParameters found = new_parameters(e, t);
    CHECK(found.alpha == (t.config.model.transformer.norm.kind == "dyt"));
    CHECK(found.q_norm == (t.config.model.transformer.attention.qk.kind == "qk_norm"));
  }

  CommandResult r = run_command(cli + " run " + file + " --out " + dir.str() + " --jobs 1 -q");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("4 trials (0 already done, 4 ok, 0 diverged, 0 failed)"));
  for (const auto& t : std::filesystem::directory_iterator(dir.str() + "/variants/trials")) {
    INFO(t.path());
    const nlohmann::json s = nlohmann::json::parse(read_text((t.path() / "summary.json").string()));
    CHECK(s["status"] == "ok");
    REQUIRE(s["test"]["loss"].is_number());
    CHECK(std::isfinite(s["test"]["loss"].get<double>()));
  }
}
