#pragma once
// Public gradient check: compares the tape's gradients of f at `inputs` with central
// differences, in f64. For a non-scalar output y, both sides differentiate
// L = Σ y ⊙ r for a fixed random r, which checks the whole vector-Jacobian product.
//
// Error per element: |analytic - numeric| / max(1, |analytic|, |numeric|) — relative
// for large gradients, absolute for those below 1 (where relative error means little).
#include <bitset>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "autograd/ops.h"

namespace ablate {

struct GradcheckOptions {
  double eps = 1e-6;        // finite-difference step
  double tolerance = 1e-6;  // largest allowed error
  std::uint64_t seed = 0;   // for the projection r (and the sample below)
  // Check at most this many elements per input (a seeded random sample; 0 = all).
  // Whole models have thousands of weights; a sample still catches a wrong rule.
  std::int64_t max_elements_per_input = 0;
};

struct GradcheckResult {
  bool ok = false;
  double max_error = 0;
  std::string message;                 // where the largest error is, with both values
  std::bitset<kOpKindCount> op_kinds;  // kinds of the nodes f recorded
  explicit operator bool() const { return ok; }
};

using GradcheckFunction = std::function<Var(std::span<const Var>)>;

// Inputs must be f64. f runs on a private tape, several times; it must be deterministic
// (draw any randomness from a generator seeded inside f).
GradcheckResult gradcheck(const GradcheckFunction& f, std::span<const Tensor> inputs,
                          const GradcheckOptions& options = {});

// The same check over persistent leaves: f builds its graph from tape.leaf(p) of
// these parameters (a module's weights, say) and is differentiated with respect to
// all of them. Values are perturbed in place and restored; grads are overwritten.
GradcheckResult gradcheck_parameters(const std::function<Var()>& f,
                                     std::span<Parameter* const> parameters,
                                     const GradcheckOptions& options = {});

}  // namespace ablate
