// What report.html draws besides its tables (experiments/reports/report_figures.h), from
// a fake run directory: the curve bands stay in their metric's range, as comparisons.csv's
// intervals do (an accuracy's t interval near 1, a loss's near 0, would leave it).
#include "experiments/reports/report_figures.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "experiments/io/atomic_file.h"
#include "experiments/reports/run_points.h"
#include "experiments/reports/run_rows.h"
#include "experiments/stats/comparison.h"
#include "tests/scratch_dir.h"

using namespace ablate::experiments;
namespace fs = std::filesystem;
using json = nlohmann::json;
using ablate_tests::ScratchDir;

namespace {

// One point, three seeds, one evaluation each: accuracies 0.875, 1, 1 and losses 0.5,
// 0.25, 0.25.
void three_seeds(const std::string& dir) {
  json index{{"name", "fake"},
             {"description", "a fake run"},
             {"swept_keys", {"model.attention.qk"}},
             {"family", "seq2seq"},
             {"trials", json::array()}};
  const std::string label = "model.attention.qk=separate";
  const double accuracy[] = {0.875, 1.0, 1.0}, loss[] = {0.5, 0.25, 0.25};
  for (int seed = 0; seed < 3; ++seed) {
    const std::string id = "t" + std::to_string(seed);
    index["trials"].push_back({{"id", id},
                               {"seed", seed},
                               {"point", {{"model.attention.qk", "separate"}}},
                               {"point_id", label},
                               {"label", label}});
    fs::create_directories(dir + "/trials/" + id);
    const json e{{"step", 10},
                 {"train_loss", loss[seed]},
                 {"val_loss", loss[seed]},
                 {"sequence_accuracy", accuracy[seed]},
                 {"lr", 1e-3},
                 {"grad_norm", 1.0},
                 {"seconds", 0.1}};
    write_file_atomically(dir + "/trials/" + id + "/metrics.jsonl", e.dump() + "\n");
    const json metrics{{"sequence_accuracy", accuracy[seed]}, {"val_loss", loss[seed]}};
    const json summary{{"id", id},
                       {"status", "ok"},
                       {"final", metrics},
                       {"best", metrics},
                       {"test", {{"sequence_accuracy", accuracy[seed]}}}};
    write_file_atomically(dir + "/trials/" + id + "/summary.json", summary.dump(2));
  }
  write_file_atomically(dir + "/trials.json", index.dump(2));
}

}  // namespace

// Protects "every band within the metric's range": the page's curves chart draws these
// numbers as they are.
TEST_CASE("report.html's curve bands are clipped to the metric's range", "[report_html]") {
  ScratchDir dir("report_figures");
  three_seeds(dir.str());
  // Unclipped, the t intervals leave the ranges: above 1 for the accuracy, below 0 for the losses.
  REQUIRE(stats::summarize(std::vector<double>{0.875, 1.0, 1.0}).ci_high > 1);
  REQUIRE(stats::summarize(std::vector<double>{0.5, 0.25, 0.25}).ci_low < 0);
  const json figures = report_figures(dir.str(), points_of(read_run(dir.str()), "fake"));
  REQUIRE(figures.size() == 1);
  const json& bands = figures[0]["bands"];
  CHECK(bands["sequence_accuracy"]["high"][0].get<double>() == 1);
  CHECK(bands["sequence_accuracy"]["low"][0].get<double>() < 0.875);
  for (const char* loss : {"val_loss", "train_loss"}) {
    INFO(loss);
    CHECK(bands[loss]["low"][0].get<double>() == 0);
    CHECK(bands[loss]["high"][0].get<double>() > 0.5);
  }
}
