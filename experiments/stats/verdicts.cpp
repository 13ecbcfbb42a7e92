#include "experiments/stats/verdicts.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "experiments/stats/resampling.h"
#include "nn/excerpt.h"

namespace ablate::experiments::stats {

namespace {

// The one-sided p of H1 "gain above `bound`" (or below), by the t-test or the
// permutation test; gain is the difference times +1 where higher is better, -1 where
// lower is.
double gain_p(const Comparison& c, bool higher_is_better, double bound, bool above,
              bool permutation) {
  const double difference_bound = higher_is_better ? bound : -bound;
  const bool difference_above = higher_is_better ? above : !above;
  return permutation ? permutation_p(c, difference_bound, difference_above)
                     : one_sided_p(c, difference_bound, difference_above);
}

std::string short_text(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3g", v);
  return s;
}

}  // namespace

Expectation expectation_from(const std::string& word) {
  if (word == "better") return Expectation::better;
  if (word == "worse") return Expectation::worse;
  if (word == "equivalent") return Expectation::equivalent;
  if (word == "not_worse") return Expectation::not_worse;
  if (word == "not_better") return Expectation::not_better;
  throw std::invalid_argument("unknown expectation \"" + excerpt(word) + "\"");
}

bool needs_margin(Expectation e) {
  return e != Expectation::better && e != Expectation::worse;
}

ClaimTests claim_tests(const Comparison& c, Expectation e, bool higher_is_better, double margin,
                       double min_effect) {
  if (!c.tested()) return {};
  ClaimTests out;
  for (bool permutation : {false, true}) {
    auto p = [&](double bound, bool above) {
      return gain_p(c, higher_is_better, bound, above, permutation);
    };
    double agree = 1, disagree = 1;
    switch (e) {
      case Expectation::better:
        agree = p(min_effect, true), disagree = p(min_effect, false);
        break;
      case Expectation::worse:
        agree = p(-min_effect, false), disagree = p(-min_effect, true);
        break;
      case Expectation::not_worse:
        agree = p(-margin, true), disagree = p(-margin, false);
        break;
      case Expectation::not_better:
        agree = p(margin, false), disagree = p(margin, true);
        break;
      case Expectation::equivalent:
        agree = std::max(p(-margin, true), p(margin, false));
        disagree = std::min(p(margin, true), p(-margin, false));
        break;
    }
    (permutation ? out.agree_permutation : out.agree) = agree;
    (permutation ? out.disagree_permutation : out.disagree) = disagree;
  }
  return out;
}

ClaimTests combine_parts(const std::vector<ClaimTests>& parts) {
  if (parts.empty()) return {};
  ClaimTests out{0, 1, 0, 1};
  const double k = double(parts.size());
  for (const ClaimTests& t : parts) {
    out.agree = std::max(out.agree, t.agree);
    out.agree_permutation = std::max(out.agree_permutation, t.agree_permutation);
    out.disagree = std::min(out.disagree, t.disagree);
    out.disagree_permutation = std::min(out.disagree_permutation, t.disagree_permutation);
  }
  out.disagree = std::min(1.0, k * out.disagree);
  out.disagree_permutation = std::min(1.0, k * out.disagree_permutation);
  return out;
}

const char* verdict_word(ClaimVerdict v) {
  switch (v) {
    case ClaimVerdict::agrees:
      return "agrees";
    case ClaimVerdict::disagrees:
      return "disagrees";
    case ClaimVerdict::inconclusive:
      break;
  }
  return "inconclusive";
}

std::vector<ClaimDecision> decide_family(const std::vector<ClaimTests>& claims, double alpha) {
  auto adjusted = [&claims](double ClaimTests::*member) {
    std::vector<double> p;
    for (const ClaimTests& c : claims) p.push_back(c.*member);
    return holm(p);
  };
  const std::vector<double> agree = adjusted(&ClaimTests::agree),
                            disagree = adjusted(&ClaimTests::disagree),
                            agree_perm = adjusted(&ClaimTests::agree_permutation),
                            disagree_perm = adjusted(&ClaimTests::disagree_permutation);
  std::vector<ClaimDecision> out(claims.size());
  for (std::size_t i = 0; i < claims.size(); ++i) {
    ClaimDecision& d = out[i];
    d.agree_adjusted = agree[i];
    d.disagree_adjusted = disagree[i];
    d.agree_permutation_adjusted = agree_perm[i];
    d.disagree_permutation_adjusted = disagree_perm[i];
    if (d.agree_adjusted < alpha) {
      d.verdict = ClaimVerdict::agrees;
      d.rests_on_normality = !(d.agree_permutation_adjusted < alpha);
    } else if (d.disagree_adjusted < alpha) {
      d.verdict = ClaimVerdict::disagrees;
      d.rests_on_normality = !(d.disagree_permutation_adjusted < alpha);
    }
  }
  return out;
}

std::string exploratory_verdict(const Comparison& c, bool higher_is_better,
                                std::optional<double> margin, double alpha,
                                std::optional<double> p_permutation) {
  if (!c.tested()) return "inconclusive: " + c.no_test;
  const bool different = c.p_value < alpha;
  const bool equivalent = margin && equivalence_p(c, *margin) < alpha;
  std::string out;
  if (different) out = (c.diff > 0) == higher_is_better ? "better" : "worse";
  if (equivalent) out += (different ? ", within ±" : "equivalent within ±") + short_text(*margin);
  if (out.empty()) return "no detectable difference (±" + short_text(c.mde) + ")";
  if (different && !((p_permutation ? *p_permutation : permutation_p_two_sided(c)) < alpha))
    out += " (rests on normality, n = " + std::to_string(c.n) + ")";
  return out;
}

}  // namespace ablate::experiments::stats
