// The dyt norm and the qk_norm attention.qk kind from an experiment file: a 2 × 2 sweep
// of model.norm.kind = layer | dyt and model.attention.qk = separate | qk_norm passes
// `ablate check`, every trial's model holds the new components' parameters, and the
// sweep trains a few steps to finite losses.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include "tests/experiments/component_sweep.h"

namespace {

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

// Which of the new components' parameters a trial's model holds.
struct NewParameters {
  bool alpha = false;   // dyt's α
  bool q_norm = false;  // qk_norm's LayerNorm of the queries
};

NewParameters new_parameters(const Experiment& e, const Trial& t) {
  TrialModel model = trial_model(e, t);
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
  const Experiment e = checked_experiment(cli, file, 4);
  for (const Trial& t : e.trials) {
    INFO("norm " << t.config.model.transformer.norm.kind << ", qk "
                 << t.config.model.transformer.attention.qk.kind);
    NewParameters found = new_parameters(e, t);
    CHECK(found.alpha == (t.config.model.transformer.norm.kind == "dyt"));
    CHECK(found.q_norm == (t.config.model.transformer.attention.qk.kind == "qk_norm"));
  }

  check_sweep_trains(cli, file, dir.str(), "variants", 4);
}
