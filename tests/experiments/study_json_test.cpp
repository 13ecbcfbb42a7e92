// study.json read back by `ablate report` (experiments/study/study_json.h) through the
// shape checker (experiments/io/json_shape.h): a file from elsewhere is checked before
// study.md's code reads it with operator[], and a bad one is an error naming the file
// and the field, exit status 2, with nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "experiments/io/json_shape.h"
#include "tests/build_paths.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
using ablate::experiments::json_shape_problem;
using nlohmann::json;
namespace fs = std::filesystem;

// Protects the checker itself: each departure is named by its path.
TEST_CASE("a JSON value departing from its shape is named by field", "[study][unit]") {
  const json shape = {{"name", "string"},
                      {"rows", json::array({{{"d_k", "integer"}, {"mean?", "number"}}, 1, 3})},
                      {"pair", json::array({"number", 2})},
                      {"flag?", "boolean"}};
  const json good = {{"name", "x"}, {"rows", {{{"d_k", 4}}}}, {"pair", {1.5, 2}}};
  CHECK(json_shape_problem(good, shape).empty());
  struct Case {
    json value;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {json::array(), "field (top): must be an object"},
      {json{{"rows", good["rows"]}, {"pair", good["pair"]}}, "field name: missing"},
      {json{{"name", 3}, {"rows", good["rows"]}, {"pair", good["pair"]}},
       "field name: must be a string"},
      {json{{"name", "x"}, {"rows", {{{"d_k", 4.5}}}}, {"pair", good["pair"]}},
       "field rows[0].d_k: must be an integer"},
      {json{{"name", "x"},
            {"rows", {{{"d_k", 4}}, {{"d_k", 8}, {"mean", "high"}}}},
            {"pair", good["pair"]}},
       "field rows[1].mean: must be a number"},
      {json{{"name", "x"}, {"rows", json::array()}, {"pair", good["pair"]}},
       "field rows: must have 1 to 3 elements (has 0)"},
      {json{{"name", "x"}, {"rows", good["rows"]}, {"pair", {1}}},
       "field pair: must have 2 to 100000 elements (has 1)"},
      {json{{"name", "x"}, {"rows", good["rows"]}, {"pair", good["pair"]}, {"flag", "yes"}},
       "field flag: must be a boolean"},
  };
  for (const Case& c : cases) {
    INFO(c.value.dump());
    CHECK(json_shape_problem(c.value, shape) == c.problem);
  }
}

// Protects `ablate report` on a study's folder: study.json is checked before anything
// is written, whatever it holds.
TEST_CASE("a damaged study.json is refused naming its field and nothing is written",
          "[study][e2e]") {
  const fs::path committed = fs::path(std::string(ABLATE_TEST_DATA_DIR)) / ".." / "experiments" /
                             "studies" / "results" / "scaling_gradient";
  const json study = json::parse(read_text((committed / "study.json").string()));
  ScratchDir dir("study_json");
  const std::string folder = dir.str() + "/scaling_gradient";
  fs::create_directories(folder);
  fs::copy_file(committed / "record.jsonl", folder + "/record.jsonl");
  auto without = [&](json s, const json::json_pointer& at) {
    s[at.parent_pointer()].erase(at.back());
    return s;
  };
  auto with = [&](json s, const json::json_pointer& at, const json& value) {
    s[at] = value;
    return s;
  };
  struct Case {
    std::string name, text, message;
  };
  const std::vector<Case> cases = {
      {"not JSON", "{\"literal\": [", "study.json"},
      {"a missing number", without(study, "/literal/softmax_ones_10000/first"_json_pointer).dump(),
       "study.json: field literal.softmax_ones_10000.first: missing"},
      {"too short a list", with(study, "/literal/softmax_ones_10"_json_pointer, {0.1}).dump(),
       "study.json: field literal.softmax_ones_10: must have 10 to 100000 elements (has 1)"},
      {"a string for a number",
       with(study, "/attention/2/mean_max_prob/mean"_json_pointer, "0.5").dump(),
       "study.json: field attention[2].mean_max_prob.mean: must be a number"},
      {"a width that is no count",
       with(study, "/training/0/point/model.heads"_json_pointer, "0").dump(),
       "study.json: field training[0].point.model.heads: must be a positive integer"},
      {"a difference without its interval",
       without(study, "/training/5/test_loss/diff_ci_low"_json_pointer).dump(),
       "study.json: field training[5].test_loss.diff_ci_low: missing (diff is given)"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    dir.file("scaling_gradient/study.json", c.text);
    dir.file("scaling_gradient/summary.md", "as it was\n");
    const CommandResult r = run_command(std::string(ABLATE_CLI) + " report " + folder);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(c.message));
    CHECK(read_text(folder + "/summary.md") == "as it was\n");
    CHECK_FALSE(fs::exists(folder + "/results.csv"));
    CHECK_FALSE(fs::exists(folder + "/study.md"));
  }
}
