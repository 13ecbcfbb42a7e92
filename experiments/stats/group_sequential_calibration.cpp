#include "experiments/stats/group_sequential_calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include "experiments/stats/comparison.h"

namespace ablate::experiments::stats {

SequentialDesign default_sequential_design(const AdaptiveDesign& design) {
  SequentialDesign out;
  out.method = SequentialMethod::group_sequential;
  out.plan.spending = Spending::power;
  out.plan.futility = true;
  out.plan.looks = planned_looks(design.first_block, design.block, design.max_seeds);
  out.alpha = design.alpha;
  return out;
}

SimulatedFamily run_family(const std::vector<SimulatedQuestion>& questions,
                           const SequentialDesign& sequential, const AdaptiveDesign& design) {
  SimulatedFamily out;
  out.questions.resize(questions.size());
  out.seeds.resize(questions.size());
  for (std::size_t i = 0; i < questions.size(); ++i) {
    out.questions[i].question = questions[i].question;
    out.questions[i].parts.resize(questions[i].gains.size());
    out.seeds[i].assign(questions[i].gains.size(), std::min(design.first_block, design.max_seeds));
  }
  start_family(out.questions, sequential);
  const PartGains gains = [&](std::size_t q, std::size_t p) {
    const std::vector<double>& all = questions[q].gains[p];
    const std::size_t n = std::min(all.size(), std::size_t(out.seeds[q][p]));
    return std::vector<double>(all.begin(), all.begin() + std::ptrdiff_t(n));
  };
  for (int round = 0;; ++round) {
    decide_family_round(out.questions, sequential, gains, round);
    bool more = false;
    for (std::size_t q = 0; q < questions.size(); ++q)
      for (std::size_t p = 0; p < out.seeds[q].size(); ++p)
        if (part_needs_seeds(out.questions[q], p) && out.seeds[q][p] < design.max_seeds) {
          out.seeds[q][p] = std::min(out.seeds[q][p] + design.block, design.max_seeds);
          more = true;
        }
    if (!more) return out;
  }
}

namespace {

constexpr const char kAtMostAlpha[] = "≤ 0.05";
// The margin δ of the margin scenarios and the min_effect, in sd of the gains.
constexpr double kMargin = 0.5;
// The targets at a budget of 40 in blocks of 5 (issue 56): power at 0.5 sd, mean seeds
// at 1 sd.
constexpr const char kPowerTarget[] = "≥ 0.80";
constexpr double kSeedsTarget = 17;

// Skewed gains (a centred exponential) are shown, not judged: a t-test is known to be
// one-tail-sensitive to skew — the mean and the sd of skewed gains move together, so
// the t statistic is skewed the other way — and the group-sequential design's early
// looks, at 5 seeds and a small share of α, meet the far tail where that is worst
// (docs/reference/adaptive.md, "Calibration"). kAtMostAlpha here judges
// them.
constexpr const char kSkewBound[] = "";
constexpr const char kSkewNote[] =
    " (shown, not judged: a t-test is known to be one-tail-sensitive to skew)";

using Noise = std::function<double()>;

std::vector<double> draw_gains(int n, double effect, const Noise& noise) {
  std::vector<double> gains(static_cast<std::size_t>(n));
  for (double& g : gains) g = effect + noise();
  return gains;
}

// The rounds simulated and the words for them: the first block's size.
struct Setting {
  AdaptiveDesign design;
  SequentialDesign sequential;
  std::string label;  // ", first block 5"
};

Setting setting(int first_block) {
  Setting s;
  s.design.first_block = first_block;
  s.sequential = default_sequential_design(s.design);
  s.label = ", first block " + std::to_string(first_block);
  return s;
}

PartStatus alone(const Question& q, std::vector<double> gains, const Setting& s) {
  return run_family({{q, {std::move(gains)}}}, s.sequential, s.design).questions[0].status;
}

// A claim asked alone of a scenario's gains (a family of one), and its words.
struct NullClaim {
  Question question;
  std::string words;  // "better", "not_worse by δ", ...
};

// `datasets` studies of gains at `effect` for each claim, asked alone (a family of one):
// the claim is false at that gain by exactly nothing, so "agrees" and "disagrees" are
// both false decisions. A claim without words is the difference question: "better" or
// "worse" is the false decision. Each claim has studies of its own. `bound` judges the
// rows; `note` follows their measure.
void null_claims(const std::string& scenario, double effect, const Noise& noise,
                 const std::vector<NullClaim>& claims, int datasets, const Setting& s,
                 std::vector<CalibrationRow>& rows, const std::string& bound = kAtMostAlpha,
                 const std::string& note = "") {
  for (const NullClaim& claim : claims) {
    RateTally agrees, disagrees;
    for (int i = 0; i < datasets; ++i) {
      const PartStatus status =
          alone(claim.question, draw_gains(s.design.max_seeds, effect, noise), s);
      agrees.add(status == PartStatus::agrees);
      disagrees.add(status == PartStatus::disagrees);
    }
    if (claim.words.empty()) {
      rows.push_back(calibration_row(scenario + s.label,
                                     "false better or worse (the difference question)" + note,
                                     agrees, bound));
      continue;
    }
    rows.push_back(calibration_row(
        scenario + s.label, "false agrees (expect " + claim.words + ")" + note, agrees, bound));
    rows.push_back(calibration_row(scenario + s.label,
                                   "false disagrees (expect " + claim.words + ")" + note, disagrees,
                                   bound));
  }
}

// For reference under skew: the fixed design's one-sided paired t-test of "gain ≥ 0" (the
// test that disagrees to "better") at 5 and at 40 seeds, on gains drawn as the
// scenario's: what the t-test itself does there, whatever the design. Shown.
void fixed_n_reference(const std::string& scenario, const Noise& noise, int datasets,
                       const Setting& s, std::vector<CalibrationRow>& rows) {
  RateTally five, forty;
  const std::vector<double> zeros(std::size_t(s.design.max_seeds), 0.0);
  for (int i = 0; i < datasets; ++i) {
    const std::vector<double> gains = draw_gains(s.design.max_seeds, 0, noise);
    five.add(one_sided_p(paired_t(std::span(gains).first(5), std::span(zeros).first(5)), 0, false) <
             0.05);
    forty.add(one_sided_p(paired_t(gains, zeros), 0, false) < 0.05);
  }
  for (const auto& [n, tally] : {std::pair(5, five), std::pair(40, forty)})
    rows.push_back(calibration_row(
        scenario + s.label,
        "for reference, the fixed design: one-sided paired t p < 0.05 below 0 (a false "
        "disagrees to better) at " +
            std::to_string(n) + " seeds" + kSkewNote,
        tally, kSkewBound));
}

const Question kDifference{};
const Question kBetter{Expectation::better, std::nullopt};

// The difference question and a "better" claim on the same gains at a true gain: what
// the power table and the coverage rows count.
struct EffectTally {
  RateTally better, decided, futile, open, covers, claim_covers;
  double seeds = 0, seeds_squared = 0;
};

bool covers(const PartState& p, double truth) {
  return p.low <= truth && truth <= p.high;
}

EffectTally at_effect(double effect, int datasets, const Noise& noise, const Setting& s) {
  EffectTally t;
  for (int i = 0; i < datasets; ++i) {
    const std::vector<double> gains = draw_gains(s.design.max_seeds, effect, noise);
    const SimulatedFamily f = run_family({{kDifference, {gains}}}, s.sequential, s.design);
    const FamilyQuestion& q = f.questions[0];
    const PartState& part = q.parts[0];
    t.decided.add(q.status != PartStatus::open);
    t.better.add(q.status != PartStatus::open && part.low > 0);
    t.futile.add(q.futile);
    t.open.add(q.status == PartStatus::open && !q.futile);
    t.covers.add(covers(part, effect));
    const double seeds = f.seeds[0][0];
    t.seeds += seeds;
    t.seeds_squared += seeds * seeds;
    const SimulatedFamily claim = run_family({{kBetter, {gains}}}, s.sequential, s.design);
    t.claim_covers.add(covers(claim.questions[0].parts[0], effect));
  }
  return t;
}

// The power table's row of a true effect.
GroupSequentialPowerRow power_row(double effect, const EffectTally& t, const Setting& s) {
  GroupSequentialPowerRow r;
  r.first_block = s.design.first_block;
  r.effect = effect;
  const double n = double(t.decided.datasets);
  r.mean_seeds = t.seeds / n;
  const double sd =
      std::sqrt(std::max(0.0, (t.seeds_squared - n * r.mean_seeds * r.mean_seeds) / (n - 1)));
  r.seeds_low = r.mean_seeds - 1.96 * sd / std::sqrt(n);
  r.seeds_high = r.mean_seeds + 1.96 * sd / std::sqrt(n);
  r.futile = double(t.futile.hits) / n;
  r.open_at_budget = double(t.open.hits) / n;
  if (effect == 0) {
    r.decided = calibration_row("A/A (no difference)", "better or worse", t.decided, kAtMostAlpha);
    return r;
  }
  char scenario[64];
  std::snprintf(scenario, sizeof scenario, "+%.1f sd", effect);
  const bool targets = s.design.first_block == 5;
  r.decided =
      calibration_row(scenario, "better", t.better, targets && effect == 0.5 ? kPowerTarget : "");
  if (targets && effect == 1.0) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "≤ %g", kSeedsTarget);
    r.seeds_bound = bound;
    r.seeds_pass = r.seeds_low <= kSeedsTarget;
  }
  // No fixed n has power 1: when every study decided, the fixed design is matched at the
  // power's lower 95 % bound instead (fewer seeds: the saving is not overstated).
  const double power = t.better.hits < t.better.datasets ? r.decided.rate : r.decided.low;
  r.fixed_seeds = fixed_design_seeds(effect, s.design.alpha, power);
  return r;
}

// Families of `m` questions `q`, each on a study of its own (one part each): the first
// `true_ones` at a true gain of `true_effect` > 0, the rest at 0. A claim's false agrees
// are those of the questions at 0, its false disagrees any; the difference question's
// false decisions are those at 0 and "worse" at a true gain.
struct FamilyTally {
  RateTally agrees, disagrees;
};

FamilyTally family_of(const Question& q, int m, int true_ones, double true_effect, int datasets,
                      const Noise& noise, const Setting& s) {
  FamilyTally t;
  std::vector<SimulatedQuestion> questions(static_cast<std::size_t>(m));
  for (int i = 0; i < datasets; ++i) {
    for (int k = 0; k < m; ++k)
      questions[std::size_t(k)] = {
          q, {draw_gains(s.design.max_seeds, k < true_ones ? true_effect : 0, noise)}};
    const SimulatedFamily f = run_family(questions, s.sequential, s.design);
    bool agrees = false, disagrees = false;
    for (int k = 0; k < m; ++k) {
      const FamilyQuestion& r = f.questions[std::size_t(k)];
      const bool decided = r.status != PartStatus::open;
      if (q.expect)
        agrees |= k >= true_ones && r.status == PartStatus::agrees;
      else
        agrees |= decided && (k >= true_ones || r.parts[0].high < 0);
      disagrees |= r.status == PartStatus::disagrees;
    }
    t.agrees.add(agrees);
    t.disagrees.add(disagrees);
  }
  return t;
}

// Families of 3 and 7 questions, all at 0, and of 7 with 3 at a true gain of 1 sd (the
// others get their levels): claims "better" and difference questions.
void families(int datasets, int datasets_of_seven, const Noise& normal, const Setting& s,
              std::vector<CalibrationRow>& rows) {
  for (const bool claims : {true, false}) {
    const Question& q = claims ? kBetter : kDifference;
    const std::string kind = claims ? " claims (expect better)" : " difference questions";
    for (const auto& [m, true_ones] : {std::pair(3, 0), std::pair(7, 0), std::pair(7, 3)}) {
      const int n = m == 7 ? datasets_of_seven : datasets;
      const FamilyTally t = family_of(q, m, true_ones, 1.0, n, normal, s);
      std::string scenario = true_ones ? "3 of 7 at +1 sd, 4 at 0, normal, a family of 7"
                                       : "no difference, normal, a family of " + std::to_string(m);
      scenario += kind + s.label;
      const std::string among = true_ones ? " (the 4 at 0)" : "";
      if (!claims) {
        rows.push_back(calibration_row(
            scenario, "any false better or worse" + among + " (graphical procedure)", t.agrees,
            kAtMostAlpha));
        continue;
      }
      rows.push_back(calibration_row(
          scenario, "any false agrees" + among + " (graphical procedure)", t.agrees, kAtMostAlpha));
      rows.push_back(calibration_row(scenario, "any false disagrees (graphical procedure)",
                                     t.disagrees, kAtMostAlpha));
    }
  }
}

// A claim "better" over 3 points: agreeing needs all three (intersection–union), so its
// least favourable null has one point at 0 and the others far above; disagreeing needs
// one at α / 3 (Bonferroni), least favourable with all three at 0.
void three_points(int datasets, const Noise& noise, const Setting& s,
                  std::vector<CalibrationRow>& rows) {
  RateTally one_at_null, agrees, disagrees;
  const int n = s.design.max_seeds;
  for (int i = 0; i < datasets; ++i) {
    const SimulatedQuestion mixed{
        kBetter, {draw_gains(n, 0, noise), draw_gains(n, 2, noise), draw_gains(n, 2, noise)}};
    one_at_null.add(run_family({mixed}, s.sequential, s.design).questions[0].status ==
                    PartStatus::agrees);
    const SimulatedQuestion null{
        kBetter, {draw_gains(n, 0, noise), draw_gains(n, 0, noise), draw_gains(n, 0, noise)}};
    const PartStatus status = run_family({null}, s.sequential, s.design).questions[0].status;
    agrees.add(status == PartStatus::agrees);
    disagrees.add(status == PartStatus::disagrees);
  }
  rows.push_back(calibration_row("one of 3 points at 0, two at +2 sd, normal" + s.label,
                                 "false agrees (expect better at all 3: intersection–union)",
                                 one_at_null, kAtMostAlpha));
  rows.push_back(calibration_row("no difference at 3 points, normal" + s.label,
                                 "false agrees (expect better at all 3: intersection–union)",
                                 agrees, kAtMostAlpha));
  rows.push_back(
      calibration_row("no difference at 3 points, normal" + s.label,
                      "false disagrees (expect better at all 3: Bonferroni, α/3 a point)",
                      disagrees, kAtMostAlpha));
}

// The claim kinds at their nulls and margins, and the power rows, for one first block.
void claim_kinds_and_power(int datasets, const Noise& normal, const Setting& s,
                           GroupSequentialCalibration& out) {
  std::vector<CalibrationRow>& rows = out.decisions.rows;
  null_claims("no difference, normal", 0, normal,
              {{kBetter, "better"}, {Question{Expectation::worse, std::nullopt}, "worse"}},
              datasets, s, rows);
  const EffectTally aa = at_effect(0, datasets, normal, s);
  rows.push_back(calibration_row("no difference, normal" + s.label,
                                 "false better or worse (the difference question)", aa.decided,
                                 kAtMostAlpha));
  const Question equivalent{Expectation::equivalent, kMargin};
  null_claims("true gain −δ (δ = 0.5 sd), normal", -kMargin, normal,
              {{Question{Expectation::not_worse, kMargin}, "not_worse by δ"},
               {equivalent, "equivalent within ±δ"}},
              datasets, s, rows);
  null_claims("true gain +δ (δ = 0.5 sd), normal", kMargin, normal,
              {{Question{Expectation::not_better, kMargin}, "not_better by δ"},
               {equivalent, "equivalent within ±δ"},
               {Question{Expectation::better, std::nullopt, kMargin}, "better, min_effect δ"}},
              datasets, s, rows);
  out.power.push_back(power_row(0, aa, s));
  for (double effect : {0.5, 1.0, 2.0}) {
    const EffectTally t = at_effect(effect, datasets, normal, s);
    out.power.push_back(power_row(effect, t, s));
    if (s.design.first_block != 5 || effect == 2.0) continue;
    char scenario[64];
    std::snprintf(scenario, sizeof scenario, "true gain +%.1f sd, normal", effect);
    rows.push_back(calibration_row(
        scenario + s.label,
        "repeated confidence interval covers the truth at the stop (the difference question, "
        "1 − α)",
        t.covers, "≥ 0.95"));
    rows.push_back(calibration_row(
        scenario + s.label,
        "repeated confidence interval covers the truth at the stop (expect better, 1 − 2α)",
        t.claim_covers, "≥ 0.90"));
  }
}

}  // namespace

GroupSequentialCalibration calibrate_group_sequential(int datasets, std::uint64_t seed) {
  GroupSequentialCalibration out;
  out.decisions.seed = seed;
  out.decisions.datasets = datasets;
  std::vector<CalibrationRow>& rows = out.decisions.rows;
  SimulationDraws d(seed);  // shared: the scenarios draw from it in this order
  const Noise normal = [&d] { return d.normal(); };
  const Noise heavy_tails = [&d] { return d.student_t3(); };
  // Skewed: a centred exponential, Exp(1) − 1 (sd 1, skewness 2, the long tail above).
  const Noise skewed = [&d] { return -std::log(1 - d.uniform()) - 1; };
  const Noise accuracy_difference = [&d] {  // of two models at 0.8 on 200 examples
    const int variant = d.binomial(200, 0.8);
    return (variant - d.binomial(200, 0.8)) / 200.0;
  };
  const Setting five = setting(5), ten = setting(10);
  claim_kinds_and_power(datasets, normal, five, out);
  three_points(datasets, normal, five, rows);
  families(datasets, datasets, normal, five, rows);
  const std::vector<NullClaim> both_tails{{kBetter, "better"}, {kDifference, ""}};
  null_claims("no difference, heavy tails (t, 3 df)", 0, heavy_tails, both_tails, datasets, five,
              rows);
  // Skewed gains are shown, not judged (kSkewBound): a one-sided t-test's tails are
  // uneven under skew, and the table shows by how much.
  null_claims("no difference, skewed (exponential − 1)", 0, skewed, both_tails, datasets, five,
              rows, kSkewBound, kSkewNote);
  fixed_n_reference("no difference, skewed (exponential − 1)", skewed, datasets, five, rows);
  null_claims("no difference, accuracy on 200 examples (discrete)", 0, accuracy_difference,
              both_tails, datasets, five, rows);
  claim_kinds_and_power(datasets, normal, ten, out);
  return out;
}

bool GroupSequentialCalibration::passes() const {
  for (const GroupSequentialPowerRow& r : power)
    if (!r.decided.passes || !r.seeds_pass) return false;
  return decisions.passes();
}

std::string GroupSequentialCalibration::markdown() const {
  std::ostringstream md;
  md << decisions.markdown() << "\n"
     << "Power and seeds at true gains (normal; the difference question): how often the design "
        "decided \"better\" by the budget, the seeds it used on average (with a 95% interval), "
        "how often it stopped for futility or was open at the budget, and the seeds a "
        "two-sided paired t-test at α = 0.05 needs for that power (for a power of 1, the low "
        "end of its interval: no fixed n has power 1):\n\n"
     << "| first block | true gain | decided by " << design.max_seeds
     << " seeds [95% CI] | bound | holds | mean seeds [95% CI] | bound | holds | stopped for "
        "futility | open at "
     << design.max_seeds
     << " seeds | fixed design's seeds | seeds saved |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  char cells[160];
  for (const GroupSequentialPowerRow& r : power) {
    md << "| " << r.first_block << " | " << r.decided.scenario << " | " << r.decided.measure << ": "
       << rate_and_bound_cells(r.decided);
    std::snprintf(cells, sizeof cells, " | %.1f [%.1f, %.1f] | %s | %s | %.3f | %.3f | ",
                  r.mean_seeds, r.seeds_low, r.seeds_high,
                  r.seeds_bound.empty() ? "shown" : r.seeds_bound.c_str(),
                  r.seeds_bound.empty() ? "—"
                  : r.seeds_pass        ? "yes"
                                        : "**no**",
                  r.futile, r.open_at_budget);
    md << cells;
    md << fixed_design_cells(r.fixed_seeds, r.mean_seeds);
  }
  return md.str();
}

}  // namespace ablate::experiments::stats
