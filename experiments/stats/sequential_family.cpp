#include "experiments/stats/sequential_family.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ablate::experiments::stats {

namespace {

// Passes a decided question's share to the questions not yet decided the same way (a
// file without claims: not yet decided at all).
void recycle(std::vector<FamilyQuestion>& questions, std::size_t from, bool claims) {
  FamilyQuestion& q = questions[from];
  const bool agree_graph = !claims || q.status == PartStatus::agrees;
  auto share_of = [agree_graph](FamilyQuestion& r) -> double& {
    return agree_graph ? r.agree_share : r.disagree_share;
  };
  std::vector<FamilyQuestion*> to;
  for (std::size_t i = 0; i < questions.size(); ++i)
    if (i != from &&
        (claims ? questions[i].status != q.status : questions[i].status == PartStatus::open))
      to.push_back(&questions[i]);
  if (to.empty()) return;
  for (FamilyQuestion* r : to) share_of(*r) += share_of(q) / double(to.size());
  share_of(q) = 0;
}

}  // namespace

const char* method_key(SequentialMethod m) {
  return m == SequentialMethod::confidence_sequence ? "confidence_sequence" : "group_sequential";
}

double FamilyQuestion::agree_level() const {
  const double k = double(std::max<std::size_t>(1, parts.size()));
  return method == SequentialMethod::confidence_sequence ? agree_share / k : agree_share;
}

double FamilyQuestion::disagree_level() const {
  return disagree_share / double(std::max<std::size_t>(1, parts.size()));
}

void start_family(std::vector<FamilyQuestion>& questions, const SequentialDesign& design) {
  for (FamilyQuestion& q : questions) {
    q.method = design.method;
    q.agree_share = q.disagree_share = design.alpha / double(questions.size());
  }
}

void decide_family_round(std::vector<FamilyQuestion>& questions, const SequentialDesign& design,
                         const PartGains& gains, int round) {
  std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> seen;
  auto gains_of = [&](std::size_t q, std::size_t p) -> const std::vector<double>& {
    auto it = seen.find({q, p});
    if (it == seen.end()) it = seen.emplace(std::pair(q, p), gains(q, p)).first;
    return it->second;
  };
  const bool claims = std::any_of(questions.begin(), questions.end(),
                                  [](const FamilyQuestion& q) { return q.question.expect; });
  for (bool again = true; again;) {
    again = false;
    for (std::size_t i = 0; i < questions.size(); ++i) {
      FamilyQuestion& q = questions[i];
      if (q.status != PartStatus::open || q.futile) continue;
      for (std::size_t p = 0; p < q.parts.size(); ++p) {
        if (design.method == SequentialMethod::confidence_sequence)
          update_part(q.parts[p], gains_of(i, p), q.question, q.agree_level(), round);
        else
          update_part_group_sequential(q.parts[p], gains_of(i, p), q.question, q.agree_level(),
                                       q.disagree_level(), design.plan, round);
      }
      q.status = question_status(q.parts);
      if (q.status == PartStatus::open) continue;
      q.decided_round = round;
      // Bonferroni keeps its shares; the graphical procedure passes them on and asks again.
      if (design.method == SequentialMethod::group_sequential) {
        recycle(questions, i, claims);
        again = true;
      }
    }
  }
  if (design.method != SequentialMethod::group_sequential || !design.plan.futility) return;
  for (FamilyQuestion& q : questions) {
    if (q.status != PartStatus::open || q.futile) continue;
    bool agree_reachable = true, disagree_reachable = false;
    for (const PartState& p : q.parts) {
      if (p.status != PartStatus::open) continue;
      agree_reachable = agree_reachable && !p.agree_futile;
      disagree_reachable = disagree_reachable || !p.disagree_futile;
    }
    if (!agree_reachable && !disagree_reachable) q.futile = true, q.futile_round = round;
  }
}

bool part_needs_seeds(const FamilyQuestion& q, std::size_t part) {
  return q.status == PartStatus::open && !q.futile && q.parts[part].status == PartStatus::open;
}

std::string family_text(const SequentialDesign& design, std::size_t questions) {
  char alpha[32];
  std::snprintf(alpha, sizeof alpha, "%g", design.alpha);
  const std::string m = std::to_string(questions);
  const std::string shared = std::string("α = ") + alpha + " shared over the " + m + " question" +
                             (questions == 1 ? "" : "s");
  if (design.method == SequentialMethod::confidence_sequence)
    return shared + " by Bonferroni: each part of a question of k parts at α / (" + m + " k)";
  return shared +
         " by the graphical procedure of Maurer and Bretz (2013) with equal weights and "
         "transitions (sequential Holm): α / " +
         m +
         " each at the start, and a decided question's level passes in equal shares to those "
         "not decided that way (per direction for claims); a claim over k points agrees when "
         "all of them agree at its level and disagrees when one disagrees at its level / k";
}

}  // namespace ablate::experiments::stats
