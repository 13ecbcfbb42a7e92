// train.recompute: the same experiment with it on lists the same trials under the same
// ids (the key is InIdentity::never) and produces the same results — results.csv,
// every summary.json and metrics.jsonl (timings aside), checkpoints and attention maps —
// for seq2seq and decoder-only models, with LayerNorm and BatchNorm, dropout and both
// telemetries on.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <regex>

#include "experiments/config/experiment.h"
#include "experiments/models/model_factory.h"
#include "experiments/tasks/task.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

std::string experiment(bool recompute) {
  std::string toml = tiny_experiment("recompute");
  toml.replace(toml.find("layers = 1\n"), 11,
               "layers = 2\ndropout = 0.1\n[model.attention]\ndropout = 0.1\n");
  return toml + "checkpoint = true\nattention_telemetry = true\nnorm_telemetry = true\n" +
         (recompute ? "recompute = true\n" : "") +
         "\n[sweep]\n\"model.norm.kind\" = [\"layer\", \"batch\"]\n\"model.kind\" = [\"seq2seq\", "
         "\"decoder\"]\n";
}

std::string without_seconds(const std::string& jsonl) {
  return std::regex_replace(jsonl, std::regex("\"seconds\":[-0-9.e+]+"), "");
}

}  // namespace

TEST_CASE("train.recompute = true: the same trial ids and the same results as without",
          "[recompute][e2e]") {
  ScratchDir dir("recompute_trial");
  const std::string off = dir.file("off.toml", experiment(false)),
                    on = dir.file("on.toml", experiment(true));
  const std::vector<std::string> ids = ids_of(run_command(kCli + " check " + off).output);
  REQUIRE(ids.size() == 4);
  CHECK(ids_of(run_command(kCli + " check " + on).output) == ids);
  // The key reaches the models: every stack of every trial's model recomputes (and none
  // without it), so the equal results below are not the same run twice.
  for (const auto& [file, recompute] : {std::pair{off, false}, std::pair{on, true}}) {
    const Experiment e = load_experiment(file);
    for (const Trial& t : e.trials) {
      CHECK(t.config.train.recompute == recompute);
      std::unique_ptr<Task> task = task_registry().create(t.config.task.kind, t.config.task.options,
                                                          t.config.data_seed, e.base_dir);
      TrialModel model = build_model(t.config, *task);
      for (auto& [name, m] : model.module->named_modules()) {
        if (auto* encoder = dynamic_cast<nn::TransformerEncoder*>(m))
          CHECK(encoder->recompute() == recompute);
        if (auto* decoder = dynamic_cast<nn::TransformerDecoder*>(m))
          CHECK(decoder->recompute() == recompute);
      }
    }
  }

  for (const auto& [file, out] :
       {std::pair{off, dir.str() + "/off"}, std::pair{on, dir.str() + "/on"}}) {
    CommandResult r = run_command(kCli + " run " + file + " --out " + out + " --jobs 1 --quiet");
    INFO(r.output);
    REQUIRE(r.status == 0);
  }
  const std::string a = dir.str() + "/off/recompute", b = dir.str() + "/on/recompute";
  CHECK(results_without_timings(read_text(a + "/results.csv")) ==
        results_without_timings(read_text(b + "/results.csv")));
  CHECK(summaries_differing(a, b).empty());
  for (const std::string& id : ids) {
    INFO("trial " << id);
    const std::string ta = a + "/trials/" + id, tb = b + "/trials/" + id;
    REQUIRE(fs::exists(tb + "/summary.json"));
    CHECK(without_seconds(read_text(ta + "/metrics.jsonl")) ==
          without_seconds(read_text(tb + "/metrics.jsonl")));
    CHECK(read_text(ta + "/checkpoint.safetensors") == read_text(tb + "/checkpoint.safetensors"));
    CHECK(read_text(ta + "/attention.json") == read_text(tb + "/attention.json"));
  }
}
