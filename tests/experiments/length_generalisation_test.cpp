// Length generalisation: a symbolic task trained on some lengths and tested on others —
// training and validation only ever see the training lengths (selection must not see
// what test measures), test has its own lengths, every test metric is also reported
// per length, and the report has the by-length table, comparisons and plot. The new
// options stay out of trial ids at their defaults, so earlier results keep theirs.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <nlohmann/json.hpp>
#include <set>

#include "experiments/tasks/task.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

std::set<std::int64_t> source_lengths(const std::vector<Seq2SeqBatch>& batches) {
  std::set<std::int64_t> out;
  for (const Seq2SeqBatch& b : batches) {
    const std::int64_t B = b.src.shape()[0], S = b.src.shape()[1];
    for (std::int64_t r = 0; r < B; ++r) {
      std::int64_t n = 0;
      while (n < S && b.src.at(r * S + n) != kPad) ++n;
      out.insert(n);
    }
  }
  return out;
}

nn::Options lengths(std::int64_t test_min, std::int64_t test_max) {
  return {{"vocab", std::int64_t(6)},       {"min_length", std::int64_t(4)},
          {"max_length", std::int64_t(8)},  {"validation_size", std::int64_t(100)},
          {"test_size", std::int64_t(300)}, {"test_min_length", test_min},
          {"test_max_length", test_max}};
}

}  // namespace

TEST_CASE(
    "with test lengths of its own, a symbolic task trains and validates on the training lengths "
    "only",
    "[length]") {
  auto t = task_registry().create("reverse", lengths(9, 14), 3, "");
  CHECK(t->metrics_by_length());
  CHECK(t->max_source_length() == 14);
  CHECK(t->max_target_length() == 15);
  const auto val = source_lengths(t->evaluation_batches(Split::validation, 64));
  CHECK(*val.begin() >= 4);
  CHECK(*val.rbegin() <= 8);
  const auto test = source_lengths(t->evaluation_batches(Split::test, 64));
  CHECK(test == std::set<std::int64_t>{9, 10, 11, 12, 13, 14});
  Generator gen(1);
  std::vector<Seq2SeqBatch> train;
  for (int i = 0; i < 20; ++i) train.push_back(t->train_batch(gen, 32));
  const auto trained = source_lengths(train);
  CHECK(*trained.begin() >= 4);
  CHECK(*trained.rbegin() <= 8);

  auto same = task_registry().create("reverse", lengths(0, 0), 3, "");
  CHECK_FALSE(same->metrics_by_length());
  CHECK(same->max_source_length() == 8);
  CHECK_THROWS_WITH(task_registry().create("reverse", lengths(12, 10), 3, ""),
                    Catch::Contains("empty range"));
}

TEST_CASE(
    "test lengths are reported per length, compared and plotted, and stay out of ids at their "
    "default",
    "[length][e2e]") {
  ScratchDir dir("length_run");
  const std::string task =
      "[task]\nkind = \"reverse\"\nvocab = 6\nmin_length = 2\nmax_length = 5\nvalidation_size = "
      "32\ntest_size = 64\n";
  const std::string rest =
      "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\n"
      "[train]\nsteps = 20\nbatch = 8\nlr = 3e-3\neval_every = 10\n[sweep]\nseeds = [0, 1]\n";
  const std::string plain = dir.file("plain.toml", "name = \"plain\"\nseed = 3\n" + task + rest);
  const std::string longer =
      dir.file("longer.toml", "name = \"longer\"\nseed = 3\n" + task +
                                  "test_min_length = 6\ntest_max_length = 8\n" + rest);
  for (const std::string& f : {plain, longer}) {
    CommandResult r =
        run_command(std::string(ABLATE_CLI) + " run " + f + " --out " + dir.str() + "/runs -q");
    INFO(r.output);
    REQUIRE(r.status == 0);
  }
  auto trial_dir = [&](const std::string& run) {
    const auto index =
        nlohmann::json::parse(read_text(dir.str() + "/runs/" + run + "/trials.json"));
    return dir.str() + "/runs/" + run + "/trials/" + index["trials"][0]["id"].get<std::string>();
  };
  // At their default the options are not in the resolved config, so not in the id.
  CHECK(read_text(trial_dir("plain") + "/config.toml").find("test_min_length") ==
        std::string::npos);
  CHECK_THAT(read_text(trial_dir("longer") + "/config.toml"),
             Catch::Contains("test_max_length = 8"));

  const auto test = nlohmann::json::parse(read_text(trial_dir("longer") + "/summary.json"))["test"];
  for (const char* m :
       {"sequence_accuracy_len6", "sequence_accuracy_len8", "token_accuracy_len7", "loss_len6"})
    CHECK(test.contains(m));
  CHECK_FALSE(test.contains("sequence_accuracy_len5"));
  const auto plain_test =
      nlohmann::json::parse(read_text(trial_dir("plain") + "/summary.json"))["test"];
  CHECK_FALSE(plain_test.contains("sequence_accuracy_len2"));

  const std::string md = read_text(dir.str() + "/runs/longer/summary.md");
  CHECK_THAT(md, Catch::Contains("## Test sequence_accuracy by length"));
  CHECK_THAT(md, Catch::Contains("| point | 6 | 7 | 8 |"));
  CHECK_THAT(read_text(dir.str() + "/runs/longer/comparisons.csv"),
             Catch::Contains("sequence_accuracy_len7"));
  CHECK(std::filesystem::exists(dir.str() + "/runs/longer/plots/sequence_accuracy_by_length.gp"));
  CHECK(read_text(dir.str() + "/runs/plain/summary.md").find("by length") == std::string::npos);
}
