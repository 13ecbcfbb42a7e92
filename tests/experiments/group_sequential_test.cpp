// Group-sequential boundaries (experiments/stats/group_sequential.h, t_boundaries.h):
// the numerical integration reproduces the published constants of Pocock's and
// O'Brien and Fleming's tests and SciPy's multivariate-normal boundaries for every
// spending function; the error each design spends under the null is its α; futility
// never crosses efficacy; and the t boundaries simulated under the null are exact at
// the first look, where the t distribution alone decides.
#include <catch2/catch.hpp>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "experiments/stats/group_sequential.h"
#include "experiments/stats/t_boundaries.h"
#include "tests/build_paths.h"

using namespace ablate::experiments::stats;

namespace {

// Three decimals, as the tables print them.
void check_three_decimals(double ours, double table) {
  INFO("ours " << ours << ", table " << table);
  CHECK(std::abs(ours - table) <= 0.0005 + 1e-9);
}

const std::vector<double> kLooks{5, 10, 15, 20, 25, 30, 35, 40};

}  // namespace

TEST_CASE(
    "group-sequential: Pocock's constants match Jennison and Turnbull's Table 2.1 and "
    "O'Brien and Fleming's their Table 2.3, to three decimals",
    "[stats][group_sequential]") {
  // Jennison and Turnbull, "Group Sequential Methods with Applications to Clinical
  // Trials" (Chapman & Hall/CRC, 2000), Table 2.1: C_P(K, α) of two-sided tests with
  // K = 1, ..., 10 equally spaced looks; Table 2.3: C_B(K, 0.05), the boundary at look
  // k being C_B √(K / k).
  const std::vector<std::pair<double, std::vector<double>>> pocock{
      {0.01, {2.576, 2.772, 2.873, 2.939, 2.986, 3.023, 3.053, 3.078, 3.099, 3.117}},
      {0.05, {1.960, 2.178, 2.289, 2.361, 2.413, 2.453, 2.485, 2.512, 2.535, 2.555}},
      {0.10, {1.645, 1.875, 1.992, 2.067, 2.122, 2.164, 2.197, 2.225, 2.249, 2.270}},
  };
  for (const auto& [alpha, row] : pocock)
    for (int k = 1; k <= 10; ++k) {
      INFO("Pocock, α = " << alpha << ", K = " << k);
      check_three_decimals(pocock_constant(k, alpha), row[std::size_t(k - 1)]);
    }
  const std::vector<double> obrien_fleming{1.960, 1.977, 2.004, 2.024, 2.040,
                                           2.053, 2.063, 2.072, 2.080, 2.087};
  for (int k = 1; k <= 10; ++k) {
    INFO("O'Brien–Fleming, α = 0.05, K = " << k);
    check_three_decimals(obrien_fleming_constant(k, 0.05), obrien_fleming[std::size_t(k - 1)]);
  }
}

TEST_CASE(
    "group-sequential: error-spending boundaries match SciPy's multivariate normal for "
    "every spending function, one- and two-sided, and spend exactly α",
    "[stats][group_sequential]") {
  std::ifstream in(std::string(ABLATE_TEST_DATA_DIR) + "/golden/group_sequential_fixtures.json");
  REQUIRE(in);
  const nlohmann::json fixtures = nlohmann::json::parse(in);
  int cases = 0;
  for (const nlohmann::json& c : fixtures.at("cases")) {
    const std::string kind = c.at("spending");
    const Spending s = kind == "power"            ? Spending::power
                       : kind == "obrien_fleming" ? Spending::obrien_fleming
                                                  : Spending::pocock;
    const double alpha = c.at("alpha");
    const bool two_sided = c.at("two_sided");
    const std::vector<double> info = c.at("information"), scipy = c.at("boundaries");
    const std::vector<double> ours = efficacy_boundaries(s, alpha, two_sided, info, info.back());
    REQUIRE(ours.size() == scipy.size());
    for (std::size_t k = 0; k < ours.size(); ++k) {
      INFO(kind << ", α = " << alpha << (two_sided ? " two-sided" : " one-sided") << ", look "
                << k + 1 << ": ours " << ours[k] << ", SciPy " << scipy[k]);
      // SciPy's multivariate normal integrates by randomised quasi-Monte Carlo (Genz); at
      // the fixture's settings (absolute error 1e-7, up to 10^5 k points) a boundary of 7
      // or 8 correlated looks is good to about ±0.002: the published tables above hold
      // ours to three decimals.
      CHECK(std::abs(ours[k] - scipy[k]) <= 0.0025);
    }
    // Under the null the design's exits add up to α: what it promises.
    std::vector<LookRegion> regions;
    for (double b : ours) regions.push_back({two_sided ? -b : -INFINITY, b});
    CHECK(exit_probabilities(info, regions, 0).total() == Approx(alpha).margin(1e-7));
    ++cases;
  }
  CHECK(cases == 6);
}

TEST_CASE(
    "group-sequential: futility boundaries lie below efficacy, none at the budget, and "
    "the design's power at the drift they are planned for is close to 80 %",
    "[stats][group_sequential]") {
  const std::vector<double> e = efficacy_boundaries(Spending::power, 0.025, false, kLooks, 40);
  const double theta = drift_for_power(kLooks, e, 0.8);
  std::vector<LookRegion> regions;
  for (double c : e) regions.push_back({-INFINITY, c});
  double power = 0;
  for (double v : exit_probabilities(kLooks, regions, theta).above) power += v;
  CHECK(power == Approx(0.8).margin(1e-6));
  const std::vector<double> f = futility_boundaries(Spending::power, 0.2, theta, kLooks, 40, e);
  for (std::size_t k = 0; k < f.size(); ++k) CHECK(f[k] <= e[k]);
  CHECK(std::isinf(f.back()));
  // Non-binding futility stops some studies that would have rejected: power drops, a
  // little, and the null's rejections too (never above α).
  const OperatingPoint at_theta = operating_point(kLooks, e, f, false, theta);
  CHECK(at_theta.reject < 0.8);
  CHECK(at_theta.reject > 0.75);
  const OperatingPoint null = operating_point(kLooks, e, f, false, 0);
  CHECK(null.reject <= 0.025);
  CHECK(null.futile > 0.5);  // most nulls stop early for futility
  CHECK(null.expected_information < 30);
}

TEST_CASE(
    "group-sequential t boundaries: at the first look the simulated boundary is the t "
    "quantile of the error spent there, and later ones lie above the normal's",
    "[stats][group_sequential]") {
  const std::vector<double> z = efficacy_boundaries(Spending::pocock, 0.025, false, kLooks, 40);
  const std::vector<double> t = t_efficacy_boundaries(Spending::pocock, 0.025, false, kLooks, 40);
  const double first = spent_error(Spending::pocock, 0.025, 5.0 / 40);
  const boost::math::students_t t4(4);
  // The simulation's precision at a tail of first ≈ 0.004 with 2^18 paths: a few %.
  CHECK(t[0] == Approx(boost::math::quantile(complement(t4, first))).epsilon(0.03));
  for (std::size_t k = 0; k < t.size(); ++k) CHECK(t[k] > z[k]);  // heavier tails
  // The same inputs give the same boundaries (the paths are cached, the seed fixed).
  CHECK(t_efficacy_boundaries(Spending::pocock, 0.025, false, kLooks, 40) == t);
}

TEST_CASE("group-sequential: z and t are carried through their tail probabilities",
          "[stats][group_sequential]") {
  CHECK(z_of_t(0, 4) == Approx(0).margin(1e-12));
  CHECK(t_of_z(1.959963984540054, 9) == Approx(2.262157).epsilon(1e-6));  // t_9 at 0.975
  CHECK(z_of_t(t_of_z(3.1, 7), 7) == Approx(3.1).epsilon(1e-9));
  CHECK(z_of_t(t_of_z(-2.5, 19), 19) == Approx(-2.5).epsilon(1e-9));
  CHECK(std::isinf(t_of_z(INFINITY, 4)));
}
