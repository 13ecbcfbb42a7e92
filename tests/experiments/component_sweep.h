#pragma once
// What the sweep tests of a new component share: the model a trial builds, and a
// check that a small sweep trains every trial to a finite test loss.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "experiments/config/experiment.h"
#include "experiments/models/model_factory.h"
#include "experiments/tasks/task.h"
#include "tests/experiments/experiment_files.h"

namespace ablate::experiments::testing {

// The model trial `t` of `e` trains (its task built first, as the runner builds it).
inline TrialModel trial_model(const Experiment& e, const Trial& t) {
  std::unique_ptr<Task> task = task_registry().create(t.config.task.kind, t.config.task.options,
                                                      t.config.data_seed, e.base_dir);
  return build_model(t.config, *task);
}

// `file` passes `ablate check`, listing `trials` trials, and loads with as many.
inline Experiment checked_experiment(const std::string& cli, const std::string& file,
                                     std::size_t trials) {
  CommandResult check = run_command(cli + " check " + file);
  INFO(check.output);
  REQUIRE(check.status == 0);
  CHECK(ids_of(check.output).size() == trials);
  Experiment e = load_experiment(file);
  REQUIRE(e.trials.size() == trials);
  return e;
}

// Runs `file` (named `name`, `trials` trials) into `out` with one job: every trial
// ends ok with a finite test loss.
inline void check_sweep_trains(const std::string& cli, const std::string& file,
                               const std::string& out, const std::string& name, int trials) {
  CommandResult r = run_command(cli + " run " + file + " --out " + out + " --jobs 1 -q");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains(std::to_string(trials) + " trials (0 already done, " +
                                       std::to_string(trials) + " ok, 0 diverged, 0 failed)"));
  for (const auto& t : std::filesystem::directory_iterator(out + "/" + name + "/trials")) {
    INFO(t.path());
    const nlohmann::json s = nlohmann::json::parse(read_text((t.path() / "summary.json").string()));
    CHECK(s["status"] == "ok");
    REQUIRE(s["test"]["loss"].is_number());
    CHECK(std::isfinite(s["test"]["loss"].get<double>()));
  }
}

}  // namespace ablate::experiments::testing
