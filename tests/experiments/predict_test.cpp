// `ablate predict CHECKPOINT INPUT`: a trained trial's checkpoint decodes new inputs.
// Tied to the evaluation (the test sources give the predictions of predictions.tsv,
// the sample prompts the continuations of samples.txt), sources tokenized as each
// task tokenizes its own, and bad input refused with exit status 2 naming the file.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/tasks/task.h"
#include "nn/safetensors.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

const std::string kCli = ABLATE_CLI;

std::vector<std::string> column(const std::vector<std::vector<std::string>>& rows, std::size_t c) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.at(c));
  return out;
}

std::string lines_of(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// Runs the experiment file `toml` (one trial) and returns that trial's directory.
std::string train_trial(const ScratchDir& dir, const std::string& toml) {
  const std::string file = dir.file("exp.toml", toml);
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + "/runs -q");
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const auto& run : std::filesystem::directory_iterator(dir.str() + "/runs"))
    for (const auto& trial : std::filesystem::directory_iterator(run.path() / "trials"))
      return trial.path().string();
  FAIL("no trial directory");
  return "";
}

// One tiny reverse trial with its checkpoint, trained once per test process. ctest
// runs test cases as processes side by side; each has its own scratch directory.
const std::string& reverse_trial() {
  static ScratchDir dir("predict_reverse");
  static const std::string trial =
      train_trial(dir, tiny_experiment("predict_reverse", "checkpoint = true\n"));
  return trial;
}

// The TSV of a predict's output: without the lines it printed on stderr (run_command
// merges them), such as the report of symbols the model never saw.
std::string tsv_of(const std::string& output) {
  std::istringstream in(output);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("ablate predict: ", 0) != 0) out += line + "\n";
  return out;
}

CommandResult predict(const std::string& checkpoint, const std::string& input,
                      const std::string& options = "") {
  return run_command(kCli + " predict " + checkpoint + " " + input + " " + options);
}

}  // namespace

TEST_CASE("predict gives a reverse trial's own test predictions for its test sources, greedily",
          "[predict][e2e]") {
  const std::string trial = reverse_trial();
  const auto evaluated = tsv_rows(read_text(trial + "/predictions.tsv"));
  REQUIRE(evaluated.size() == 32);
  ScratchDir dir("predict_same");
  const std::string input = dir.file("sources.txt", lines_of(column(evaluated, 1)));
  CommandResult r = predict(trial + "/checkpoint.safetensors", input);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.rfind("id\tsource\tprediction\n", 0) == 0);
  const auto predicted = tsv_rows(r.output);
  CHECK(column(predicted, 0) == column(evaluated, 0));
  CHECK(column(predicted, 1) == column(evaluated, 1));
  CHECK(column(predicted, 2) == column(evaluated, 2));
}

TEST_CASE(
    "predict --beam 1 equals greedy decoding, a wider beam decodes every line, --out writes the "
    "same",
    "[predict]") {
  const std::string checkpoint = reverse_trial() + "/checkpoint.safetensors";
  ScratchDir dir("predict_beam");
  const std::string input = dir.file("in.txt", "0 1 2\n5 4 3 2 1\n3 3\n");
  CommandResult greedy = predict(checkpoint, input);
  CommandResult beam1 = predict(checkpoint, input, "--beam 1");
  CommandResult beam3 = predict(checkpoint, input, "--beam 3");
  INFO(greedy.output + beam1.output + beam3.output);
  REQUIRE(greedy.status == 0);
  REQUIRE(beam1.status == 0);
  REQUIRE(beam3.status == 0);
  CHECK(beam1.output == greedy.output);
  CHECK(tsv_rows(beam3.output).size() == 3);
  CHECK(column(tsv_rows(beam3.output), 1) == std::vector<std::string>{"0 1 2", "5 4 3 2 1", "3 3"});
  CommandResult to_file = predict(checkpoint, input, "--out " + dir.str() + "/out.tsv");
  REQUIRE(to_file.status == 0);
  CHECK(to_file.output.empty());
  CHECK(read_text(dir.str() + "/out.tsv") == greedy.output);
  // Standard input, for pipelines.
  CommandResult piped = run_command("printf '0 1 2\\n5 4 3 2 1\\n3 3\\n' | " + kCli + " predict " +
                                    checkpoint + " -");
  CHECK(piped.output == greedy.output);
}

TEST_CASE("every sequence task tokenizes its own test sources back to their ids",
          "[predict][tasks]") {
  ScratchDir dir("predict_tokenize");
  // Any three of these lines hold both letters and the space: no held-out token is <unk>.
  dir.file("pairs.tsv", "A b\tx\nb a\ty\na a\tz\nb b\tw\na b a\tq\n");
  dir.file("train.tsv", "cat\tK AE1 T\nbat\tB AE1 T\ntab\tT AE1 B\nact\tAE2 K T\n");
  dir.file("validation.tsv", "bac\tB AE1 K\n");
  dir.file("test.tsv", "cta\tK T AH0\nbca\tB K AH0\n");
  const std::vector<std::pair<std::string, nn::Options>> tasks = {
      {"copy", {}},
      {"reverse", {}},
      {"sort", {}},
      {"numbers_to_words", {}},
      {"text_pairs",
       {{"path", std::string("pairs.tsv")}, {"lowercase", true}, {"test_fraction", 0.4}}},
      {"text_pairs", {{"path", std::string("pairs.tsv")}, {"tokens", std::string("whitespace")}}},
      {"g2p",
       {{"train", std::string("train.tsv")},
        {"validation", std::string("validation.tsv")},
        {"test", std::string("test.tsv")},
        {"train_words", std::int64_t(0)},
        {"validation_words", std::int64_t(0)},
        {"test_words", std::int64_t(0)}}}};
  for (const auto& [name, options] : tasks) {
    const std::string task_name = name;  // Clang 14: no structured bindings in INFO's lambda
    INFO(task_name);
    std::unique_ptr<Task> task = task_registry().create(name, options, 7, dir.str());
    for (const Seq2SeqBatch& b : task->evaluation_batches(Split::test, 64)) {
      const std::int64_t B = b.src.shape()[0], S = b.src.shape()[1];
      for (std::int64_t row = 0; row < B; ++row) {
        std::vector<std::int32_t> ids;
        for (std::int64_t t = 0; t < S && b.src.at(row * S + t) != kPad; ++t)
          ids.push_back(std::int32_t(b.src.at(row * S + t)));
        const std::string text = task->detokenize(ids.data(), std::int64_t(ids.size()), false);
        CHECK(task->tokenize_source(text) == ids);
      }
    }
  }
}

TEST_CASE("sources map unknown tokens to <unk> where the task has one, else name the token",
          "[predict][tasks]") {
  ScratchDir dir("predict_unknown");
  dir.file("pairs.tsv", "abc\tcba\nbca\tacb\ncab\tbac\naab\tbaa\n");
  std::unique_ptr<Task> pairs = task_registry().create(
      "text_pairs", {{"path", std::string("pairs.tsv")}, {"lowercase", true}}, 1, dir.str());
  const std::vector<std::int32_t> ids = pairs->tokenize_source("AzÉ");
  REQUIRE(ids.size() == 3);
  CHECK(ids[0] != kFirstToken);  // "A" lowercased: a training character
  CHECK(ids[1] == kFirstToken);  // <unk>
  CHECK(ids[2] == kFirstToken);
  CHECK(pairs->detokenize(ids.data(), 3, false) == "a<unk><unk>");

  std::unique_ptr<Task> reverse =
      task_registry().create("reverse", {{"vocab", std::int64_t(6)}}, 1, "");
  CHECK(reverse->tokenize_source("0 5  3") ==
        std::vector<std::int32_t>{kFirstToken, kFirstToken + 5, kFirstToken + 3});
  CHECK_THROWS_WITH(reverse->tokenize_source("0 6"), Catch::Contains("'6' is not a symbol"));
  std::unique_ptr<Task> numbers = task_registry().create("numbers_to_words", {}, 1, "");
  CHECK_THROWS_WITH(numbers->tokenize_source("3x"), Catch::Contains("'x' is not a digit"));
}

TEST_CASE("a text_pairs trial predicts new lines, unknown characters as <unk>", "[predict][e2e]") {
  ScratchDir dir("predict_text_pairs");
  std::string pairs;
  for (const char* word :
       {"abc", "bca", "cab", "acb", "bac", "cba", "aab", "abb", "bba", "cca", "acc", "bcb"}) {
    std::string reversed(word);
    std::reverse(reversed.begin(), reversed.end());
    pairs += std::string(word) + "\t" + reversed + "\n";
  }
  dir.file("pairs.tsv", pairs);
  const std::string trial =
      train_trial(dir,
                  "name = \"pairs\"\n[task]\nkind = \"text_pairs\"\npath = "
                  "\"pairs.tsv\"\nvalidation_fraction = 0.2\n"
                  "test_fraction = 0.2\n[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\n"
                  "[train]\nsteps = 20\nbatch = 4\neval_every = 10\ncheckpoint = true\n");
  // Run from elsewhere: the data path resolves against the experiment file's directory.
  const std::string input = dir.file("new.txt", "ab\ncz\xC3\xA9\n");
  CommandResult r =
      run_command("cd / && " + kCli + " predict " + trial + "/checkpoint.safetensors " + input);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto rows = tsv_rows(tsv_of(r.output));
  REQUIRE(rows.size() == 2);
  CHECK(column(rows, 1) == std::vector<std::string>{"ab", "cz\xC3\xA9"});

  SECTION("with the data moved, the message names the file, and --data-dir finds it") {
    std::filesystem::create_directories(dir.str() + "/moved");
    std::filesystem::rename(dir.str() + "/pairs.tsv", dir.str() + "/moved/pairs.tsv");
    CommandResult missing = predict(trial + "/checkpoint.safetensors", input);
    CHECK(missing.status == 2);
    CHECK_THAT(missing.output, Catch::Contains("pairs.tsv"));
    CHECK_THAT(missing.output, Catch::Contains("--data-dir"));
    CommandResult found =
        predict(trial + "/checkpoint.safetensors", input, "--data-dir " + dir.str() + "/moved");
    CHECK(found.status == 0);
    CHECK(found.output == r.output);
  }
}

TEST_CASE(
    "an lm trial continues prompts by the requested length, the same for the same seed, as "
    "samples.txt does",
    "[predict]") {
  ScratchDir dir("predict_lm");
  dir.file("train.txt", "the cat sat on the mat\nthe dog sat on the log\na cat and a dog\n");
  dir.file("validation.txt", "the cat and the dog\n");
  dir.file("test.txt", "a dog sat\non a mat\n");
  const std::string trial =
      train_trial(dir,
                  "name = \"lm\"\nseed = 2\n[task]\nkind = \"lm\"\ntrain = "
                  "\"train.txt\"\nvalidation = \"validation.txt\"\n"
                  "test = \"test.txt\"\ntokens = \"whitespace\"\ncontext = 4\n"
                  "[model]\nd_model = 16\nheads = 2\nd_ff = 32\nlayers = 1\n"
                  "[train]\nsteps = 20\nbatch = 4\neval_every = 10\ncheckpoint = true\n");
  const std::string checkpoint = trial + "/checkpoint.safetensors";
  const std::string input = dir.file("prompts.txt", "the cat\na zebra\n\n");
  CommandResult a = predict(checkpoint, input, "--length 7 --sample-seed 5");
  CommandResult b = predict(checkpoint, input, "--length 7 --sample-seed 5");
  INFO(a.output);
  REQUIRE(a.status == 0);
  CHECK(tsv_of(a.output).rfind("id\tprompt\tcontinuation\n", 0) == 0);
  CHECK(b.output == a.output);
  const auto rows = tsv_rows(tsv_of(a.output));
  REQUIRE(rows.size() == 3);
  CHECK(column(rows, 1) == std::vector<std::string>{"the cat", "a zebra", ""});
  for (const std::string& continuation : column(rows, 2)) {
    std::istringstream words(continuation);
    CHECK(std::distance(std::istream_iterator<std::string>(words),
                        std::istream_iterator<std::string>()) == 7);
  }
  CommandResult greedy = predict(checkpoint, input, "--length 7 --greedy");
  REQUIRE(greedy.status == 0);
  CHECK(predict(checkpoint, input, "--length 7 --greedy").output == greedy.output);
  CHECK(predict(checkpoint, input, "--beam 2").status == 2);  // a sequence-task option

  // The trial's own prompts, seeded with its trial_seed (0) at the default length: its samples.
  std::istringstream samples(read_text(trial + "/samples.txt"));
  std::vector<std::string> prompts, continuations;
  for (std::string line; std::getline(samples, line);) {
    if (line.rfind("prompt: ", 0) == 0) prompts.push_back(line.substr(8));
    if (line.rfind("continuation: ", 0) == 0) continuations.push_back(line.substr(14));
  }
  REQUIRE_FALSE(prompts.empty());
  CommandResult same = predict(checkpoint, dir.file("sample_prompts.txt", lines_of(prompts)));
  REQUIRE(same.status == 0);
  CHECK(column(tsv_rows(same.output), 2) == continuations);
}

TEST_CASE("predict refuses bad input with exit status 2, naming the file and line, writing nothing",
          "[predict][e2e]") {
  const std::string checkpoint = reverse_trial() + "/checkpoint.safetensors";
  ScratchDir dir("predict_errors");
  const std::string good = dir.file("good.txt", "0 1\n");

  CommandResult missing = predict(dir.str() + "/nowhere.safetensors", good);
  CHECK(missing.status == 2);
  CHECK_THAT(missing.output, Catch::Contains(dir.str() + "/nowhere.safetensors"));

  const std::string corrupt = dir.file("corrupt.safetensors", "not a checkpoint");
  CommandResult bad = predict(corrupt, good);
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains("corrupt.safetensors"));

  // Saved without the trial's config (as an older version did).
  nn::SafetensorsFile file = nn::read_safetensors(checkpoint);
  std::map<std::string, std::string> metadata = file.metadata;
  metadata.erase("config");
  nn::write_safetensors(dir.str() + "/old.safetensors", file.tensors, metadata);
  CommandResult old = predict(dir.str() + "/old.safetensors", good);
  CHECK(old.status == 2);
  CHECK_THAT(old.output,
             Catch::Contains("old.safetensors") && Catch::Contains("no `config` metadata"));

  CommandResult no_input = predict(checkpoint, dir.str() + "/absent.txt");
  CHECK(no_input.status == 2);
  CHECK_THAT(no_input.output, Catch::Contains("absent.txt"));

  // tiny_experiment's reverse task: vocab 6, sequences up to 5 long, targets with EOS up
  // to 6: the model's max_len.
  const std::string too_long = dir.file("long.txt", "0 1\n0 1 2 3 4 5 0\n");
  CommandResult longer = predict(checkpoint, too_long, "--out " + dir.str() + "/out.tsv");
  CHECK(longer.status == 2);
  CHECK_THAT(longer.output, Catch::Contains("long.txt:2:") && Catch::Contains("max_len = 6"));
  CHECK_FALSE(std::filesystem::exists(dir.str() + "/out.tsv"));

  CommandResult unknown = predict(checkpoint, dir.file("unknown.txt", "0 1\n1 9\n"));
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.output, Catch::Contains("unknown.txt:2:") && Catch::Contains("'9'"));

  CommandResult lm_option = predict(checkpoint, good, "--length 3");
  CHECK(lm_option.status == 2);
  CHECK(predict(checkpoint, good, "--beam 0").status == 2);
}

TEST_CASE("predict refuses a forecasting trial with exit status 2", "[predict][e2e]") {
  ScratchDir dir("predict_forecast");
  const std::string trial = train_trial(
      dir,
      "name = \"forecast\"\n[task]\nkind = \"forecast\"\nlookback = 4\nhorizon = 2\nlength = 200\n"
      "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\n"
      "[train]\nsteps = 10\nbatch = 8\neval_every = 5\ncheckpoint = true\n");
  CommandResult r = predict(trial + "/checkpoint.safetensors", dir.file("in.txt", "1 2 3 4\n"));
  CHECK(r.status == 2);
  CHECK_THAT(r.output,
             Catch::Contains("does not support forecasting") && Catch::Contains("recent history"));
}
