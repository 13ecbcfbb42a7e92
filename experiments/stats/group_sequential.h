#pragma once
// Group-sequential boundaries: the tests of a design that looks at the data after every
// pre-planned block of seeds, up to a known budget, and spends its error α over those
// looks (Lan and DeMets, "Discrete sequential boundaries for clinical trials",
// Biometrika 70(3), 1983). Where the confidence sequence (confidence_sequence.h) holds
// at any look however many, a design that knows its looks in advance needs less: at
// the budget its last boundary is close to the fixed-n test's.
//
// The standardised statistic Z_k at information I_k (here the number of paired seeds)
// has E[Z_k] = θ √I_k for a standardised effect θ = μ/σ, and Z_j, Z_k correlate as
// √(I_j / I_k). The probability of first leaving the continuation region at each look
// is computed by numerical integration of the sub-density of Z_k on that region, look
// by look (Armitage, McPherson and Rowe, J. R. Stat. Soc. A 132, 1969), on the grid of
// Jennison and Turnbull, "Group Sequential Methods with Applications to Clinical
// Trials" (2000), §19.2: 6r − 1 points around θ √I_k, finer near the centre, with
// midpoints for Simpson's rule. Its constants match Jennison and Turnbull's Tables 2.1
// (Pocock) and 2.3 (O'Brien–Fleming) to three decimals (tests/experiments/
// group_sequential_test.cpp).
//
// With the variance unknown, ablate's statistic is Student's t with n − 1 degrees of
// freedom; a boundary c on the Z scale becomes F_{n−1}^{-1}(Φ(c)) on the t scale (the
// "significance level approach", Jennison and Turnbull §11.5), whose error rates
// `ablate selftest stats` checks by simulation.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ablate::experiments::stats {

// How the error is spent over the looks, by information fraction t: Kim and DeMets'
// power family f(t) = α t^ρ with ρ = 2 ("A comparison of group sequential procedures",
// 1987; ρ = 3 is close to O'Brien–Fleming, ρ = 1 to Pocock), Lan and DeMets'
// O'Brien–Fleming-type f(t) = 2 − 2 Φ(Φ^{-1}(1 − α/2) / √t) (nothing early, nearly all at
// the budget), or their Pocock-type f(t) = α ln(1 + (e − 1) t) (evenly).
enum class Spending { power, obrien_fleming, pocock };
const char* spending_key(Spending s);   // "power", "obrien_fleming", "pocock"
const char* spending_name(Spending s);  // "power-family (ρ = 2)", "O'Brien–Fleming-type", …"

// The error spent by information fraction t (clamped to [0, 1]) of a total `total`.
double spent_error(Spending s, double total, double t);

// The continuation region of one look on the Z scale: the statistic goes on while
// lower < Z < upper (±infinity for no boundary).
struct LookRegion {
  double lower, upper;
};

// P(the first exit is at look k, above / below), for drift θ.
struct Exits {
  std::vector<double> above, below;
  double total() const;
};
Exits exit_probabilities(std::span<const double> information, std::span<const LookRegion> regions,
                         double theta);

// Efficacy boundaries c_k on the Z scale: a one-sided test rejecting when Z_k ≥ c_k
// (two-sided: |Z_k| ≥ c_k) whose error by look k is spent_error(s, alpha, I_k / I_max),
// all of it at I_k ≥ I_max. A look that spends nothing gets +infinity. `information`
// increases strictly.
std::vector<double> efficacy_boundaries(Spending s, double alpha, bool two_sided,
                                        std::span<const double> information,
                                        double max_information);

// The classical constant-shape boundaries of K equally spaced looks, two-sided at
// `alpha`: Pocock's constant C (c_k = C) or O'Brien and Fleming's (c_k = C √(K / k)).
double pocock_constant(int looks, double alpha);
double obrien_fleming_constant(int looks, double alpha);

// Non-binding futility boundaries b_k (Z scale) by β-spending: under the drift θ1, the
// probability of first falling below b_k at look k (having stayed inside (b_j, c_j)
// before) is spent_error(s, beta, t_k) − spent_error(s, beta, t_{k−1}); b_k ≤ c_k. The
// efficacy boundaries do not depend on them, so ignoring a futility stop keeps α.
// The last look (I ≥ I_max) has none (−infinity): the design ends there anyway.
std::vector<double> futility_boundaries(Spending s, double beta, double theta1,
                                        std::span<const double> information, double max_information,
                                        std::span<const double> efficacy);

// The drift θ at which the one-sided efficacy boundaries (no futility) reject by the last
// look with probability `power`.
double drift_for_power(std::span<const double> information, std::span<const double> efficacy,
                       double power);

// A design's behaviour at a drift: how often it rejects (above), how often it stops for
// futility, and the information it uses on average.
struct OperatingPoint {
  double reject = 0, futile = 0, expected_information = 0;
};
OperatingPoint operating_point(std::span<const double> information,
                               std::span<const double> efficacy, std::span<const double> futility,
                               bool two_sided, double theta);

// z ↔ t on the significance scale: the z with Φ(z) = F_ν(t), and the t with F_ν(t) = Φ(z).
double z_of_t(double t, double nu);
double t_of_z(double z, double nu);

}  // namespace ablate::experiments::stats
