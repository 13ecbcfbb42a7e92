// The statistics of reports (experiments/stats/comparison.h, resampling.h) against
// SciPy 1.10's and statsmodels 0.13's numbers for the same samples
// (tests/golden/stats_fixtures.json, written by make_stats_fixtures.py): means and t
// intervals, paired and Welch t-tests with the difference's interval, effect sizes,
// the minimum detectable difference at 80 % power (two-sided, and one-sided at a
// family's Bonferroni level), one-sided tests at margins, two one-sided equivalence
// tests, Holm's adjustment, exact permutation tests (equal to the last bit: they are
// counts) and the bootstrap intervals of ablate's fixed resamples.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "experiments/stats/comparison.h"
#include "experiments/stats/resampling.h"
#include "tests/experiments/experiment_files.h"
#include "tests/experiments/golden_json.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
using Catch::Detail::Approx;

namespace {

nlohmann::json fixtures() {
  return golden_json("stats_fixtures.json");
}

// Agreement to 1e-9 relative (the distributions' quantiles and tails are computed by
// different code in SciPy and Boost.Math; both are accurate to ~1e-15).
Approx agrees_with(double expected) {
  return Approx(expected).epsilon(1e-9).margin(1e-12);
}
Approx agrees_with(const nlohmann::json& expected) {
  return agrees_with(expected.get<double>());
}

void check(const stats::Comparison& c, const nlohmann::json& e, double margin) {
  CHECK(c.method == e.at("method"));
  CHECK(c.diff == agrees_with(e.at("diff")));
  CHECK(c.diff_ci_low == agrees_with(e.at("diff_ci_low")));
  CHECK(c.diff_ci_high == agrees_with(e.at("diff_ci_high")));
  CHECK(c.t == agrees_with(e.at("t")));
  CHECK(c.df == agrees_with(e.at("df")));
  CHECK(c.p_value == agrees_with(e.at("p_value")));
  CHECK(c.effect_size == agrees_with(e.at("effect_size")));
  CHECK(c.mde == Approx(e.at("mde").get<double>()).epsilon(1e-8));  // two root finders
  CHECK(stats::equivalence_p(c, margin) == agrees_with(e.at("equivalence_p")));
}

}  // namespace

TEST_CASE("means, intervals, paired and Welch t-tests, MDE and equivalence match SciPy",
          "[stats]") {
  const nlohmann::json f = fixtures();
  REQUIRE(f.at("cases").size() >= 6);
  int paired = 0;
  for (const auto& c : f.at("cases")) {
    const auto a = c.at("a").get<std::vector<double>>(), b = c.at("b").get<std::vector<double>>();
    const double margin = c.at("margin");
    INFO("n_a = " << a.size() << ", n_b = " << b.size());
    const stats::MeanSummary s = stats::summarize(a);
    CHECK(s.n == c.at("summary_a").at("n"));
    CHECK(s.mean == agrees_with(c.at("summary_a").at("mean")));
    CHECK(s.sd == agrees_with(c.at("summary_a").at("sd")));
    CHECK(s.ci_low == agrees_with(c.at("summary_a").at("ci_low")));
    CHECK(s.ci_high == agrees_with(c.at("summary_a").at("ci_high")));
    check(stats::welch_t(a, b), c.at("welch"), margin);
    if (c.contains("paired")) {
      check(stats::paired_t(a, b), c.at("paired"), margin);
      ++paired;
    }
  }
  CHECK(paired >= 4);
}

TEST_CASE("Holm's adjustment matches its definition on SciPy's p-values", "[stats]") {
  const nlohmann::json h = fixtures().at("holm");
  const auto p = h.at("p").get<std::vector<double>>(),
             expected = h.at("adjusted").get<std::vector<double>>();
  const std::vector<double> adjusted = stats::holm(p);
  REQUIRE(adjusted.size() == expected.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    INFO(i);
    CHECK(adjusted[i] == agrees_with(expected[i]));
    CHECK(adjusted[i] >= p[i]);
  }
}

TEST_CASE(
    "one-sided tests at margins, permutation tests and bootstrap intervals match SciPy and "
    "statsmodels",
    "[stats]") {
  const nlohmann::json f = fixtures();
  int exact_permutations = 0;
  for (const auto& c : f.at("cases")) {
    const auto a = c.at("a").get<std::vector<double>>(), b = c.at("b").get<std::vector<double>>();
    for (const bool paired : {true, false}) {
      const std::string key = paired ? "paired_resampling" : "welch_resampling";
      if (!c.contains(key)) continue;
      const nlohmann::json& e = c.at(key);
      const stats::Comparison cmp = paired ? stats::paired_t(a, b) : stats::welch_t(a, b);
      INFO(cmp.method << ", n_a = " << a.size() << ", n_b = " << b.size());
      for (const auto& t : e.at("one_sided"))
        CHECK(stats::one_sided_p(cmp, t.at("bound"), t.at("above")) == agrees_with(t.at("p")));
      REQUIRE(stats::permutation_is_exact(cmp) == !e.at("permutation").empty());
      for (const auto& t : e.at("permutation")) {
        INFO("bound " << t.at("bound").get<double>()
                      << (t.at("above").get<bool>() ? ", above" : ", below"));
        CHECK(stats::permutation_p(cmp, t.at("bound"), t.at("above")) == t.at("p").get<double>());
        ++exact_permutations;
      }
      if (e.contains("permutation_two_sided"))
        CHECK(stats::permutation_p_two_sided(cmp) == e.at("permutation_two_sided").get<double>());
      for (const auto& t : e.at("bootstrap")) {
        const stats::Interval i = stats::bootstrap_interval(cmp, t.at("tail"));
        CHECK(i.low == agrees_with(t.at("interval")[0]));
        CHECK(i.high == agrees_with(t.at("interval")[1]));
      }
      CHECK(stats::equivalence_p(cmp, c.at("margin")) == agrees_with(e.at("statsmodels_tost")));
      if (e.contains("one_sided_mde_alpha_over_4"))
        CHECK(stats::detectable_difference(cmp, 0.05 / 4, 0.8, true) ==
              Approx(e.at("one_sided_mde_alpha_over_4").get<double>()).epsilon(1e-8));
    }
  }
  CHECK(exact_permutations >= 50);
  const nlohmann::json h = f.at("holm");
  const std::vector<double> adjusted = stats::holm(h.at("p").get<std::vector<double>>());
  const auto statsmodels = h.at("statsmodels_adjusted").get<std::vector<double>>();
  REQUIRE(adjusted.size() == statsmodels.size());
  for (std::size_t i = 0; i < adjusted.size(); ++i)
    CHECK(adjusted[i] == agrees_with(statsmodels[i]));
}

// Protects the Monte Carlo regime: beyond 2^20 sign patterns the p-value is estimated
// from a fixed seed — the same on every call — and counts the observed pattern, so it
// is never 0.
TEST_CASE("permutation tests beyond exact enumeration are seeded estimates, never 0", "[stats]") {
  std::vector<double> a, b;
  for (int i = 0; i < 24; ++i) {
    b.push_back(0.5 + 0.01 * (i % 5));
    a.push_back(b.back() + 0.1 + 0.001 * i);
  }
  const stats::Comparison c = stats::paired_t(a, b);
  CHECK_FALSE(stats::permutation_is_exact(c));
  const double p = stats::permutation_p(c, 0, true);
  CHECK(p == 1.0 / (stats::kMonteCarloResamples + 1));
  CHECK(stats::permutation_p(c, 0, true) == p);
  // Every difference lies below 0.13: nothing suggests the truth lies above it.
  CHECK(stats::permutation_p(c, 0.13, true) > 0.99);
}

// Protects bounded results: a comparison without a test has neither p-values nor
// intervals to resample.
TEST_CASE("a comparison without a test has p = 1 for every test and a point interval", "[stats]") {
  const std::vector<double> a{0.75, 0.5}, b{0.5, 0.25};  // both differ by exactly 0.25
  const stats::Comparison c = stats::paired_t(a, b);
  REQUIRE_FALSE(c.tested());
  CHECK(std::isnan(c.p_value));
  CHECK(stats::one_sided_p(c, 0, true) == 1);
  CHECK(stats::permutation_p(c, 0, true) == 1);
  CHECK(stats::bootstrap_interval(c, 0.025).low == c.diff);
  CHECK(std::isnan(stats::detectable_difference(c, 0.05, 0.8, false)));
  // Too few seeds is an error of the caller, not a comparison.
  CHECK_THROWS_AS(stats::paired_t(std::vector<double>{1.0}, std::vector<double>{2.0}),
                  std::invalid_argument);
}
