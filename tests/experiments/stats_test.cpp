// The statistics of reports (experiments/stats/comparison.h) against SciPy 1.10's
// numbers for the same samples (tests/golden/stats_fixtures.json, written by
// make_stats_fixtures.py): means and t intervals, paired and Welch t-tests with the
// difference's interval, effect sizes, the minimum detectable difference at 80 %
// power, two one-sided equivalence tests and Holm's adjustment — plus the verdict
// words that follow from them.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "experiments/stats/comparison.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
using Catch::Detail::Approx;

namespace {

nlohmann::json fixtures() {
  return nlohmann::json::parse(read_text(std::string(ABLATE_TEST_DATA_DIR) + "/golden/stats_fixtures.json"));
}

// Agreement to 1e-9 relative (the distributions' quantiles and tails are computed by
// different code in SciPy and Boost.Math; both are accurate to ~1e-15).
Approx agrees_with(double expected) { return Approx(expected).epsilon(1e-9).margin(1e-12); }
Approx agrees_with(const nlohmann::json& expected) { return agrees_with(expected.get<double>()); }

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

TEST_CASE("means, intervals, paired and Welch t-tests, MDE and equivalence match SciPy", "[stats]") {
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
  const auto p = h.at("p").get<std::vector<double>>(), expected = h.at("adjusted").get<std::vector<double>>();
  const std::vector<double> adjusted = stats::holm(p);
  REQUIRE(adjusted.size() == expected.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    INFO(i);
    CHECK(adjusted[i] == agrees_with(expected[i]));
    CHECK(adjusted[i] >= p[i]);
  }
}

TEST_CASE("the verdict word follows from the numbers", "[stats]") {
  const std::vector<double> base = {0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.81, 0.82, 0.80};
  std::vector<double> higher = base, same = base;
  for (double& v : higher) v += 0.05;
  for (std::size_t i = 0; i < same.size(); ++i) same[i] += (i % 2 ? 0.001 : -0.001);
  const stats::Comparison up = stats::paired_t(higher, base);
  CHECK(stats::verdict(up, up.p_value, /*higher_is_better=*/true) == "better");
  CHECK(stats::verdict(up, up.p_value, /*higher_is_better=*/false) == "worse");  // e.g. a loss
  const stats::Comparison flat = stats::paired_t(same, base);
  CHECK_THAT(stats::verdict(flat, flat.p_value, true), Catch::StartsWith("no detectable difference (±"));
  CHECK(stats::verdict(flat, flat.p_value, true, 0.01) == "equivalent within ±0.01");
  // An adjusted p-value above alpha is not a finding, however small the raw one.
  CHECK_THAT(stats::verdict(up, 0.2, true), Catch::StartsWith("no detectable difference"));
  // The MDE shrinks as seeds are added (the same spread, 4× the seeds: about half).
  std::vector<double> a4(base.begin(), base.begin() + 4), b4(higher.begin(), higher.begin() + 4);
  CHECK(stats::welch_t(base, higher).mde < stats::welch_t(a4, b4).mde);
  CHECK_THROWS_AS(stats::paired_t(a4, base), std::invalid_argument);
}
