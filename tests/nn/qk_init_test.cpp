// separate Q/K's `init` option (nn/attention/separate_query_key.cpp). The premise of the
// 1/sqrt(d_k) score scale — and of replications/blog_scale.toml, which asks whether a
// constant 0.5 does as well as d_k grows — is that queries and keys have unit-variance
// coordinates, so the unscaled score q·k has variance ≈ d_k. init = "unit_variance"
// (W ~ N(0, 1/d_model)) makes that so for unit-variance inputs, at every d_k; the
// default Xavier-uniform does not: its score variance stays flat or falls as d_k grows.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "nn/attention/query_key.h"
#include "nn/layers/linear.h"
#include "tests/fresh_tape.h"
#include "tests/nn/small_transformer.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

constexpr std::int64_t kDModel = 64, kHeads = 4, kTokens = 256;

std::vector<double> values(const Tensor& t) {
  std::vector<double> out(std::size_t(t.numel()));
  for (std::int64_t i = 0; i < t.numel(); ++i) out[std::size_t(i)] = t.at(i);
  return out;
}

// The variance of the unscaled scores q·k, pooled over heads and every (query, key)
// pair, for N(0, 1) inputs (queries and keys from independent tokens).
double unscaled_score_variance(const std::string& init, std::int64_t d_k) {
  ablate_tests::FreshTape f;
  Generator g(20 + std::uint64_t(d_k));
  BuildContext c = testing::build_context(kDModel, kHeads, g);
  c.d_k = d_k;
  auto qk = query_key_registry().create("separate", {{"init", init}}, c);
  Generator data(7);
  Tensor x_q = randn({1, kTokens, kDModel}, data), x_kv = randn({1, kTokens, kDModel}, data);
  auto [q_var, k_var] = qk->project(constant(x_q), constant(x_kv));
  std::vector<double> q = values(q_var.value()), k = values(k_var.value());
  const std::int64_t width = kHeads * d_k;
  double sum = 0, sum_sq = 0, n = 0;
  for (std::int64_t h = 0; h < kHeads; ++h)
    for (std::int64_t t = 0; t < kTokens; ++t)
      for (std::int64_t s = 0; s < kTokens; ++s) {
        const double* qt = &q[std::size_t(t * width + h * d_k)];
        const double* ks = &k[std::size_t(s * width + h * d_k)];
        double score = 0;
        for (std::int64_t i = 0; i < d_k; ++i) score += qt[i] * ks[i];
        sum += score;
        sum_sq += score * score;
        n += 1;
      }
  return sum_sq / n - (sum / n) * (sum / n);
}

}  // namespace

TEST_CASE("separate Q/K init = unit_variance: unscaled score variance ≈ d_k at every d_k") {
  for (std::int64_t d_k : {8, 32, 128}) {
    double v = unscaled_score_variance("unit_variance", d_k);
    INFO("d_k " << d_k << ": var(q·k) = " << v);
    CHECK(v == Catch::Detail::Approx(double(d_k)).epsilon(0.2));
  }
}

TEST_CASE("separate Q/K's default Xavier init: unscaled score variance does not grow with d_k") {
  // Xavier-uniform gives var(q_i) = d_model · 2 / (d_model + H·d_k) for unit inputs, so
  // var(q·k) = d_k · (2 d_model / (d_model + H·d_k))²: 14.2, 14.2, 6.3 here.
  std::vector<double> v;
  for (std::int64_t d_k : {8, 32, 128}) {
    double expected = double(d_k) * std::pow(2.0 * kDModel / double(kDModel + kHeads * d_k), 2);
    v.push_back(unscaled_score_variance("xavier", d_k));
    INFO("d_k " << d_k << ": var(q·k) = " << v.back() << ", expected " << expected);
    CHECK(v.back() == Catch::Detail::Approx(expected).epsilon(0.2));
  }
  CHECK(v[2] < v[0]);  // d_k 16× larger, score variance smaller: not proportional to d_k
}

TEST_CASE("separate Q/K's default init is the one Linear draws, bit for bit") {
  Generator a(5), b(5);
  auto with_default = query_key_registry().create("separate", {}, testing::build_context(8, 2, a));
  auto explicit_xavier = query_key_registry().create("separate", {{"init", std::string("xavier")}},
                                                     testing::build_context(8, 2, b));
  Generator c(5);
  Linear reference(8, 8, true, c);  // what separate built before the option existed
  auto p = with_default->named_parameters(), e = explicit_xavier->named_parameters();
  REQUIRE(p.size() == e.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::int64_t j = 0; j < p[i].second->value.numel(); ++j)
      CHECK(p[i].second->value.at(j) == e[i].second->value.at(j));
  CHECK(p[0].first == "w_q.weight");
  for (std::int64_t j = 0; j < reference.weight().value.numel(); ++j)
    CHECK(p[0].second->value.at(j) == reference.weight().value.at(j));
  CHECK_THROWS_WITH(query_key_registry().create("separate", {{"init", std::string("lecun")}},
                                                testing::build_context(8, 2, a)),
                    Catch::Contains("not one of: xavier unit_variance"));
}
