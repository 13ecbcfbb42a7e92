// The g2p task and what every sequence trial now writes: word-disjoint files read as
// given, every pronunciation a reference (a prediction is right if it matches any),
// stress optional, PER and WER by hand, and predictions.tsv — one row per test
// word — from which the reported metrics can be recomputed with no ablate code.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "experiments/tasks/task.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

// A tiny dictionary in the converted format; the test words are not training words.
void write_dictionary(const ScratchDir& dir) {
  dir.file("train.tsv",
           "cat\tK AE1 T\nbat\tB AE1 T\ntab\tT AE1 B\nact\tAE2 K T\ntac\tT AE1 K\n"
           "cab\tK AE1 B ||| K AA1 B\nabc\tEY1 B IY1 S IY1\n");
  dir.file("validation.tsv", "bac\tB AE1 K\n");
  dir.file("test.tsv", "cta\tK T AH0\nbca\tB K AH0 ||| B K AA1\n");
}

std::unique_ptr<Task> g2p(const ScratchDir& dir, bool stress) {
  nn::Options o{{"train", std::string("train.tsv")}, {"validation", std::string("validation.tsv")},
                {"test", std::string("test.tsv")},   {"stress", stress},
                {"train_words", std::int64_t(0)},    {"validation_words", std::int64_t(0)},
                {"test_words", std::int64_t(0)}};
  return task_registry().create("g2p", o, 1, dir.str());
}

std::vector<std::string> tokens(const Task& t, const std::vector<std::int32_t>& ids) {
  std::istringstream in(t.detokenize(ids.data(), std::int64_t(ids.size()), true));
  std::vector<std::string> out;
  for (std::string s; in >> s;) out.push_back(s);
  return out;
}

// Levenshtein distance written out here, independent of experiments/metrics.
std::size_t levenshtein(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
  return d[a.size()][b.size()];
}

std::vector<std::string> split(const std::string& text, const std::string& separator) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const std::size_t at = text.find(separator, start);
    out.push_back(text.substr(start, at - start));
    if (at == std::string::npos) return out;
    start = at + separator.size();
  }
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string s; in >> s;) out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("g2p keeps every pronunciation of a held-out word as a reference, stress digits optional",
          "[g2p]") {
  ScratchDir dir("g2p_refs");
  write_dictionary(dir);
  auto with = g2p(dir, true), without = g2p(dir, false);
  const auto refs = with->references(Split::test);
  REQUIRE(refs.size() == 2);
  CHECK(tokens(*with, refs[0][0]) ==
        std::vector<std::string>{"K", "T", "<unk>"});  // AH0 is not a training phoneme
  REQUIRE(refs[1].size() == 2);
  CHECK(with->reference_texts(Split::test)[1] == std::vector<std::string>{"B K AH0", "B K AA1"});
  // Without stress "AH" is still unseen, "AA" is seen (cab's alternative).
  CHECK(without->reference_texts(Split::test)[1] == std::vector<std::string>{"B K AH", "B K AA"});
  CHECK(without->target_vocab() + 1 == with->target_vocab());  // AE1 and AE2 become AE
  // Training pairs: one per pronunciation (cab twice), so 8 from 7 words.
  Generator gen(3);
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    Seq2SeqBatch b = with->train_batch(gen, 8);
    for (std::int64_t r = 0; r < 8; ++r) {
      const std::int64_t T = b.tgt_out.shape()[1];
      std::vector<std::int32_t> ids;
      for (std::int64_t t = 0; t < T && b.tgt_out.at(r * T + t) != kEos; ++t)
        ids.push_back(std::int32_t(b.tgt_out.at(r * T + t)));
      seen.insert(with->detokenize(ids.data(), std::int64_t(ids.size()), true));
    }
  }
  CHECK(seen.count("K AE1 B") == 1);
  CHECK(seen.count("K AA1 B") == 1);
  CHECK(seen.size() == 8);
}

TEST_CASE("g2p scores PER against the closest reference and WER as words matching none (by hand)",
          "[g2p]") {
  ScratchDir dir("g2p_scores");
  write_dictionary(dir);
  auto t = g2p(dir, true);
  auto ids = [&](const std::string& text) {
    std::vector<std::int32_t> out;
    for (const std::string& p : words(text)) {
      bool found = false;
      for (std::int32_t id = 0; id < std::int32_t(t->target_vocab()); ++id)
        if (t->detokenize(&id, 1, true) == p) out.push_back(id), found = true;
      REQUIRE(found);
    }
    return out;
  };
  std::vector<DecodedExample> x(3);
  // 1: "K AE1 T" against {"K AE1 T"}: exact, 0 edits of 3.
  x[0].prediction = ids("K AE1 T");
  x[0].reference_texts = {"K AE1 T"};
  // 2: "K AE1" against {"K AE1 B", "K AA1 B"}: 1 edit to either; the first (length 3).
  x[1].prediction = ids("K AE1");
  x[1].reference_texts = {"K AE1 B", "K AA1 B"};
  // 3: "K AA1 B" against the same two: 0 edits to the second — right.
  x[2].prediction = ids("K AA1 B");
  x[2].reference_texts = x[1].reference_texts;
  std::map<std::string, double> m, se;
  t->score_decoded(x, m, se);
  CHECK(m.at("per") == Approx(1.0 / 9.0));  // (0 + 1 + 0) / (3 + 3 + 3)
  CHECK(m.at("wer") == Approx(1.0 / 3.0));  // one word of three matches no reference
  CHECK(se.at("wer") > 0);
  // A reference phoneme never seen in training is not matched by predicting <unk>.
  std::vector<DecodedExample> unseen(1);
  unseen[0].prediction = {3};  // the <unk> id
  unseen[0].reference_texts = {"ZH"};
  t->score_decoded(unseen, m, se);
  CHECK(m.at("wer") == 1.0);
}

TEST_CASE("g2p names the file and line of a malformed dictionary line", "[g2p]") {
  ScratchDir dir("g2p_bad");
  write_dictionary(dir);
  dir.file("test.tsv", "cta\tK T AH0\nbca K AH0\n");
  CHECK_THROWS_WITH(g2p(dir, true), Catch::Contains("test.tsv:2: expected word<TAB>pronunciation"));
  dir.file("test.tsv", "cta\tK T ||| \n");
  CHECK_THROWS_WITH(g2p(dir, true), Catch::Contains("test.tsv:1: an empty pronunciation"));
}

TEST_CASE(
    "a g2p trial writes predictions.tsv, and its PER and WER recomputed from that file are the "
    "reported ones",
    "[g2p][e2e]") {
  ScratchDir dir("g2p_run");
  write_dictionary(dir);
  const std::string file = dir.file("g2p.toml",
                                    "name = \"g2p_run\"\nseed = 1\n[task]\nkind = \"g2p\"\ntrain = "
                                    "\"train.tsv\"\nvalidation = \"validation.tsv\"\n"
                                    "test = \"test.tsv\"\nstress = true\n"
                                    "[model]\nd_model = 16\nheads = 2\nd_ff = 32\nlayers = 1\n"
                                    "[train]\nsteps = 40\nbatch = 8\nlr = 3e-3\neval_every = 20\n");
  CommandResult r =
      run_command(std::string(ABLATE_CLI) + " run " + file + " --out " + dir.str() + "/runs -q");
  REQUIRE(r.status == 0);
  const std::string run = dir.str() + "/runs/g2p_run";
  const nlohmann::json index = nlohmann::json::parse(read_text(run + "/trials.json"));
  const std::string trial = run + "/trials/" + index["trials"][0]["id"].get<std::string>();
  const nlohmann::json test = nlohmann::json::parse(read_text(trial + "/summary.json"))["test"];
  std::istringstream tsv(read_text(trial + "/predictions.tsv"));
  std::string line;
  std::getline(tsv, line);
  CHECK(line == "id\tsource\tprediction\treferences");
  double edits = 0, length = 0, wrong = 0, rows = 0;
  std::vector<std::string> sources;
  while (std::getline(tsv, line)) {
    const std::vector<std::string> cells = split(line, "\t");
    REQUIRE(cells.size() == 4);
    CHECK(cells[0] == std::to_string(std::int64_t(rows)));
    sources.push_back(cells[1]);
    std::size_t best = SIZE_MAX, best_length = 0;
    for (const std::string& ref : split(cells[3], " ||| ")) {
      const std::size_t d = levenshtein(words(cells[2]), words(ref));
      if (d < best) best = d, best_length = words(ref).size();
    }
    edits += double(best);
    length += double(best_length);
    wrong += best != 0;
    ++rows;
  }
  CHECK(sources == std::vector<std::string>{"cta", "bca"});
  CHECK(rows == 2);
  CHECK(test.at("per").get<double>() == Approx(edits / length));
  CHECK(test.at("wer").get<double>() == Approx(wrong / rows));
  // The report leads with the task's primary metric, PER (lower is better).
  CHECK_THAT(read_text(run + "/summary.md"), Catch::Contains("## Test per"));
  CHECK_THAT(read_text(run + "/summary.md"), Catch::Contains("lower is better"));
}

TEST_CASE("text_pairs with header = true skips the column names, test has CER, WER, BLEU and chrF",
          "[g2p]") {
  ScratchDir dir("text_pairs_header");
  std::string tsv = "source\ttarget\n";
  for (int i = 0; i < 30; ++i)
    tsv += "ab" + std::string(1, char('a' + i % 5)) + "\tba" + std::string(1, char('a' + i % 5)) +
           "\n";
  dir.file("pairs.tsv", tsv);
  nn::Options o{{"path", std::string("pairs.tsv")},
                {"tokens", std::string("char")},
                {"validation_fraction", 0.1},
                {"test_fraction", 0.1},
                {"max_length", std::int64_t(64)},
                {"lowercase", false},
                {"header", true}};
  auto t = task_registry().create("text_pairs", o, 1, dir.str());
  for (Split s : {Split::validation, Split::test})
    for (const auto& refs : t->reference_texts(s)) CHECK(refs[0] != "target");
  // Without the option the header is a pair like any other ("source" → "target").
  o.set("header", false);
  auto u = task_registry().create("text_pairs", o, 1, dir.str());
  CHECK(u->max_source_length() == 6);  // "source"
  CHECK(t->max_source_length() == 3);
  // A perfect prediction of the first test pair: CER and WER 0, chrF 100 (BLEU is
  // there too; on one three-letter word its higher n-gram orders are empty).
  std::vector<DecodedExample> x(1);
  x[0].prediction = t->references(Split::test)[0][0];
  x[0].reference_texts = t->reference_texts(Split::test)[0];
  std::map<std::string, double> m, se;
  t->score_decoded(x, m, se);
  CHECK(m.at("cer") == 0.0);
  CHECK(m.at("wer") == 0.0);
  CHECK(m.at("chrf") == Approx(100.0));
  CHECK(m.count("bleu") == 1);
}
