// The anytime-valid t confidence sequence (experiments/stats/confidence_sequence.h)
// against SciPy (tests/golden/sequence_fixtures.json, written by
// make_sequence_fixtures.py, which computes the e-value as a ratio of t densities and
// the radius by root-finding, not by the closed form used here), and the property the
// adaptive sweeps rely on: over repeated looks at null data it rejects at most α of the
// time, where a fixed-n t-test checked at every look does not.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "experiments/stats/confidence_sequence.h"
#include "tests/experiments/experiment_files.h"
#include "tests/experiments/golden_json.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
using Catch::Detail::Approx;

namespace {

nlohmann::json fixtures() {
  return golden_json("sequence_fixtures.json");
}

// The fixture writes an unbounded radius as null (JSON has no infinity).
double number(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::infinity();
}

}  // namespace

TEST_CASE("the t-mixture e-value agrees with SciPy's ratio of t densities") {
  const nlohmann::json f = fixtures();
  REQUIRE(f.at("e_values").size() >= 30);
  for (const auto& c : f.at("e_values")) {
    INFO("t " << c.at("t") << " n " << c.at("n") << " g " << c.at("g"));
    CHECK(stats::t_mixture_e_value(c.at("t"), c.at("n"), c.at("g")) ==
          Approx(c.at("e").get<double>()).epsilon(1e-10));
  }
}

TEST_CASE(
    "the confidence sequence's radius agrees with SciPy's root, unbounded where no t can reach "
    "1/alpha") {
  const nlohmann::json f = fixtures();
  REQUIRE(f.at("radius_factors").size() >= 20);
  for (const auto& c : f.at("radius_factors")) {
    INFO("n " << c.at("n") << " alpha " << c.at("alpha") << " g " << c.at("g"));
    const double expected = number(c.at("factor"));
    const double ours = stats::t_sequence_radius_factor(c.at("n"), c.at("alpha"), c.at("g"));
    if (std::isinf(expected))
      CHECK(std::isinf(ours));
    else
      CHECK(ours == Approx(expected).epsilon(1e-8));
  }
}

TEST_CASE("at the sequence's bound the e-value against the bound is exactly 1/alpha") {
  const std::vector<double> x{0.3, -0.1, 0.8, 0.45, 0.2, 0.9, -0.3, 0.5, 0.6, 0.15, 0.4, 0.05};
  const stats::MeanSequence s = stats::t_confidence_sequence(x, 0.05, 1.0);
  REQUIRE(std::isfinite(s.low));
  const double t_at_low = (s.mean - s.low) / (s.sd / std::sqrt(s.n));
  CHECK(stats::t_mixture_e_value(t_at_low, s.n, 1.0) == Approx(20.0).epsilon(1e-9));
  CHECK(s.high - s.mean == Approx(s.mean - s.low));
}

TEST_CASE(
    "over eight looks at null data the sequence rejects at most alpha, a t-test at every look far "
    "more") {
  // The same experiment as the fixture's simulation (SciPy's own draws there): values
  // N(0, 1), looks after 5, 10, ..., 40 of them, alpha 0.05.
  const nlohmann::json f = fixtures();
  CHECK(f.at("peeking").at("naive_rate").get<double>() > 0.1);
  CHECK(f.at("peeking").at("sequence_rate").get<double>() <= 0.05);
  std::mt19937_64 rng(20261203);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int reps = 2000;
  int rejected = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<double> x;
    bool hit = false;
    for (int n = 5; n <= 40; n += 5) {
      while (int(x.size()) < n) x.push_back(normal(rng));
      const stats::MeanSequence s = stats::t_confidence_sequence(x, 0.05, 1.0);
      hit |= s.low > 0 || s.high < 0;
      CHECK((s.low > 0 || s.high < 0) == (s.e_value_zero >= 20.0));  // the two views agree
    }
    rejected += hit;
  }
  // ≤ α = 0.05 with a margin for 2,000 replications (binomial sd ≈ 0.005 at 0.05).
  CHECK(double(rejected) / reps <= 0.05);
}

TEST_CASE("a confidence sequence needs two values, and an unusable alpha or g is refused") {
  const std::vector<double> one{1.0};
  CHECK_THROWS(stats::t_confidence_sequence(one, 0.05, 1.0));
  CHECK_THROWS(stats::t_sequence_radius_factor(10, 0.0, 1.0));
  CHECK_THROWS(stats::t_sequence_radius_factor(10, 0.05, 0.0));
}
