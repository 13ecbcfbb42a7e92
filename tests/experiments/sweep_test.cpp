// Sweep expansion: the grid is the product of the swept keys (first key slowest),
// zip groups vary together, seeds repeat every point, and trial ids are stable hashes
// of the resolved config.
#include <catch2/catch.hpp>
#include <set>

#include "experiments/config/experiment.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

TEST_CASE("grid × zip × seeds expands in order", "[sweep]") {
  ScratchDir dir("sweep_grid");
  Experiment e = load_experiment(
      dir.file("exp.toml",
               tiny_experiment() +
                   "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\", \"identity\"]\n"
                   "\"model.attention.scale\" = [\"sqrt_dk\", 0.5]\nseeds = [4, 5]\n"
                   "[sweep.zip]\n\"model.d_model\" = [8, 16]\n\"model.d_ff\" = [16, 32]\n"));
  REQUIRE(e.trials.size() == 3 * 2 * 2 * 2);
  CHECK(e.swept_keys == std::vector<std::string>{"model.attention.qk", "model.attention.scale",
                                                 "model.d_model", "model.d_ff"});
  CHECK(e.trials[0].point_label() ==
        "model.attention.qk=separate model.attention.scale=sqrt_dk model.d_model=8 model.d_ff=16");
  CHECK(e.trials[0].config.trial_seed == 4);
  CHECK(e.trials[1].config.trial_seed == 5);
  CHECK(e.trials[2].config.model.transformer.d_model == 16);
  CHECK(e.trials[2].config.model.transformer.d_ff == 32);
  const TrialConfig& last = e.trials.back().config;
  CHECK(last.model.transformer.attention.qk.kind == "identity");
  CHECK(last.model.transformer.attention.scale.kind == "constant");
  CHECK(last.model.transformer.attention.scale.options.get_float("value") == 0.5);
  std::set<std::string> ids;
  for (const Trial& t : e.trials) ids.insert(t.id);
  CHECK(ids.size() == e.trials.size());
}

TEST_CASE("trial ids depend on the resolved config only", "[sweep]") {
  ScratchDir dir("sweep_ids");
  Experiment a = load_experiment(dir.file("a.toml", tiny_experiment()));
  // The same trial written differently (explicit defaults, another description): same id.
  Experiment b = load_experiment(dir.file(
      "b.toml", tiny_experiment() +
                    "\n[model.attention]\nqk = { kind = \"separate\" }\nscale = \"sqrt_dk\"\n"));
  CHECK(a.trials[0].id == b.trials[0].id);
  Experiment c =
      load_experiment(dir.file("c.toml", "description = \"other words\"\n" + tiny_experiment()));
  CHECK(a.trials[0].id == c.trials[0].id);
  Experiment d = load_experiment(dir.file("d.toml", tiny_experiment() + "label_smoothing = 0.1\n"));
  CHECK(a.trials[0].id != d.trials[0].id);
  CHECK(a.trials[0].id.size() == 16);
}

TEST_CASE("sweeping a key below a component written as a name turns it into a table", "[sweep]") {
  ScratchDir dir("sweep_component");
  Experiment e = load_experiment(dir.file(
      "exp.toml", tiny_experiment() +
                      "\n[model.norm]\nkind = \"rms\"\n[sweep]\n\"model.norm.eps\" = [1e-6, 1e-3]\n"
                      "\"model.positions.kind\" = [\"rotary\", \"alibi\"]\n"));
  REQUIRE(e.trials.size() == 4);
  CHECK(e.trials[0].config.model.transformer.norm.kind == "rms");
  CHECK(e.trials[1].config.model.transformer.positions.kind == "alibi");
  CHECK(e.trials[2].config.model.transformer.norm.options.get_float("eps") == 1e-3);
}
