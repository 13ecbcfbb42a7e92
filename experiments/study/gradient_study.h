#pragma once
// The analytic parts of the scaling-gradient study: why attention divides its scores
// by sqrt(d_k), after the blog post "深入分析transformer" (2021-03-25; its experiment
// is described in docs/reference/study.md). Every number is computed
// through our tape (ablate ops + Tape::backward, Parameters as leaves) on a private
// tape, so the study also exercises the autograd; the closed forms live in
// tests/experiments/gradient_study_test.cpp.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>  // callers that read the result include json.hpp
#include <vector>

#include "autograd/dtype.h"

namespace ablate::experiments::study {

// The blog's snippets, literally, in `dtype` (f64 for the study):
//   "softmax_ones_10":    the 10 values of softmax(ones(10))
//   "softmax_ones_10000": {"first", "last"} of softmax(ones(10000))
//   "loss_10_7_5":        cross_entropy_error(y = [1,0,0], x = softmax([[10,7,5]]))
//   "grad_10_7_5":        {"grad", "max_abs", "min_abs", "ratio"} of
//                         egrad(cross_entropy_error, 0)(y, x): d loss / d y — argument 0
//                         is the LABEL y, not the probabilities
//   "grad_1_to_20":       {"1", "sqrt20", "1000", "1e6"}: the same record for y = one-hot
//                         at index 19 of 20 and x = [1..20] / divisor (raw, not soft-maxed)
nlohmann::json literal_part(DType dtype = DType::f64);

// The corrected experiment: the gradient of the mean cross-entropy of softmax(z / s)
// with respect to the logits z, for z = [10,7,5] (target 0) and z = 1..20 (target 19),
// s ∈ {1, sqrt(d), d, 1000} with d the vector length. An array of records
// {"logits": "10,7,5" | "1..20", "target", "divisor": "1" | "sqrt_d" | "d" | "1000",
//  "divisor_value", "grad", "ratio": max|g|/min|g|, "max_prob", "entropy" (nats)}.
nlohmann::json corrected_part(DType dtype = DType::f64);

struct AttentionStudyOptions {
  std::vector<std::int64_t> d_k = {4, 16, 64, 256, 1024};
  std::int64_t length = 32;  // L
  std::int64_t seeds = 20;   // at least 2 (the std is the sample std)
  std::uint64_t seed = 0;    // base seed; seed i draws Q, K, V, in that order, with randn
                             // from Generator(seed).fork(i), the same draws for every scale
};

// The variance argument: for each d_k and scale c ∈ {1, 1/sqrt(d_k), 1/d_k, 0.5}, over
// `seeds` draws of Q, K, V (L × d_k, iid N(0,1), f64): S = c·QKᵀ, A = softmax(S) by rows,
// y = sum of all entries of A·V. One record per (d_k, scale), d_k-major:
// {"d_k", "scale", "scale_value", "length", "seeds", "expected_var_scores": c²·d_k, and
//  {"mean", "std"} of "var_scores", "mean_max_prob", "mean_entropy_nats", "grad_q_fro",
//  "grad_scores_fro", "mean_softmax_jacobian_fro"}.
nlohmann::json attention_part(const AttentionStudyOptions& options);

}  // namespace ablate::experiments::study
