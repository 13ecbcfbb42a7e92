#pragma once
// Anytime-valid inference on a mean — the paired differences of a sweep point with its
// baseline, seed by seed — for a design that looks at the data after every block of
// seeds and stops a point once its verdict is decided (the adaptive sweeps). A fixed-n
// t interval checked after every block decides falsely far more often than its α (the
// simulation in tests/golden/make_sequence_fixtures.py: ≈ 0.18 instead of 0.05 over
// eight looks); the interval here holds at every n at once.
//
// The method is the safe t-test of Grünwald, de Heide and Koolen ("Safe testing",
// arXiv:1906.07801; the R package safestats, computeConfidenceIntervalT): the Bayes
// factor of the t statistic with a normal prior N(0, g) on the standardised effect
// δ = μ / σ and the right Haar prior 1/σ on the scale,
//   E(t; n, g) = (1 + n g)^(-1/2) · [(1 + t²/ν) / (1 + t²/(ν (1 + n g)))]^((ν + 1)/2),  ν = n − 1,
// is an e-value for δ = 0 at every n and an e-process under optional stopping in the
// scale-invariant filtration (Pérez-Ortiz, Lardy, de Heide and Grünwald, "E-statistics,
// group invariance and anytime-valid testing", Ann. Statist. 52(4), 2024). Testing
// every μ0 on the shifted data and keeping those not rejected at level α (E < 1/α)
// gives the confidence sequence  mean ± √W(n) · sd / √n,  with
//   W = ν (K − 1) / (1 − K / (1 + n g)),  K = ((1 + n g) / α²)^(1/(ν + 1))
// (unbounded while the denominator is ≤ 0: too few seeds to exclude anything).
// Exact for normally distributed differences; the adaptive design's simulations in
// `ablate selftest stats` show what it does on others.
#include <span>

namespace ablate::experiments::stats {

// The e-value E(t; n, g) above, for a t statistic of n ≥ 2 values.
double t_mixture_e_value(double t, double n, double g);

// √W(n): the confidence sequence at level 1 − α is mean ± this · sd / √n; +∞ when n is
// too small for any finite bound at this α.
double t_sequence_radius_factor(double n, double alpha, double g);

struct MeanSequence {
  double n = 0, mean = 0, sd = 0;
  double low = 0, high = 0;  // the confidence sequence at n (±∞ when unbounded)
  double e_value_zero = 1;   // E at μ0 = 0: the evidence against "no difference"
};

// Of the values x (n ≥ 2; with sd = 0 the sequence is the point and E is +∞ unless
// the mean is 0).
MeanSequence t_confidence_sequence(std::span<const double> x, double alpha, double g);

}  // namespace ablate::experiments::stats
