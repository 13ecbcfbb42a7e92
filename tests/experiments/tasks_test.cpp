// The "task" axis: determinism from the seed, correct targets, the padded BOS/EOS
// layout, held-out data that never leaks into training, and error messages that name
// the file and line of bad user data.
// Over 500 lines on purpose: one section per built-in task, each checking the same
// four properties, so that a new task is reviewed against all of them in one place.
#include <catch2/catch.hpp>

#include "tests/error_message.h"
#include "tests/scratch_dir.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "experiments/tasks/numbers_to_words.h"
#include "experiments/tasks/task.h"

using namespace ablate;
using namespace ablate::experiments;
using ablate_tests::ScratchDir;

namespace {

std::unique_ptr<Task> make(const std::string& name, nn::Options o = {}, std::uint64_t seed = 7,
                           const std::string& base_dir = "") {
  return task_registry().create(name, o, seed, base_dir);
}

std::vector<std::int32_t> ints(const Tensor& t) {
  std::vector<std::int32_t> v(t.data<std::int32_t>(), t.data<std::int32_t>() + t.numel());
  return v;
}

std::vector<float> floats(const Tensor& t) {
  return {t.data<float>(), t.data<float>() + t.numel()};
}

bool same(const Seq2SeqBatch& a, const Seq2SeqBatch& b) {
  return a.src.shape() == b.src.shape() && a.tgt_in.shape() == b.tgt_in.shape() &&
         ints(a.src) == ints(b.src) && ints(a.tgt_in) == ints(b.tgt_in) &&
         ints(a.tgt_out) == ints(b.tgt_out);
}

bool same(const std::vector<Seq2SeqBatch>& a, const std::vector<Seq2SeqBatch>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

// Row b of a [B, T] i32 tensor up to (not including) the first `stop` id.
std::vector<std::int32_t> row(const Tensor& t, std::int64_t b, std::int32_t stop) {
  std::vector<std::int32_t> out;
  for (std::int64_t j = 0; j < t.shape()[1]; ++j) {
    auto id = std::int32_t(t.at(b * t.shape()[1] + j));
    if (id == stop) break;
    out.push_back(id);
  }
  return out;
}

// Checks the layout every sequence batch shares and returns (source, target) per row.
std::vector<SequencePair> check_layout(const Seq2SeqBatch& batch, std::int64_t batch_size) {
  REQUIRE(batch.src.dtype() == DType::i32);
  REQUIRE(batch.src.shape()[0] == batch_size);
  REQUIRE(batch.tgt_in.shape() == batch.tgt_out.shape());
  const std::int64_t ts = batch.src.shape()[1], tt = batch.tgt_in.shape()[1];
  std::vector<SequencePair> rows;
  bool some_row_full_src = false, some_row_full_tgt = false;
  for (std::int64_t b = 0; b < batch_size; ++b) {
    SequencePair p{row(batch.src, b, kPad), row(batch.tgt_out, b, kEos)};
    // Source: tokens then only padding.
    for (std::int64_t j = std::int64_t(p.source.size()); j < ts; ++j)
      REQUIRE(batch.src.at(b * ts + j) == kPad);
    // tgt_out = target + EOS + padding; tgt_in = BOS + target + padding.
    const std::int64_t n = std::int64_t(p.target.size());
    REQUIRE(n < tt);
    REQUIRE(batch.tgt_out.at(b * tt + n) == kEos);
    REQUIRE(batch.tgt_in.at(b * tt) == kBos);
    for (std::int64_t j = 0; j < n; ++j)
      REQUIRE(batch.tgt_in.at(b * tt + j + 1) == p.target[std::size_t(j)]);
    for (std::int64_t j = n + 1; j < tt; ++j) {
      REQUIRE(batch.tgt_out.at(b * tt + j) == kPad);
      REQUIRE(batch.tgt_in.at(b * tt + j) == kPad);
    }
    for (std::int32_t id : p.source) REQUIRE(id >= kFirstToken);
    for (std::int32_t id : p.target) REQUIRE(id >= kFirstToken);
    some_row_full_src |= std::int64_t(p.source.size()) == ts;
    some_row_full_tgt |= n + 1 == tt;
    rows.push_back(std::move(p));
  }
  // Padded to the longest row of the batch, not beyond.
  REQUIRE(some_row_full_src);
  REQUIRE(some_row_full_tgt);
  return rows;
}

// This process's scratch directory, removed at exit (ctest runs test cases as processes
// side by side; file names differ between test cases).
const ScratchDir& scratch() {
  static const ScratchDir dir("tasks");
  return dir;
}

// A file in the scratch directory; returns its path.
std::string write_temp(const std::string& name, const std::string& text) {
  return scratch().file(name, text);
}

std::string temp_dir() {
  return scratch().str();
}

using ablate::testing::error_of;

}  // namespace

TEST_CASE("task registry lists every built-in task", "[tasks]") {
  auto names = task_registry().names();
  for (const char* n : {"copy", "reverse", "sort", "numbers_to_words", "forecast", "text_pairs"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  CHECK(task_registry().axis() == "task");
}

TEST_CASE("symbolic tasks are deterministic in the seed", "[tasks]") {
  for (const char* name : {"copy", "reverse", "sort"}) {
    auto a = make(name, {}, 3), b = make(name, {}, 3), c = make(name, {}, 4);
    CHECK(same(a->evaluation_batches(Split::validation, 32),
               b->evaluation_batches(Split::validation, 32)));
    CHECK_FALSE(same(a->evaluation_batches(Split::validation, 32),
                     c->evaluation_batches(Split::validation, 32)));
    Generator g1(11), g2(11), g3(12);
    CHECK(same(a->train_batch(g1, 16), c->train_batch(g2, 16)));  // only the stream matters
    CHECK_FALSE(same(a->train_batch(g1, 16), a->train_batch(g3, 16)));
  }
}

TEST_CASE("copy reverse and sort targets follow their sources", "[tasks]") {
  Generator gen(5);
  for (const char* name : {"copy", "reverse", "sort"}) {
    auto task = make(name, {{"vocab", std::int64_t(5)},
                            {"min_length", std::int64_t(2)},
                            {"max_length", std::int64_t(9)}});
    CHECK(task->family() == TaskFamily::seq2seq);
    CHECK(task->source_vocab() == kFirstToken + 5);
    CHECK(task->target_vocab() == kFirstToken + 5);
    CHECK(task->max_source_length() == 9);
    CHECK(task->max_target_length() == 10);
    std::set<std::size_t> lengths;
    for (int round = 0; round < 20; ++round)
      for (const SequencePair& p : check_layout(task->train_batch(gen, 16), 16)) {
        REQUIRE(p.source.size() >= 2);
        REQUIRE(p.source.size() <= 9);
        for (std::int32_t id : p.source) REQUIRE(id < kFirstToken + 5);
        lengths.insert(p.source.size());
        std::vector<std::int32_t> want = p.source;
        if (std::string(name) == "reverse") std::reverse(want.begin(), want.end());
        if (std::string(name) == "sort") std::sort(want.begin(), want.end());
        REQUIRE(p.target == want);
      }
    CHECK(lengths.size() == 8);  // every length 2..9 occurs
  }
}

TEST_CASE("validation set has validation_size rows in batches", "[tasks]") {
  auto task = make("reverse", {{"validation_size", std::int64_t(70)}});
  auto batches = task->evaluation_batches(Split::validation, 32);
  REQUIRE(batches.size() == 3);
  CHECK(batches[0].src.shape()[0] == 32);
  CHECK(batches[2].src.shape()[0] == 6);
  for (const auto& b : batches) check_layout(b, b.src.shape()[0]);
  CHECK_THROWS_AS(task->evaluation_batches(Split::validation, 0), std::invalid_argument);
}

TEST_CASE("detokenize stops at EOS and skips BOS", "[tasks]") {
  auto task = make("copy");
  std::int32_t ids[] = {kBos, kFirstToken + 4, kFirstToken + 0, kEos, kFirstToken + 1};
  CHECK(task->detokenize(ids, 5, true) == "4 0");
  CHECK(task->detokenize(ids + 1, 4, false) == "4 0");
}

TEST_CASE("option errors name the option with did-you-mean and ranges", "[tasks]") {
  std::string e = error_of([] { make("copy", {{"min_lenght", std::int64_t(3)}}); });
  CHECK_THAT(e, Catch::Contains("unknown option 'min_lenght'") &&
                    Catch::Contains("did you mean 'min_length'"));
  e = error_of([] { make("sort", {{"min_length", std::int64_t(13)}}); });
  CHECK_THAT(e, Catch::Contains("min_length") && Catch::Contains("13") &&
                    Catch::Contains("max_length") && Catch::Contains("12"));
  CHECK_THROWS_AS(make("sort", {{"min_length", std::int64_t(13)}}), nn::OptionError);
  e = error_of([] { make("copy", {{"vocab", std::int64_t(1)}}); });
  CHECK_THAT(e, Catch::Contains("vocab") && Catch::Contains("out of range"));
  e = error_of([] { make("coppy"); });
  CHECK_THAT(e, Catch::Contains("did you mean 'copy'"));
  e = error_of([] {
    make("text_pairs", {{"path", std::string("x.tsv")}, {"tokens", std::string("word")}});
  });
  CHECK_THAT(e, Catch::Contains("char") && Catch::Contains("whitespace"));
  e = error_of([] { make("text_pairs"); });
  CHECK_THAT(e, Catch::Contains("'path' is required"));
}

TEST_CASE("a task of one family refuses the other family's calls", "[tasks]") {
  Generator gen(1);
  auto copy = make("copy");
  CHECK_THROWS_WITH(copy->forecast_train_batch(gen, 2),
                    Catch::Contains("task 'copy' is not a forecasting task"));
  auto forecast = make("forecast", {{"length", std::int64_t(200)}});
  CHECK_THROWS_WITH(forecast->train_batch(gen, 2),
                    Catch::Contains("task 'forecast' is not a sequence task"));
  CHECK_THROWS_AS(forecast->evaluation_batches(Split::validation, 2), std::logic_error);
}

TEST_CASE("number words of known values", "[tasks]") {
  auto words = [](std::int64_t n) {
    std::string s;
    for (const std::string& w : number_to_words(n)) s += (s.empty() ? "" : " ") + w;
    return s;
  };
  CHECK(words(0) == "zero");
  CHECK(words(7) == "seven");
  CHECK(words(13) == "thirteen");
  CHECK(words(40) == "forty");
  CHECK(words(42) == "forty two");
  CHECK(words(105) == "one hundred and five");
  CHECK(words(342) == "three hundred and forty two");
  CHECK(words(1000) == "one thousand");
  CHECK(words(1005) == "one thousand and five");
  CHECK(words(1200) == "one thousand two hundred");
  CHECK(words(9999) == "nine thousand nine hundred and ninety nine");
  CHECK(words(120017) == "one hundred and twenty thousand and seventeen");
  CHECK(words(999999) == "nine hundred and ninety nine thousand nine hundred and ninety nine");
  CHECK_THROWS_AS(number_to_words(1000000), std::out_of_range);
}

TEST_CASE("numbers_to_words vocabulary and lengths", "[tasks]") {
  // zero..nineteen, twenty..ninety, hundred, and, thousand.
  CHECK(make("numbers_to_words")->target_vocab() == kFirstToken + 31);
  CHECK(make("numbers_to_words", {{"max_value", std::int64_t(12)}})->target_vocab() ==
        kFirstToken + 13);
  auto task = make("numbers_to_words");
  CHECK(task->source_vocab() == kFirstToken + 10);
  CHECK(task->max_source_length() == 4);
  CHECK(task->max_target_length() == 7 + 1);  // "seven thousand seven hundred and seventy seven"
}

TEST_CASE("numbers_to_words validation and test numbers never appear in training", "[tasks]") {
  auto task = make("numbers_to_words", {{"max_value", std::int64_t(999)}}, 21);
  auto held_out = [&](Split split) {
    std::set<std::string> numbers;
    for (const Seq2SeqBatch& b : task->evaluation_batches(split, 64))
      for (const SequencePair& p : check_layout(b, b.src.shape()[0])) {
        std::string digits =
            task->detokenize(p.source.data(), std::int64_t(p.source.size()), false);
        std::string text = task->detokenize(p.target.data(), std::int64_t(p.target.size()), true);
        std::string want;
        for (const std::string& w : number_to_words(std::stoll(digits)))
          want += (want.empty() ? "" : " ") + w;
        REQUIRE(text == want);
        numbers.insert(digits);
      }
    return numbers;
  };
  const std::set<std::string> validation = held_out(Split::validation),
                              test = held_out(Split::test);
  CHECK(validation.size() == 100);  // a tenth of 0..999 each (< the sizes asked for)
  CHECK(test.size() == 100);
  for (const std::string& n : test) CHECK(validation.count(n) == 0);
  Generator gen(3);
  std::set<std::string> seen;
  for (int round = 0; round < 200; ++round) {
    Seq2SeqBatch b = task->train_batch(gen, 64);
    for (const SequencePair& p : check_layout(b, 64)) {
      std::string digits = task->detokenize(p.source.data(), std::int64_t(p.source.size()), false);
      REQUIRE(validation.count(digits) == 0);
      REQUIRE(test.count(digits) == 0);
      seen.insert(digits);
    }
  }
  CHECK(seen.size() == 800);  // 12800 draws cover every training number
  // The split comes from the seed.
  CHECK(same(task->evaluation_batches(Split::test, 64),
             make("numbers_to_words", {{"max_value", std::int64_t(999)}}, 21)
                 ->evaluation_batches(Split::test, 64)));
  CHECK_FALSE(same(task->evaluation_batches(Split::validation, 64),
                   make("numbers_to_words", {{"max_value", std::int64_t(999)}}, 22)
                       ->evaluation_batches(Split::validation, 64)));
}

TEST_CASE(
    "symbolic tasks hold out distinct validation and test sequences that training never draws",
    "[tasks]") {
  // A small space (4² + 4³ + 4⁴ + 4⁵ = 1360 sources) so that without the rejection
  // training would draw held-out sequences hundreds of times.
  for (const char* name : {"copy", "reverse", "sort"}) {
    INFO(name);
    auto task = make(name, {{"vocab", std::int64_t(4)},
                            {"min_length", std::int64_t(2)},
                            {"max_length", std::int64_t(5)},
                            {"validation_size", std::int64_t(300)},
                            {"test_size", std::int64_t(300)}});
    std::set<std::vector<std::int32_t>> validation, test;
    for (const Seq2SeqBatch& b : task->evaluation_batches(Split::validation, 64))
      for (const SequencePair& p : check_layout(b, b.src.shape()[0])) validation.insert(p.source);
    for (const Seq2SeqBatch& b : task->evaluation_batches(Split::test, 64))
      for (const SequencePair& p : check_layout(b, b.src.shape()[0])) test.insert(p.source);
    CHECK(validation.size() == 300);  // distinct
    CHECK(test.size() == 300);
    for (const auto& s : test) REQUIRE(validation.count(s) == 0);
    Generator gen(8);
    std::int64_t drawn = 0;
    for (int round = 0; round < 100; ++round)
      for (const SequencePair& p : check_layout(task->train_batch(gen, 32), 32)) {
        REQUIRE(validation.count(p.source) == 0);
        REQUIRE(test.count(p.source) == 0);
        ++drawn;
      }
    CHECK(drawn == 3200);
  }
  // Holding out more than half of the space is refused, naming the option.
  auto too_many = [] {
    make("copy", {{"vocab", std::int64_t(4)},
                  {"min_length", std::int64_t(2)},
                  {"max_length", std::int64_t(5)}});
  };
  CHECK_THROWS_AS(too_many(), nn::OptionError);
  CHECK_THROWS_WITH(too_many(), Catch::Contains("validation_size") &&
                                    Catch::Contains("only 1360 distinct") &&
                                    Catch::Contains("of which 680 can be held out"));
}

TEST_CASE("forecast synthetic data shapes and determinism", "[tasks]") {
  auto task = make("forecast", {}, 9);
  CHECK(task->family() == TaskFamily::forecast);
  CHECK(task->series() == 3);
  CHECK(task->lookback() == 24);
  CHECK(task->horizon() == 8);
  Generator g1(1), g2(1);
  ForecastBatch a = task->forecast_train_batch(g1, 5);
  CHECK(a.x.shape() == Shape{5, 24, 3});
  CHECK(a.y.shape() == Shape{5, 8, 3});
  CHECK(a.x.dtype() == DType::f32);
  CHECK(floats(a.x) == floats(make("forecast", {}, 9)->forecast_train_batch(g2, 5).x));
  Generator g3(1);
  CHECK(floats(a.x) != floats(make("forecast", {}, 10)->forecast_train_batch(g3, 5).x));
  // 400 validation steps are forecast from 400 - 8 + 1 = 393 origins (below the 512 cap).
  auto val = task->forecast_evaluation_batches(Split::validation, 100);
  REQUIRE(val.size() == 4);
  CHECK(val[3].x.shape()[0] == 93);
  // A longer series is capped at 512 strided validation windows; test keeps every origin.
  auto longer = make("forecast", {{"length", std::int64_t(10000)}});
  std::int64_t windows = 0;
  for (const auto& b : longer->forecast_evaluation_batches(Split::validation, 128))
    windows += b.x.shape()[0];
  CHECK(windows <= 512);
  CHECK(windows > 256);
  std::int64_t test_windows = 0;
  for (const auto& b : longer->forecast_evaluation_batches(Split::test, 128))
    test_windows += b.x.shape()[0];
  CHECK(test_windows == 2000 - 8 + 1);
}

TEST_CASE("forecast windows respect the time split", "[tasks]") {
  // One value per step that encodes its time: value(t, s) = 10 t + s.
  std::string csv = "a,b\n";
  for (int t = 0; t < 100; ++t)
    csv += std::to_string(10 * t) + "," + std::to_string(10 * t + 1) + "\n";
  write_temp("split.csv", csv);
  nn::Options o{{"csv", std::string("split.csv")},
                {"lookback", std::int64_t(5)},
                {"horizon", std::int64_t(3)},
                {"normalize", false}};
  auto task = make("forecast", o, 1, temp_dir());
  CHECK(task->series() == 2);
  // 60 training steps (0..59), 20 validation steps (60..79), 20 test steps (80..99).
  auto check_window = [](const ForecastBatch& b, std::int64_t i, std::int64_t lo, std::int64_t hi) {
    const float* x = b.x.data<float>() + i * 5 * 2;
    const float* y = b.y.data<float>() + i * 3 * 2;
    std::int64_t start = std::int64_t(x[0]) / 10;
    for (int l = 0; l < 5; ++l) {
      REQUIRE(x[l * 2] == float(10 * (start + l)));
      REQUIRE(x[l * 2 + 1] == float(10 * (start + l) + 1));
    }
    for (int h = 0; h < 3; ++h) REQUIRE(y[h * 2] == float(10 * (start + 5 + h)));
    // The forecast steps lie in [lo, hi); the lookback is the true history before them.
    REQUIRE(start + 5 >= lo);
    REQUIRE(start + 8 <= hi);
    return start;
  };
  Generator gen(2);
  std::set<std::int64_t> train_starts;
  for (int round = 0; round < 100; ++round) {
    ForecastBatch b = task->forecast_train_batch(gen, 16);
    for (std::int64_t i = 0; i < 16; ++i) train_starts.insert(check_window(b, i, 0, 60));
  }
  CHECK(train_starts.size() == 53);  // every start 0..52 (training windows lie wholly in training)
  for (std::int64_t s : train_starts) CHECK(s >= 0);
  std::set<std::int64_t> val_starts, test_starts;
  for (const ForecastBatch& b : task->forecast_evaluation_batches(Split::validation, 4))
    for (std::int64_t i = 0; i < b.x.shape()[0]; ++i) val_starts.insert(check_window(b, i, 60, 80));
  CHECK(val_starts.size() == 18);  // every origin 60..77, starts 55..72
  for (const ForecastBatch& b : task->forecast_evaluation_batches(Split::test, 4))
    for (std::int64_t i = 0; i < b.x.shape()[0]; ++i)
      test_starts.insert(check_window(b, i, 80, 100));
  CHECK(test_starts.size() == 18);  // every origin 80..97, starts 75..92

  // Normalisation uses the training part: the training values average to zero.
  o.set("normalize", true);
  auto normalized = make("forecast", o, 1, temp_dir());
  Generator g(4);
  double first_series_sum = 0;
  std::int64_t count = 0;
  for (int round = 0; round < 200; ++round) {
    ForecastBatch b = normalized->forecast_train_batch(g, 16);
    for (std::int64_t i = 0; i < b.x.numel(); i += 2) first_series_sum += b.x.at(i), ++count;
  }
  CHECK(std::abs(first_series_sum / double(count)) < 0.1);
  float later = normalized->forecast_evaluation_batches(Split::validation, 4)[0].y.data<float>()[0];
  CHECK(later == Approx((600.0 - 295.0) / std::sqrt((60.0 * 60.0 - 1.0) / 12.0 * 100.0)));
}

TEST_CASE("forecast CSV errors name the file and line", "[tasks]") {
  auto err = [](const std::string& file, const std::string& text, nn::Options o = {}) {
    write_temp(file, text);
    o.set("csv", file);
    o.set("lookback", std::int64_t(2));
    o.set("horizon", std::int64_t(1));
    return error_of([&] { make("forecast", o, 1, temp_dir()); });
  };
  std::string rows;
  for (int t = 0; t < 30; ++t) rows += std::to_string(t) + ",1\n";
  CHECK_THAT(err("ragged.csv", "x,y\n1,2\n3\n" + rows),
             Catch::Contains("ragged.csv:3: 1 cells, expected 2"));
  CHECK_THAT(err("word.csv", "1,2\n3,abc\n" + rows),
             Catch::Contains("word.csv:2:2: column 2: 'abc' is not a number"));
  CHECK_THAT(err("missing.csv", "1,2\n3,\n" + rows),
             Catch::Contains("missing.csv:2:2: column 2: missing value ''"));
  CHECK_THAT(err("nan.csv", "1,2\nnan,1\n" + rows),
             Catch::Contains("nan.csv:2:1: column 1: missing value 'nan'"));
  CHECK_THAT(err("mixed_header.csv", "t,3\n" + rows),
             Catch::Contains("mixed_header.csv:1:1: column 1: 't' is not a number"));
  CHECK_THAT(err("empty.csv", ""), Catch::Contains("empty.csv:1: the file is empty"));
  CHECK_THAT(err("header_only.csv", "a,b\n"), Catch::Contains("header_only.csv:1: no data rows"));
  // Beyond f32 a value would reach the model as inf (found by the CSV fuzzer); long
  // cells are cut in the message.
  CHECK_THAT(err("huge.csv", "1,2\n3,1e39\n" + rows),
             Catch::Contains("huge.csv:2:2: column 2: '1e39' is beyond the range of f32"));
  CHECK_THAT(err("digits.csv", "1,2\n3," + std::string(60, '3') + "\n" + rows),
             Catch::Contains("digits.csv:2:2: column 2: '" + std::string(40, '3') +
                             "… (60 bytes in all)' is beyond"));
  // A nearly constant training part whose later values are not: z-scores leave f32.
  std::string flat;
  for (int t = 0; t < 30; ++t) flat += t == 29 ? "3e38\n" : (t % 2 ? "1\n" : "1.00000000001\n");
  CHECK_THAT(err("flat.csv", flat), Catch::Contains("flat.csv: column 1 ('column1'): z-scored") &&
                                        Catch::Contains("beyond the range of f32"));
  CHECK_THAT(err("short.csv", "a\n1\n2\n3\n"),
             Catch::Contains("short.csv:4: 3 data rows after the header, need at least 4"));
  CHECK_THAT(err("short_split.csv", "1\n2\n3\n4\n"), Catch::Contains("each part needs at least"));
  CHECK_THAT(error_of([] {
               make("forecast", {{"csv", std::string("/no/such/file.csv")}});
             }),
             Catch::Contains("/no/such/file.csv: cannot open"));
  // A constant target has no MASE (its seasonal naive error on training is 0).
  CHECK_THAT(err("constant.csv", rows),
             Catch::Contains("constant.csv: target column 'column2'") &&
                 Catch::Contains("MASE, which divides by its error there, is undefined"));
  // Windows line endings, blank lines and a header are all fine.
  std::string varied;
  for (int t = 0; t < 30; ++t) varied += std::to_string(t) + "," + std::to_string(t % 3) + "\n";
  write_temp("ok.csv", "a, b\r\n\r\n" + varied);
  CHECK(make("forecast",
             {{"csv", std::string("ok.csv")},
              {"lookback", std::int64_t(2)},
              {"horizon", std::int64_t(1)}},
             1, temp_dir())
            ->series() == 2);
}

TEST_CASE("forecast too short synthetic series is an option error", "[tasks]") {
  CHECK_THROWS_AS(make("forecast", {{"length", std::int64_t(50)}}), nn::OptionError);
}

TEST_CASE("text_pairs builds sorted vocabularies and maps unseen tokens to unk", "[tasks]") {
  std::string tsv;
  for (int i = 0; i < 40; ++i)
    tsv += "ab" + std::to_string(i % 10) + "\t" + std::to_string(i % 10) + "BA\n";
  tsv += "zz\tq\n";  // some rows hold tokens that only appear once
  write_temp("pairs.tsv", tsv);
  auto task =
      make("text_pairs", {{"path", std::string("pairs.tsv")}, {"validation_fraction", 0.25}}, 5,
           temp_dir());
  CHECK(task->max_source_length() == 3);
  CHECK(task->max_target_length() == 4);
  std::int64_t val_rows = 0;
  for (const auto& b : task->evaluation_batches(Split::validation, 4)) {
    auto rows = check_layout(b, b.src.shape()[0]);
    for (const auto& p : rows) {
      std::string src = task->detokenize(p.source.data(), std::int64_t(p.source.size()), false);
      std::string tgt = task->detokenize(p.target.data(), std::int64_t(p.target.size()), true);
      if (src == "zz" || src == "<unk><unk>")
        CHECK((tgt == "q" || tgt == "<unk>"));
      else if (src.find("<unk>") == std::string::npos)
        CHECK(tgt == std::string(1, src[2]) + "BA");
    }
    val_rows += std::int64_t(rows.size());
  }
  CHECK(val_rows == 10);  // round(41 × 0.25)
  std::int64_t test_rows = 0;
  for (const auto& b : task->evaluation_batches(Split::test, 4)) test_rows += b.src.shape()[0];
  CHECK(test_rows == 4);  // round(41 × 0.1), the default test_fraction
  Generator g1(1), g2(1);
  CHECK(same(task->train_batch(g1, 8),
             make("text_pairs", {{"path", std::string("pairs.tsv")}, {"validation_fraction", 0.25}},
                  5, temp_dir())
                 ->train_batch(g2, 8)));
  // Ids follow sorted token order: "0" < "1" < ... < "a" < "b" (after <unk>).
  auto whole = make(
      "text_pairs",
      {{"path", write_temp("sorted.tsv", "ba\tx\nab\ty\nab\tz\n")}, {"validation_fraction", 0.3}},
      1);
  CHECK(whole->source_vocab() == kFirstToken + 1 + 2);
}

TEST_CASE("text_pairs whitespace tokens and lowercase", "[tasks]") {
  std::string tsv = "Hello  World\tbonjour le monde\nhello\tbonjour\nworld\tmonde\n";
  auto task = make("text_pairs",
                   {{"path", write_temp("words.tsv", tsv)},
                    {"tokens", std::string("whitespace")},
                    {"lowercase", true},
                    {"validation_fraction", 0.3}},
                   2);
  CHECK(task->max_source_length() == 2);
  CHECK(task->max_target_length() == 4);
  Generator gen(1);
  for (const auto& p : check_layout(task->train_batch(gen, 6), 6)) {
    std::string src = task->detokenize(p.source.data(), std::int64_t(p.source.size()), false);
    CHECK((src == "hello world" || src == "hello" || src == "world"));
  }
}

TEST_CASE("text_pairs data may contain the text of special tokens", "[tasks]") {
  // "<pad>" or "<unk>" in a user's data are ordinary tokens with ids of their own, not
  // padding (found by the TSV fuzzer: it threw "token '<pad>' listed twice").
  auto task = make(
      "text_pairs",
      {{"path", write_temp("specials.tsv", "<pad> a\t<unk>\nb <eos>\t<bos> c\n<pad> a\t<unk>\n")},
       {"tokens", std::string("whitespace")},
       {"validation_fraction", 0.3}},
      1);
  Generator gen(2);
  for (const auto& p : check_layout(task->train_batch(gen, 4), 4)) {
    for (std::int32_t id : p.source) CHECK(id > kFirstToken);  // past <unk>, text_pairs' special
    std::string src = task->detokenize(p.source.data(), std::int64_t(p.source.size()), false);
    CHECK((src == "<pad> a" || src == "b <eos>"));
  }
}

TEST_CASE("text_pairs errors name the file and line", "[tasks]") {
  auto err = [](const std::string& file, const std::string& text, nn::Options o = {}) {
    o.set("path", file);
    write_temp(file, text);
    return error_of([&] { make("text_pairs", o, 1, temp_dir()); });
  };
  CHECK_THAT(err("notab.tsv", "a\tb\nab\n"), Catch::Contains("notab.tsv:2: no tab"));
  CHECK_THAT(err("blank.tsv", "a\tb\n\nc\td\n"), Catch::Contains("blank.tsv:2: empty line"));
  CHECK_THAT(err("tabs.tsv", "a\tb\tc\n"), Catch::Contains("tabs.tsv:1: 2 tabs"));
  CHECK_THAT(err("nosource.tsv", "a\tb\n\tb\n"), Catch::Contains("nosource.tsv:2: empty source"));
  CHECK_THAT(err("notarget.tsv", "a\tb\nc\t\n"), Catch::Contains("notarget.tsv:2: empty target"));
  CHECK_THAT(err("spaces.tsv", "a\tb\nc\t  \n", {{"tokens", std::string("whitespace")}}),
             Catch::Contains("spaces.tsv:2: empty target"));
  CHECK_THAT(err("long.tsv", "a\tb\nabcdef\tb\n", {{"max_length", std::int64_t(5)}}),
             Catch::Contains("long.tsv:2: source has 6 tokens, more than max_length = 5"));
  CHECK_THAT(err("empty.tsv", ""), Catch::Contains("empty.tsv:1: the file is empty"));
  CHECK_THAT(err("one.tsv", "a\tb\n"), Catch::Contains("one.tsv: only 1 pair"));
  CHECK_THAT(error_of([] {
               make("text_pairs", {{"path", std::string("nope.tsv")}}, 1, "/no/dir");
             }),
             Catch::Contains("/no/dir/nope.tsv: cannot open"));
}
