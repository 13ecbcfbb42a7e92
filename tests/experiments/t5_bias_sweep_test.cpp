// positions "t5_bias" (T5's relative position bias) from an experiment file: a 2 × 2
// sweep of model.kind = seq2seq | decoder and model.positions.kind = alibi | t5_bias
// passes `ablate check`, every t5_bias trial's model holds its bias tables ([32,
// heads]: one per stack of a seq2seq model, one in a decoder) and no alibi trial does,
// and the sweep trains a few steps to finite losses; its options sweep like any
// component option.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <set>

#include "tests/experiments/component_sweep.h"

namespace {

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;

// The names of a trial's bias tables ("...positions.weight" of shape [buckets, heads]).
std::set<std::string> bias_tables(const Experiment& e, const Trial& t, std::int64_t buckets) {
  TrialModel model = trial_model(e, t);
  std::set<std::string> found;
  for (const auto& [name, p] : model.module->named_parameters())
    if (name.ends_with("positions.weight") && p->value.shape() == Shape{buckets, 2})
      found.insert(name);
  return found;
}

}  // namespace

TEST_CASE("a sweep over t5_bias positions checks, builds its tables and trains", "[t5_bias][e2e]") {
  ScratchDir dir("t5_bias_sweep");
  const std::string file =
      dir.file("t5.toml", with_steps(tiny_experiment("t5"), 10) +
                              "\n[sweep]\n\"model.kind\" = [\"seq2seq\", \"decoder\"]\n"
                              "\"model.positions.kind\" = [\"alibi\", \"t5_bias\"]\n");
  const std::string cli = ABLATE_CLI;
  const Experiment e = checked_experiment(cli, file, 4);
  for (const Trial& t : e.trials) {
    const std::string positions = t.config.model.transformer.positions.kind;
    const bool decoder = t.config.model.kind == "decoder";
    INFO("model " << t.config.model.kind << ", positions " << positions);
    std::set<std::string> want;
    if (positions == "t5_bias" && decoder) want = {"positions.weight"};
    if (positions == "t5_bias" && !decoder)
      want = {"source_positions.weight", "target_positions.weight"};
    CHECK(bias_tables(e, t, 32) == want);
  }

  check_sweep_trains(cli, file, dir.str(), "t5", 4);

  // Its options: set in the file and swept, each value its own trial.
  const std::string options = dir.file(
      "t5_options.toml",
      tiny_experiment("t5_options") +
          "\n[sweep]\n\"model.positions.kind\" = [\"t5_bias\"]\n"
          "\"model.positions.num_buckets\" = [8, 16]\n\"model.positions.max_distance\" = [20]\n");
  const Experiment o = checked_experiment(cli, options, 2);
  CHECK(bias_tables(o, o.trials[0], 8).size() == 2);
  CHECK(bias_tables(o, o.trials[1], 16).size() == 2);
}
