// The lm task and decoder models from TOML: every token of a held-out stream scored
// exactly once at every context, <bos> never a target, characters counted per token
// (so bits per character are comparable across tokenizations), bits per character
// equal to the loss in bits for character tokens, longer test contexts, samples, and
// every position / attention / norm variant training in a causal decoder.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/build_paths.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "experiments/tasks/task.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

void write_text(const ScratchDir& dir) {
  dir.file("train.txt", "the cat sat on the mat\nthe dog sat on the log\n\na cat and a dog\n");
  dir.file("validation.txt", "the cat and the dog\n");
  dir.file("test.txt", "a dog sat\non a mat\n");
}

std::unique_ptr<Task> lm(const ScratchDir& dir, const std::string& tokens, std::int64_t context = 4,
                         std::int64_t factor = 1) {
  nn::Options o{{"train", std::string("train.txt")},
                {"validation", std::string("validation.txt")},
                {"test", std::string("test.txt")},
                {"tokens", tokens},
                {"context", context},
                {"max_context_factor", factor},
                {"validation_tokens", std::int64_t(0)},
                {"test_tokens", std::int64_t(0)}};
  return task_registry().create("lm", o, 1, dir.str());
}

struct Scored {
  std::int64_t targets = 0, characters = 0;
  std::vector<std::int32_t> sequence;  // the targets in order
};

Scored scored(const Task& t, Split split, std::int64_t context) {
  Scored s;
  for (const LmBatch& b : t.lm_evaluation_batches(split, 3, context)) {
    const std::int64_t n = b.target.numel();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int32_t id = std::int32_t(b.target.at(i));
      if (id == kPad) {
        CHECK(b.characters[std::size_t(i)] == 0);
        continue;
      }
      CHECK(id != kBos);
      ++s.targets;
      s.characters += b.characters[std::size_t(i)];
      s.sequence.push_back(id);
    }
  }
  return s;
}

}  // namespace

TEST_CASE("lm scores every token of a held-out stream exactly once, whatever the context", "[lm]") {
  ScratchDir dir("lm_blocks");
  write_text(dir);
  auto chars = lm(dir, "char");
  // test.txt: "a dog sat" (9 characters) and "on a mat" (8): 17 scored, <bos> never.
  const Scored at4 = scored(*chars, Split::test, 4);
  CHECK(at4.targets == 17);
  CHECK(at4.characters == 17);
  for (std::int64_t context : {1, 2, 3, 7, 18, 40})
    CHECK(scored(*chars, Split::test, context).sequence == at4.sequence);
  CHECK(chars->detokenize(at4.sequence.data(), 9, true) == "a dog sat");

  // Words: "a dog sat" and "on a mat" are 6 tokens; each word counts its characters
  // and one for the space after it: (1+1)+(3+1)+(3+1) + (2+1)+(1+1)+(3+1) = 19.
  auto words = lm(dir, "whitespace");
  const Scored w = scored(*words, Split::test, 4);
  CHECK(w.targets == 6);
  CHECK(w.characters == 19);
}

TEST_CASE("lm training windows are context + 1 consecutive tokens of the training stream", "[lm]") {
  ScratchDir dir("lm_train");
  write_text(dir);
  auto t = lm(dir, "char", 5);
  Generator gen(4);
  LmBatch b = t->lm_train_batch(gen, 16);
  REQUIRE(b.input.shape() == Shape{16, 5});
  for (std::int64_t r = 0; r < 16; ++r)
    for (std::int64_t i = 0; i + 1 < 5; ++i) {
      // The target at i is the input at i + 1 (unless it is a <bos>, which is not scored).
      const auto next = b.input.at(r * 5 + i + 1), target = b.target.at(r * 5 + i);
      CHECK((next == kBos ? target == kPad : target == next));
    }
  CHECK_THROWS_WITH(lm(dir, "char", 500), Catch::Contains("fewer than context + 1"));
}

TEST_CASE(
    "a decoder trial on lm reports bits per character equal to its loss in bits, longer contexts "
    "and samples",
    "[lm][e2e]") {
  ScratchDir dir("lm_run");
  write_text(dir);
  const std::string file = dir.file(
      "lm.toml",
      "name = \"lm_run\"\nseed = 2\n[task]\nkind = \"lm\"\ntrain = \"train.txt\"\nvalidation = "
      "\"validation.txt\"\n"
      "test = \"test.txt\"\ncontext = 8\nmax_context_factor = 4\n"
      "[model]\nd_model = 16\nheads = 2\nd_ff = 32\nlayers = 1\npositions.kind = \"alibi\"\n"
      "[train]\nsteps = 30\nbatch = 4\nlr = 3e-3\neval_every = 10\n");
  CommandResult r =
      run_command(std::string(ABLATE_CLI) + " run " + file + " --out " + dir.str() + "/runs -q");
  REQUIRE(r.status == 0);
  const std::string run = dir.str() + "/runs/lm_run";
  const nlohmann::json index = nlohmann::json::parse(read_text(run + "/trials.json"));
  const std::string trial = run + "/trials/" + index["trials"][0]["id"].get<std::string>();
  const nlohmann::json summary = nlohmann::json::parse(read_text(trial + "/summary.json"));
  const nlohmann::json& test = summary["test"];
  // Character tokens: each scored token is one character, so bpc = loss / ln 2.
  CHECK(test.at("bpc").get<double>() ==
        Approx(test.at("loss").get<double>() / std::log(2.0)).epsilon(1e-12));
  CHECK(test.at("perplexity").get<double>() == Approx(std::exp(test.at("loss").get<double>())));
  CHECK(test.contains("bpc_ctx16"));
  CHECK(test.contains("bpc_ctx32"));
  CHECK_FALSE(test.contains("bpc_ctx64"));
  CHECK_THAT(read_text(trial + "/config.toml"), Catch::Contains("kind = \"decoder\""));
  CHECK_THAT(read_text(trial + "/samples.txt"), Catch::Contains("prompt: a dog sat"));
  const std::string md = read_text(run + "/summary.md");
  CHECK_THAT(md, Catch::Contains("## Test bpc"));
  CHECK_THAT(md, Catch::Contains("## Samples"));
  // The run's record keeps the samples: a folder with only record.jsonl rebuilds them.
  const std::string kept = dir.str() + "/kept/lm_run";
  std::filesystem::create_directories(kept);
  std::filesystem::copy_file(run + "/record.jsonl", kept + "/record.jsonl");
  REQUIRE(run_command(std::string(ABLATE_CLI) + " report " + kept).status == 0);
  const std::string rebuilt = read_text(kept + "/summary.md");
  CHECK(rebuilt.substr(rebuilt.find("## Samples")) == md.substr(md.find("## Samples")));
}

TEST_CASE("every position, attention and norm variant trains in a causal decoder on lm",
          "[lm][e2e]") {
  ScratchDir dir("lm_variants");
  write_text(dir);
  const std::string file =
      dir.file("lm.toml",
               "name = \"lm_variants\"\nseed = 2\n[task]\nkind = \"lm\"\ntrain = "
               "\"train.txt\"\nvalidation = \"validation.txt\"\n"
               "test = \"test.txt\"\ncontext = 8\n"
               "[model]\nd_model = 16\nheads = 2\nd_ff = 32\nlayers = 1\n"
               "[train]\nsteps = 6\nbatch = 4\nlr = 3e-3\neval_every = 3\n"
               "[sweep]\n\"model.positions.kind\" = [\"sinusoidal\", \"learned\", \"rotary\", "
               "\"alibi\", \"none\"]\n"
               "\"model.attention.qk\" = [\"separate\", \"shared\"]\n"
               "\"model.norm.kind\" = [\"layer\", \"rms\", \"batch\", \"none\"]\n"
               "\"model.norm.placement\" = [\"post\", \"pre\"]\n");
  CommandResult r = run_command(std::string(ABLATE_CLI) + " run " + file + " --out " + dir.str() +
                                "/runs -q --jobs 2");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("80 trials (0 already done, 80 ok, 0 diverged, 0 failed)"));
}

TEST_CASE("a forecasting model does not fit a sequence task, and lm options are checked",
          "[lm][e2e]") {
  // (A decoder-only model does fit a sequence task: decoder_only_seq_test.cpp.)
  ScratchDir dir("lm_errors");
  write_text(dir);
  const std::string wrong = dir.file("wrong.toml", tiny_experiment("wrong", "") + "");
  CommandResult r = run_command(std::string(ABLATE_CLI) + " check " + wrong +
                                " model.kind='\"encoder_regressor\"'");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("sequence tasks need seq2seq or decoder"));
  nn::Options o{{"train", std::string("train.txt")}, {"max_context_factor", std::int64_t(3)}};
  CHECK_THROWS_WITH(task_registry().create("lm", o, 1, dir.str()),
                    Catch::Contains("must be a power of two"));
}
