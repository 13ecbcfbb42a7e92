// Calibration of adaptive sweeps by simulation (experiments/stats/adaptive_calibration.h,
// `ablate selftest stats`): the adaptive design — first block 5 seeds, 5 a round, budget
// 40, α = 0.05, each question asked of the running intersection of t confidence
// sequences — keeps every false decision at or below α, while the naive design (a fixed-n
// t-test or TOST at every look) on the same data exceeds it; a huge effect is decided at
// the first look, an A/A study runs to the budget; and the tables experiments/README.md
// shows are the ones the command prints.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include "experiments/stats/adaptive_calibration.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

// `studies` studies of 40 gains each, true gain `effect` plus standard normal noise.
std::vector<std::vector<double>> normal_studies(int studies, double effect) {
  stats::SimulationDraws d(7);
  std::vector<std::vector<double>> out(static_cast<std::size_t>(studies));
  for (std::vector<double>& gains : out)
    for (int i = 0; i < 40; ++i) gains.push_back(effect + d.normal());
  return out;
}

}  // namespace

// One case for the whole default run: ctest gives each case a process of its own.
TEST_CASE(
    "adaptive calibration: every false decision of the adaptive design is within α, the naive "
    "design's exceeds α on the same data, and experiments/README.md shows those tables",
    "[stats][docs]") {
  const stats::AdaptiveCalibration c = stats::calibrate_adaptive(4000, 20261203);
  INFO(c.markdown());
  int judged = 0, naive = 0;
  for (const stats::CalibrationRow& r : c.decisions.rows) {
    INFO(r.scenario << ": " << r.measure);
    CHECK(r.datasets == 4000);
    CHECK(r.passes);
    judged += !r.bound.empty();
    if (r.measure.starts_with("naive")) {
      ++naive;
      CHECK(r.bound == "> 0.05");
      CHECK(r.low > 0.05);  // the whole interval above α: the reason the feature exists
    }
  }
  CHECK(judged >= 15);
  CHECK(naive >= 4);
  REQUIRE(c.power.size() == 4);
  CHECK(c.power[0].effect == 0);
  CHECK(c.power[0].decided.passes);
  CHECK(c.power[0].mean_seeds > 39);  // the A/A study almost always runs to the budget
  CHECK(c.passes());
  // Protects the documentation: experiments/README.md shows the tables of the default
  // run, not tables from another version of the rules.
  const std::string readme = experiments_readme();
  CHECK_THAT(readme, Catch::Contains(c.markdown()));
}

TEST_CASE("adaptive calibration: an effect of 10 sd is decided better at the first look, 5 seeds",
          "[stats]") {
  const stats::AdaptiveDesign design;
  for (const std::vector<double>& gains : normal_studies(200, 10)) {
    const stats::AdaptiveOutcome o =
        stats::run_adaptive(gains, stats::Question{}, design.alpha, design);
    REQUIRE(o.part.status == stats::PartStatus::agrees);
    CHECK(o.part.low > 0);
    CHECK(o.part.decided_round == 0);
    CHECK(o.seeds == 5);
  }
}

TEST_CASE("adaptive calibration: an A/A study runs to the budget of 40 seeds almost always",
          "[stats]") {
  const stats::AdaptiveDesign design;
  double seeds = 0;
  int open = 0;
  const auto studies = normal_studies(400, 0);
  for (const std::vector<double>& gains : studies) {
    const stats::AdaptiveOutcome o =
        stats::run_adaptive(gains, stats::Question{}, design.alpha, design);
    seeds += o.seeds;
    open += o.part.status == stats::PartStatus::open;
    CHECK((o.part.status == stats::PartStatus::open) ==
          (o.seeds == 40 && o.part.decided_round < 0));
  }
  CHECK(seeds / double(studies.size()) > 39);
  CHECK(open >= 380);
}

TEST_CASE(
    "adaptive calibration: ablate selftest stats prints the adaptive tables after the fixed "
    "design's and exits 0",
    "[stats][e2e]") {
  CommandResult r = run_command(std::string(ABLATE_CLI) + " selftest stats --datasets 400");
  INFO(r.output);
  CHECK(r.status == 0);
  const std::size_t fixed = r.output.find("ok: every rate is within its bound");
  const std::size_t adaptive = r.output.find("Calibration of adaptive sweeps: 400 simulated");
  REQUIRE(fixed != std::string::npos);
  REQUIRE(adaptive != std::string::npos);
  CHECK(fixed < adaptive);
  CHECK_THAT(r.output, Catch::Contains("| true gain | decided by 40 seeds [95% CI] |") &&
                           Catch::Contains("ok: every rate of the adaptive design is within its "
                                           "bound"));
}
