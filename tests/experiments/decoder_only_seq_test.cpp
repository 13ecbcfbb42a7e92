// Decoder-only models (model.kind = "decoder") on the sequence tasks: one stream per
// example — source, <bos> as the separator, target, <eos> (experiments/tasks/
// decoder_stream.h) — trained on the target positions only, decoded after the
// separator, and measured with exactly the seq2seq tasks' metrics, predictions.tsv and
// `ablate predict`. seq2seq stays what `auto` picks, so the ids of earlier trials stay.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "experiments/config/experiment.h"
#include "experiments/models/model_factory.h"
#include "experiments/runner/sequence_model.h"
#include "experiments/runner/trial_runner.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

// A one-trial experiment of a tiny decoder-only model; `model` and `train` lines are
// appended to their tables.
std::string decoder_experiment(const std::string& name, const std::string& task,
                               const std::string& model = "", const std::string& train = "") {
  return "name = \"" + name + "\"\nseed = 3\n[task]\n" + task +
         "\n[model]\nkind = \"decoder\"\nd_model = 16\nheads = 2\nd_ff = 32\nlayers = 1\n" + model +
         "[train]\nsteps = 20\nbatch = 8\nlr = 3e-3\neval_every = 10\n" + train;
}

Tensor ids(std::int64_t rows, std::int64_t cols, std::vector<std::int32_t> values) {
  return Tensor::from_data({rows, cols}, std::span<const std::int32_t>(values));
}

std::vector<std::int32_t> as_vector(const Tensor& t) {
  std::vector<std::int32_t> out;
  for (std::int64_t i = 0; i < t.numel(); ++i) out.push_back(std::int32_t(t.at(i)));
  return out;
}

// One trial of `toml`, built in-process: its config, task and model.
struct Built {
  Experiment experiment;
  std::unique_ptr<Task> task;
  TrialModel model;
};
Built build(const ScratchDir& dir, const std::string& toml) {
  Built b;
  b.experiment = load_experiment(dir.file("exp.toml", toml));
  const TrialConfig& c = b.experiment.trials.at(0).config;
  b.task = task_registry().create(c.task.kind, c.task.options, c.data_seed, b.experiment.base_dir);
  b.model = build_model(c, *b.task);
  return b;
}

}  // namespace

TEST_CASE(
    "a decoder-only stream is source, <bos>, target, only target positions (and <eos>) are targets",
    "[decoder_seq]") {
  // The layout the docs promise: copy shares ids with share_embeddings; otherwise the
  // source tokens are shifted past the target vocabulary (ids >= target_vocab).
  const Seq2SeqBatch batch{ids(2, 3, {3, 4, 5, 6, 0, 0}), ids(2, 4, {1, 5, 4, 3, 1, 6, 0, 0}),
                           ids(2, 4, {5, 4, 3, 2, 6, 2, 0, 0})};
  const StreamVocabulary shared{10, 10, true}, offset{10, 12, false};
  CHECK(shared.size() == 10);
  CHECK(offset.size() == 12 + 10 - 3);
  const StreamBatch s = make_stream_batch(batch, shared);
  CHECK(as_vector(s.input) == std::vector<std::int32_t>{3, 4, 5, 1, 5, 4, 3, 6, 1, 6, 0, 0, 0, 0});
  CHECK(as_vector(s.target) == std::vector<std::int32_t>{0, 0, 0, 5, 4, 3, 2, 0, 6, 2, 0, 0, 0, 0});
  CHECK(s.target_start == std::vector<std::int64_t>{3, 1});
  const StreamBatch o = make_stream_batch(batch, offset);
  CHECK(as_vector(o.input) ==
        std::vector<std::int32_t>{12, 13, 14, 1, 5, 4, 3, 15, 1, 6, 0, 0, 0, 0});
  CHECK(as_vector(o.target) == as_vector(s.target));
  CHECK(offset.source_id(15) == 6);
  CHECK(as_vector(stream_prompts(batch.src, offset)) ==
        std::vector<std::int32_t>{12, 13, 14, 15, 0, 0});
}

TEST_CASE("a decoder-only model's loss is the mean cross-entropy of the target positions alone",
          "[decoder_seq]") {
  // Computed by hand from the model's logits at the target positions: per target token,
  // <eos> included, as seq2seq's loss — and the logits the evaluation scores are those.
  ScratchDir dir("decoder_seq_loss");
  Built b = build(dir, decoder_experiment("loss", "kind = \"numbers_to_words\"\nmax_value = 99"));
  REQUIRE(b.model.decoder_only);
  CHECK(b.model.stream.size() == b.task->target_vocab() + b.task->source_vocab() - 3);
  b.model.module->eval();
  Generator gen(5);
  const Seq2SeqBatch batch = b.task->train_batch(gen, 4);
  const double loss = sequence_loss(b.model, batch, 0.0).item();
  Tape::current().reset();
  // The stream by hand: row r's target token t sits at position (its source length) + t.
  const StreamBatch stream = make_stream_batch(batch, b.model.stream);
  NoGradGuard no_grad;
  const Tensor logits = b.model.decoder_only->forward(stream.input).value();
  const std::int64_t B = batch.tgt_out.shape()[0], T = batch.tgt_out.shape()[1],
                     L = logits.shape()[1], V = logits.shape()[2], S = batch.src.shape()[1];
  REQUIRE(V == b.task->target_vocab());
  double nats = 0, tokens = 0;
  for (std::int64_t row = 0; row < B; ++row) {
    std::int64_t source_length = 0;
    while (source_length < S && batch.src.at(row * S + source_length) != kPad) ++source_length;
    for (std::int64_t t = 0; t < T; ++t) {
      const std::int64_t target = std::int64_t(batch.tgt_out.at(row * T + t));
      if (target == kPad) continue;
      const std::int64_t at = (row * L + source_length + t) * V;
      double z = 0;
      for (std::int64_t v = 0; v < V; ++v) z += std::exp(logits.at(at + v));
      nats += std::log(z) - logits.at(at + target);
      ++tokens;
    }
  }
  CHECK(loss == Approx(nats / tokens).epsilon(1e-5));
  // The evaluation's teacher-forced logits are the same positions, aligned with tgt_out.
  const Tensor aligned = teacher_forced_logits(b.model, batch);
  for (std::int64_t row = 0; row < B; ++row) {
    std::int64_t source_length = 0;
    while (source_length < S && batch.src.at(row * S + source_length) != kPad) ++source_length;
    for (std::int64_t v = 0; v < V; ++v)
      CHECK(aligned.at((row * T) * V + v) == logits.at((row * L + source_length) * V + v));
  }
  Tape::current().reset();
}

TEST_CASE(
    "a decoder-only model learns copy, writes predictions.tsv, and predict decodes its checkpoint",
    "[decoder_seq][e2e]") {
  // Trained short (lengths 2..5, 1000 steps, d_model 32): test sequence accuracy > 0.9.
  // predictions.tsv reproduces the sequence accuracy, and `ablate predict` on the
  // checkpoint gives its predictions for its sources.
  ScratchDir dir("decoder_seq_copy");
  const std::string toml =
      "name = \"copy\"\nseed = 1\n[task]\nkind = \"copy\"\nvocab = 8\nmin_length = 2\nmax_length = "
      "5\n"
      "validation_size = 100\ntest_size = 200\n"
      "[model]\nkind = \"decoder\"\nd_model = 32\nheads = 2\nd_ff = 64\nlayers = 2\npositions = "
      "\"learned\"\n"
      "norm = { kind = \"layer\", placement = \"pre\" }\n"
      "[train]\nsteps = 1000\nbatch = 32\nlr = 3e-3\neval_every = 200\ndecode_examples = "
      "50\ncheckpoint = true\n";
  const Experiment e = load_experiment(dir.file("copy.toml", toml));
  const Trial& trial = e.trials.at(0);
  CHECK(trial.config.model.transformer.max_len == 5 + 1 + 6);
  const std::string trial_dir = dir.str() + "/trial";
  const TrialOutcome o = run_trial(trial, e.base_dir, trial_dir);
  INFO(o.error);
  REQUIRE(o.status == "ok");
  const double accuracy = o.test.metrics.at("sequence_accuracy");
  CHECK(accuracy > 0.9);
  CHECK(o.test.metrics.at("token_accuracy") > 0.9);
  CHECK(std::isfinite(o.test.loss));

  const auto rows = tsv_rows(read_text(trial_dir + "/predictions.tsv"));
  REQUIRE(rows.size() == 200);
  double right = 0;
  std::string sources;
  for (const auto& r : rows) {
    REQUIRE(r.size() == 4);
    right += r[2] == r[3];
    sources += r[1] + "\n";
  }
  CHECK(right / 200 == Approx(accuracy));
  CHECK(fs::exists(trial_dir + "/attention.json"));
  CHECK(nlohmann::json::parse(read_text(trial_dir + "/attention.json")).contains("stream"));

  const std::string input = dir.file("sources.txt", sources);
  CommandResult p =
      run_command(kCli + " predict " + trial_dir + "/checkpoint.safetensors " + input);
  INFO(p.output);
  REQUIRE(p.status == 0);
  const auto predicted = tsv_rows(p.output);
  REQUIRE(predicted.size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) CHECK(predicted[i][2] == rows[i][2]);
  // A source longer than the stream leaves room for (max_len 12 − separator − 6).
  CommandResult too_long = run_command(kCli + " predict " + trial_dir + "/checkpoint.safetensors " +
                                       dir.file("long.txt", "1 2 3 4 5 6\n"));
  CHECK(too_long.status == 2);
  CHECK_THAT(too_long.output, Catch::Contains("long.txt:1:") && Catch::Contains("more than 5"));
}

TEST_CASE(
    "decoder-only greedy decoding is the argmax after the separator, batched as one row at a time",
    "[decoder_seq]") {
  // Width 1 of the shared beam search is greedy: the same as re-running each source
  // alone (no padding) and taking the argmax at the stream's last position until
  // <eos>. Wider beams give rows that end at <eos> or the length limit.
  ScratchDir dir("decoder_seq_greedy");
  Built b =
      build(dir, decoder_experiment("greedy",
                                    "kind = \"reverse\"\nvocab = 6\nmin_length = 1\nmax_length = "
                                    "4\nvalidation_size = 16\ntest_size = 16"));
  b.model.module->eval();
  const Tensor src = ids(3, 4, {3, 4, 5, 6, 7, 0, 0, 0, 8, 3, 0, 0});
  const std::int64_t max_len = 5;
  const Tensor decoded = decode_sources(b.model, src, max_len, 1);
  NoGradGuard no_grad;
  std::vector<std::vector<std::int32_t>> expected;
  for (std::int64_t row = 0; row < 3; ++row) {
    std::vector<std::int32_t> stream;
    for (std::int64_t t = 0; t < 4 && src.at(row * 4 + t) != kPad; ++t)
      stream.push_back(b.model.stream.stream_id(std::int32_t(src.at(row * 4 + t))));
    stream.push_back(kBos);
    expected.emplace_back();
    for (std::int64_t step = 0; step < max_len; ++step) {
      const Tensor logits =
          b.model.decoder_only->forward(ids(1, std::int64_t(stream.size()), stream)).value();
      const std::int64_t V = logits.shape()[2], last = (std::int64_t(stream.size()) - 1) * V;
      std::int32_t best = 0;
      for (std::int32_t v = 1; v < V; ++v)
        if (logits.at(last + v) > logits.at(last + best)) best = v;
      Tape::current().reset();
      expected.back().push_back(best);
      stream.push_back(best);
      if (best == kEos) break;
    }
  }
  std::size_t longest = 0;
  for (auto& e : expected) longest = std::max(longest, e.size());
  for (auto& e : expected) e.resize(longest, kPad);
  REQUIRE(decoded.shape()[1] == std::int64_t(longest));
  for (std::int64_t row = 0; row < 3; ++row) {
    INFO("row " << row);
    std::vector<std::int32_t> got;
    for (std::size_t t = 0; t < longest; ++t)
      got.push_back(std::int32_t(decoded.at(row * std::int64_t(longest) + std::int64_t(t))));
    CHECK(got == expected[std::size_t(row)]);
  }
  const Tensor beams = decode_sources(b.model, src, max_len, 3);
  CHECK(beams.shape()[0] == 3);
  CHECK(beams.shape()[1] <= max_len);
}

TEST_CASE(
    "every positions kind and attention/norm option trains a decoder-only model on reverse with "
    "by-length metrics",
    "[decoder_seq][e2e]") {
  // Trained on lengths 2..4, tested on 2..7: no NaN, every test length reported, and
  // the position tables sized for the longest test stream (7 + 1 + 8 = 16).
  ScratchDir dir("decoder_seq_positions");
  const std::string file = dir.file(
      "positions.toml",
      decoder_experiment(
          "positions",
          "kind = \"reverse\"\nvocab = 6\nmin_length = 2\nmax_length = 4\nvalidation_size = 16\n"
          "test_size = 60\ntest_min_length = 2\ntest_max_length = 7",
          "",
          "beam_width = 2\n"
          "[sweep]\n\"model.positions.kind\" = [\"sinusoidal\", \"learned\", \"rotary\", "
          "\"alibi\", \"none\"]\n"
          "[sweep.zip]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\n"
          "\"model.attention.v\" = [\"projected\", \"identity\"]\n"
          "\"model.attention.scale\" = [\"sqrt_dk\", \"learned\"]\n"
          "\"model.norm.kind\" = [\"layer\", \"rms\"]\n"
          "\"model.norm.placement\" = [\"post\", \"pre\"]\n"));
  CommandResult r =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/runs -q --jobs 2");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("10 trials (0 already done, 10 ok, 0 diverged, 0 failed)"));
  int trials = 0;
  for (const auto& t : fs::directory_iterator(dir.str() + "/runs/positions/trials")) {
    INFO(t.path());
    const nlohmann::json s = nlohmann::json::parse(read_text((t.path() / "summary.json").string()));
    CHECK(s["status"] == "ok");
    REQUIRE(s["test"]["loss"].is_number());
    CHECK(std::isfinite(s["test"]["loss"].get<double>()));
    for (int length = 2; length <= 7; ++length) {
      CHECK(s["test"].contains("sequence_accuracy_len" + std::to_string(length)));
      CHECK(s["test"].contains("loss_len" + std::to_string(length)));
    }
    CHECK(tsv_rows(read_text((t.path() / "predictions.tsv").string())).size() == 60);
    CHECK_THAT(read_text((t.path() / "config.toml").string()), Catch::Contains("max_len = 16"));
    ++trials;
  }
  CHECK(trials == 10);
  CHECK_THAT(read_text(dir.str() + "/runs/positions/summary.md"),
             Catch::Contains("sequence_accuracy"));
}

TEST_CASE("a decoder-only model on text_pairs is measured with the task's own metrics",
          "[decoder_seq][e2e]") {
  // text_pairs with source and target vocabularies of their own: cer, wer, bleu, chrf.
  ScratchDir dir("decoder_seq_text");
  std::string pairs;
  for (int i = 0; i < 40; ++i)
    pairs += "ab" + std::string(1, char('a' + i % 5)) + "\tXY" + std::string(1, char('P' + i % 4)) +
             "\n";
  dir.file("pairs.tsv", pairs);
  Experiment e = load_experiment(dir.file(
      "text.toml", decoder_experiment("text", "kind = \"text_pairs\"\npath = \"pairs.tsv\"")));
  const TrialOutcome o = run_trial(e.trials.at(0), e.base_dir, dir.str() + "/trial");
  INFO(o.error);
  REQUIRE(o.status == "ok");
  for (const char* m : {"sequence_accuracy", "token_accuracy", "cer", "wer", "bleu", "chrf"})
    CHECK(o.test.metrics.count(m) == 1);
}

TEST_CASE(
    "model.kind and max_len mismatches of decoder-only models are config errors with file and line",
    "[decoder_seq][e2e]") {
  ScratchDir dir("decoder_seq_errors");
  auto check = [&](const std::string& toml, const std::string& message) {
    const std::string file = dir.file("bad.toml", toml);
    CommandResult r = run_command(kCli + " check " + file);
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("bad.toml:") && Catch::Contains(message));
  };
  const std::string reverse = "kind = \"reverse\"\nvocab = 6\nmin_length = 2\nmax_length = 5";
  // The longest stream is 5 + <bos> + 5 + <eos> = 12 positions.
  check(decoder_experiment("short", reverse, "max_len = 11\n"),
        "model.max_len: max_len = 11 is shorter than the task's longest stream (source 5 + "
        "separator + target 6 "
        "with <eos>: 12)");
  check(decoder_experiment("rows", reverse, "positions = { kind = \"learned\", max_len = 10 }\n"),
        "model.positions.max_len: learned positions have max_len = 10 rows, shorter than the "
        "task's longest stream");
  std::string regressor = decoder_experiment("wrong", reverse);
  regressor.replace(regressor.find("\"decoder\""), 9, "\"encoder_regressor\"");
  check(regressor, "sequence tasks need seq2seq or decoder");
  check(decoder_experiment("forecast", "kind = \"forecast\"\nlength = 200"),
        "forecasting needs encoder_regressor");
  // A max_len that fits is accepted, and written into the trial's config as given.
  const std::string fits =
      dir.file("fits.toml", decoder_experiment("fits", reverse, "max_len = 12\n"));
  CHECK(run_command(kCli + " check " + fits).status == 0);
}

TEST_CASE(
    "seq2seq stays what auto picks for sequence tasks: the shipped experiments' trial ids are "
    "unchanged",
    "[decoder_seq]") {
  // experiments/studies/results/<name>/results.csv holds the ids the committed results were
  // made with; adding decoder-only models must not rename one of them.
  const std::string shipped = std::string(ABLATE_TEST_DATA_DIR) + "/../experiments/studies/";
  for (const char* name : {"quickstart", "length_generalisation", "positions", "norms"}) {
    INFO(name);
    std::set<std::string> committed;
    std::istringstream csv(read_text(shipped + "results/" + name + "/results.csv"));
    std::string line;
    std::getline(csv, line);
    while (std::getline(csv, line)) committed.insert(line.substr(0, line.find(',')));
    std::set<std::string> now;
    const Experiment e = load_experiment(shipped + name + ".toml");
    for (const Trial& t : e.trials) {
      now.insert(t.id);
      CHECK(t.config.model.kind == "seq2seq");
    }
    if (e.adaptive) {  // it lists its first block; the results hold the later rounds too
      for (const std::string& id : now) CHECK(committed.count(id) == 1);
    } else {
      CHECK(now == committed);
    }
  }
}
