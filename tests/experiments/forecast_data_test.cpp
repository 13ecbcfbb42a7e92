// The forecast CSV loader: a time column, targets and covariates chosen by name,
// quoted headers, the three missing-value policies (with interpolated values worked
// by hand) and errors that name file:line:column; and the forecast task built on it:
// rolling-origin window counts and the covariates' shape.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include "tests/build_paths.h"

#include "experiments/config/experiment.h"
#include "experiments/tasks/forecast_data.h"
#include "experiments/tasks/task.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

SeriesTable read(const std::string& path, SeriesCsvOptions o = {}) {
  return read_series_csv(path, o);
}

std::vector<double> column(const SeriesTable& t, std::int64_t s) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < t.steps; ++i) out.push_back(t.value(i, s));
  return out;
}

}  // namespace

TEST_CASE(
    "forecast csv: a time column is kept as labels, not a feature, and a quoted header names "
    "columns",
    "[forecast]") {
  testing::ScratchDir dir("forecast_csv_time");
  // statsmodels' sunspots: a quoted header; co2: dates as integers; elec_equip: dates as text.
  const std::string quoted =
      dir.file("sunspots.csv", "\"YEAR\",\"SUNACTIVITY\"\n1700,5\n1701,11\n1702,16\n");
  SeriesCsvOptions o;
  o.time_column = "YEAR";
  SeriesTable t = read(quoted, o);
  CHECK(t.series == 1);
  CHECK(t.targets == 1);
  CHECK(t.names == std::vector<std::string>{"SUNACTIVITY"});
  CHECK(t.times == std::vector<std::string>{"1700", "1701", "1702"});
  CHECK(column(t, 0) == std::vector<double>{5, 11, 16});

  const std::string dates = dir.file("elec.csv", "DATE,STS.M\nJan-1-1995,66.19\nFeb-1-1995,69.5\n");
  o.time_column = "DATE";
  t = read(dates, o);
  CHECK(t.times == std::vector<std::string>{"Jan-1-1995", "Feb-1-1995"});
  CHECK(column(t, 0) == std::vector<double>{66.19, 69.5});
  // Without time_column a date column is just a column; text in it is an error naming the cell.
  CHECK_THAT(error_of([&] { read(dates); }),
             Catch::Contains("elec.csv:2:1: column 'DATE': 'Jan-1-1995' is not a number"));
}

TEST_CASE("forecast csv: targets and covariates are chosen by name, the rest is ignored unparsed",
          "[forecast]") {
  testing::ScratchDir dir("forecast_csv_columns");
  const std::string f =
      dir.file("macro.csv", "\"year\",\"quarter\",gdp,cons,inv\n1959,Q1,1,2,3\n1959,Q2,4,5,6\n");
  SeriesCsvOptions o;
  o.targets = {"inv", "gdp"};
  o.covariates = {"cons"};
  SeriesTable t = read(f, o);
  CHECK(t.series == 3);
  CHECK(t.targets == 2);
  CHECK(t.names == std::vector<std::string>{
                       "inv", "gdp", "cons"});  // targets in the order asked, then covariates
  CHECK(column(t, 0) == std::vector<double>{3, 6});
  CHECK(column(t, 1) == std::vector<double>{1, 4});
  CHECK(column(t, 2) == std::vector<double>{2, 5});
  // The default targets: every column but the time column and the covariates.
  const std::string g = dir.file("g.csv", "t,a,b,c\nx,1,2,3\ny,4,5,6\n");
  SeriesCsvOptions d;
  d.time_column = "t";
  d.covariates = {"b"};
  t = read(g, d);
  CHECK(t.names == std::vector<std::string>{"a", "c", "b"});
  CHECK(t.targets == 2);
  CHECK(column_list(" a, b ,c") == std::vector<std::string>{"a", "b", "c"});
  CHECK(column_list("").empty());
}

TEST_CASE("forecast csv: column-selection errors name the header line and the allowed columns",
          "[forecast]") {
  testing::ScratchDir dir("forecast_csv_selection");
  const std::string f = dir.file("f.csv", "t,a,b\n1,2,3\n2,4,5\n");
  SeriesCsvOptions o;
  o.targets = {"z"};
  CHECK_THAT(error_of([&] { read(f, o); }),
             Catch::Contains(
                 "f.csv:1: targets names 'z', which is not a column; the columns are: t, a, b"));
  o.targets = {"a"};
  o.covariates = {"a"};
  CHECK_THAT(error_of([&] { read(f, o); }),
             Catch::Contains("covariates names 'a', which is already a target"));
  SeriesCsvOptions time;
  time.time_column = "a";
  time.targets = {"a"};
  CHECK_THAT(error_of([&] { read(f, time); }), Catch::Contains("already the time column"));
  const std::string headerless = dir.file("h.csv", "1,2\n3,4\n");
  SeriesCsvOptions named;
  named.time_column = "t";
  CHECK_THAT(error_of([&] { read(headerless, named); }),
             Catch::Contains("h.csv:1: the first row holds numbers"));
  // Time labels: non-empty and unique.
  const std::string repeated = dir.file("r.csv", "t,a\n1,2\n\n1,3\n");
  SeriesCsvOptions by_t;
  by_t.time_column = "t";
  CHECK_THAT(error_of([&] { read(repeated, by_t); }),
             Catch::Contains("r.csv:4:1: time label '1' repeats line 2"));
  const std::string empty_label = dir.file("e.csv", "t,a\n1,2\n,3\n");
  CHECK_THAT(error_of([&] { read(empty_label, by_t); }),
             Catch::Contains("e.csv:3:1: empty time label"));
}

TEST_CASE(
    "forecast csv: missing values are an error by default, naming file:line:column and the "
    "remedies",
    "[forecast]") {
  testing::ScratchDir dir("forecast_csv_missing_error");
  for (const std::string cell : {"", "NA", "NaN", "nan"}) {
    const std::string f =
        dir.file("m.csv", "date,co2\n19580329,316.1\n19580405," + cell + "\n19580412,317\n");
    SeriesCsvOptions o;
    o.time_column = "date";
    INFO("cell '" << cell << "'");
    CHECK_THAT(error_of([&] { read(f, o); }),
               Catch::Contains("m.csv:3:2: column 'co2': missing value '" + cell + "'") &&
                   Catch::Contains("missing = \"drop\" or \"interpolate\""));
  }
  // Other non-numbers are not missing values: "inf" is not finite, "n/a" not a number.
  const std::string inf = dir.file("inf.csv", "a\n1\ninf\n");
  CHECK_THAT(error_of([&] { read(inf); }),
             Catch::Contains("inf.csv:3:1: column 'a': 'inf' is not finite"));
  const std::string na = dir.file("na.csv", "a\n1\nn/a\n");
  CHECK_THAT(error_of([&] { read(na); }),
             Catch::Contains("na.csv:3:1: column 'a': 'n/a' is not a number"));
}

TEST_CASE("forecast csv: drop removes every row with a missing target or covariate", "[forecast]") {
  testing::ScratchDir dir("forecast_csv_drop");
  const std::string f = dir.file("d.csv", "t,a,b,unused\n1,1,10,x\n2,NA,20,x\n3,3,,x\n4,4,40,\n");
  SeriesCsvOptions o;
  o.time_column = "t";
  o.targets = {"a"};
  o.covariates = {"b"};
  o.missing = MissingPolicy::drop;
  SeriesTable t = read(f, o);
  CHECK(t.steps == 2);  // steps 1 and 4 become neighbours; the unused column's gap does not count
  CHECK(t.times == std::vector<std::string>{"1", "4"});
  CHECK(column(t, 0) == std::vector<double>{1, 4});
  CHECK(column(t, 1) == std::vector<double>{10, 40});
  o.min_rows = 3;
  o.why_min_rows = "lookback + horizon + 1";
  CHECK_THAT(error_of([&] { read(f, o); }),
             Catch::Contains("2 data rows after the header and the dropped rows, "
                             "need at least 3 (lookback + horizon + 1)"));
}

TEST_CASE(
    "forecast csv: interpolate fills interior gaps linearly in the row index and refuses the ends",
    "[forecast]") {
  testing::ScratchDir dir("forecast_csv_interpolate");
  // a: a gap of two between 1 and 7 → 3, 5; b: a gap of one between 10 and 20 → 15.
  const std::string f = dir.file("i.csv", "a,b\n1,10\nNA,\nnan,20\n7,30\n");
  SeriesCsvOptions o;
  o.missing = MissingPolicy::interpolate;
  SeriesTable t = read(f, o);
  CHECK(t.steps == 4);
  CHECK(column(t, 0) == std::vector<double>{1, 3, 5, 7});
  CHECK(column(t, 1) == std::vector<double>{10, 15, 20, 30});
  const std::string leading = dir.file("lead.csv", "a,b\n1,\n2,4\n");
  CHECK_THAT(error_of([&] { read(leading, o); }),
             Catch::Contains("lead.csv:2:2: column 'b': missing value at the start of the series"));
  const std::string trailing = dir.file("trail.csv", "a,b\n1,3\n2,4\nNaN,5\n\nNA,6\n");
  CHECK_THAT(error_of([&] { read(trailing, o); }),
             Catch::Contains("trail.csv:4:1: column 'a': missing value at the end of the series"));
}

TEST_CASE(
    "forecast task: covariates are input channels only, test windows are every origin of the test "
    "part",
    "[forecast]") {
  testing::ScratchDir dir("forecast_task_covariates");
  // 100 steps: 60 training, 20 validation, 20 test; target t, covariate 1000 + t.
  std::string csv = "time,y,x\n";
  for (int t = 0; t < 100; ++t)
    csv +=
        "d" + std::to_string(t) + "," + std::to_string(t) + "," + std::to_string(1000 + t) + "\n";
  dir.file("c.csv", csv);
  nn::Options o{{"csv", std::string("c.csv")}, {"time_column", std::string("time")},
                {"targets", std::string("y")}, {"covariates", std::string("x")},
                {"lookback", std::int64_t(5)}, {"horizon", std::int64_t(3)},
                {"normalize", false}};
  auto task = task_registry().create("forecast", o, 1, dir.str());
  CHECK(task->series() == 1);
  CHECK(task->input_series() == 2);
  Generator gen(3);
  ForecastBatch b = task->forecast_train_batch(gen, 4);
  CHECK(b.x.shape() == Shape{4, 5, 2});
  CHECK(b.y.shape() == Shape{4, 3, 1});
  CHECK(b.x.at(1) == b.x.at(0) + 1000);  // channel 1 is the covariate
  // Rolling origin: origins 80..97 (every test step that starts 3 forecast steps in the
  // part), each with its true history 5 steps back, so 20 - 3 + 1 = 18 windows.
  std::vector<double> first_forecasts;
  for (const ForecastBatch& w : task->forecast_evaluation_batches(Split::test, 7))
    for (std::int64_t i = 0; i < w.y.shape()[0]; ++i) {
      first_forecasts.push_back(w.y.at(i * 3));
      CHECK(w.x.at(i * 10 + 4 * 2) ==
            w.y.at(i * 3) - 1);  // the lookback ends just before the origin
    }
  REQUIRE(first_forecasts.size() == 18);
  CHECK(first_forecasts.front() == 80);
  CHECK(first_forecasts.back() == 97);
  std::int64_t validation = 0;
  for (const ForecastBatch& w : task->forecast_evaluation_batches(Split::validation, 7))
    validation += w.y.shape()[0];
  CHECK(validation == 18);
  // The model is built with both channels in and the target out.
  const ForecastContext* c = task->forecast_context();
  REQUIRE(c != nullptr);
  CHECK(c->metric_names == std::vector<std::string>{"y"});
  CHECK(c->training.steps == 60);
  CHECK(c->mase_denominator == std::vector<double>{1.0});  // season 1 on a unit trend
}

TEST_CASE("forecast task: season longer than lookback is an option error", "[forecast]") {
  CHECK_THROWS_AS(
      task_registry().create("forecast",
                             {{"season", std::int64_t(30)}, {"lookback", std::int64_t(24)}}, 1, ""),
      nn::OptionError);
}

TEST_CASE("the shipped synthetic forecasting experiment still loads", "[forecast]") {
  const Experiment e = load_experiment(std::string(ABLATE_TEST_DATA_DIR) +
                                       "/../experiments/studies/forecasting.toml");
  CHECK(e.trials.size() == 2 * 4 * 2 * 10 * 3);
}

TEST_CASE("forecast csv: a cell is a number by its grammar exactly (+-5 is not -5)", "[forecast]") {
  testing::ScratchDir dir("forecast_grammar");
  // An optional sign, digits with an optional point, an optional exponent: these read as numbers.
  const std::vector<std::pair<std::string, double>> numbers = {
      {"7", 7},  {"-1.5", -1.5}, {"+2", 2},          {".5", 0.5},
      {"5.", 5}, {"1e3", 1000},  {"-2.5E-1", -0.25}, {"+1e+2", 100}};
  for (const auto& [cell, value] : numbers) {
    const std::string text = cell;  // Clang 14: no structured bindings in INFO's lambda
    INFO(text);
    const SeriesTable t = read(dir.file("ok.csv", "a\n1\n" + cell + "\n"));
    CHECK(t.value(1, 0) == value);
  }
  // Anything else is not: a second sign, a sign alone, hex, spaces inside (a quoted
  // cell keeps them), an exponent without digits, a comma as the decimal point.
  for (const std::string cell :
       {"+-5", "-+5", "--5", "+", "-", ".", "0x10", "\" 5\"", "1 2", "1e", "e5", "1.5.2", "5-"}) {
    INFO(cell);
    const std::string f = dir.file("bad.csv", "a\n1\n" + cell + "\n");
    const std::string shown = cell == "\" 5\"" ? " 5" : cell;
    CHECK_THAT(error_of([&] { read(f); }),
               Catch::Contains("bad.csv:3:1: column 'a': '" + shown + "' is not a number"));
  }
  // Infinity in any spelling is "not finite"; beyond double's range is beyond f32's.
  for (const std::string cell : {"inf", "-Infinity", "+INF"}) {
    INFO(cell);
    CHECK_THAT(error_of([&] { read(dir.file("inf.csv", "a\n1\n" + cell + "\n")); }),
               Catch::Contains("is not finite"));
  }
  CHECK_THAT(error_of([&] { read(dir.file("huge.csv", "a\n1\n1e999\n")); }),
             Catch::Contains("beyond the range of f32"));
  CHECK(read(dir.file("tiny.csv", "a\n1\n-1e-999\n")).value(1, 0) == 0.0);
}
