// The TOML writer of resolved configs (experiments/config/toml_writer.h): floats in
// their shortest round-trip form, and every document it writes reads back (through
// TOML++) as the table it was written from.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "autograd/rng.h"
#include "experiments/config/experiment.h"
#include "experiments/config/toml_writer.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

double read_back(const std::string& text) {
  toml::table t = toml::parse("x = " + text);
  return t["x"].value<double>().value();
}

}  // namespace

TEST_CASE("floats are written in the shortest text that reads back as the same double", "[toml]") {
  CHECK(shortest_float_text(0.003) == "0.003");
  CHECK(shortest_float_text(0.1) == "0.1");
  CHECK(shortest_float_text(1e-5) == "1e-05");
  CHECK(shortest_float_text(3.0) == "3.0");
  CHECK(shortest_float_text(10000.0) == "10000.0");
  CHECK(shortest_float_text(100000.0) == "1e+05");  // the shorter of the two exact forms
  CHECK(shortest_float_text(-0.0) == "-0.0");
  CHECK(shortest_float_text(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(shortest_float_text(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(shortest_float_text(std::nan("")) == "nan");
  // Every finite double of 200,000 random bit patterns, and the extremes, reads back
  // bit for bit.
  Generator g(11);
  std::vector<double> values = {std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max(),
                                1e22,
                                1e23,
                                5e-324,
                                0.30000000000000004};
  while (values.size() < 200000) {
    double v = std::bit_cast<double>(g.next_u64());
    if (std::isfinite(v)) values.push_back(v);
  }
  std::size_t wrong = 0;
  for (double v : values)
    wrong += std::bit_cast<std::uint64_t>(read_back(shortest_float_text(v))) !=
             std::bit_cast<std::uint64_t>(v);
  CHECK(wrong == 0);
}

TEST_CASE("a written document reads back as the table it was written from", "[toml]") {
  toml::table sub{{"lr", 0.003}, {"name with space", "x"}, {"empty", toml::table{}}};
  toml::table doc{
      {"text", "quote \" backslash \\ tab \t newline \n bell \x07 del \x7f unicode \xc3\xa9"},
      {"int", std::int64_t(-9007199254740993)},
      {"yes", true},
      {"small", toml::array{0.001, 0.5, 1e-300, 2.0}},
      {"mixed", toml::array{toml::table{{"kind", "layer"}, {"eps", 1e-5}}, toml::array{1, 2}}},
      {"a.b", "a quoted key"},
      {"table", sub},
  };
  const std::string text = toml_document_text(doc);
  INFO(text);
  toml::table back = toml::parse(text);
  CHECK(back == doc);
  CHECK_THAT(text, Catch::Contains("lr = 0.003\n"));
  CHECK_THAT(text, Catch::Contains("\"a.b\" = \"a quoted key\""));
  CHECK_THAT(text, Catch::Contains("[table.empty]"));
}

TEST_CASE("a trial's resolved config.toml writes floats as they were given", "[toml]") {
  ScratchDir dir("toml_writer");
  const std::string file = dir.file(
      "exp.toml", tiny_experiment("floats", "clip_grad_norm = 0.7\nlabel_smoothing = 0.1\n"));
  Experiment e = load_experiment(file);
  REQUIRE(e.trials.size() == 1);
  const std::string& config = e.trials[0].config_toml;
  INFO(config);
  CHECK_THAT(config, Catch::Contains("lr = 0.003\n"));
  CHECK_THAT(config, Catch::Contains("clip_grad_norm = 0.7\n"));
  CHECK_THAT(config, Catch::Contains("label_smoothing = 0.1\n"));
  CHECK_THAT(config, Catch::Contains("beta1 = 0.9\n"));
  CHECK_THAT(config, !Catch::Contains("0000000"));
  // It is a trial of its own: loaded as an experiment file, it is the same trial.
  Experiment again = load_experiment(dir.file("config.toml", config));
  REQUIRE(again.trials.size() == 1);
  CHECK(again.trials[0].id == e.trials[0].id);
}
