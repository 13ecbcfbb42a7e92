#include "experiments/stats/adaptive_calibration.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>

#include "experiments/stats/comparison.h"

namespace ablate::experiments::stats {

namespace {

// The seeds each look sees: the first block, then a block more a round, up to the
// budget or the gains available.
std::vector<std::size_t> look_sizes(std::size_t gains, const AdaptiveDesign& design) {
  const std::size_t available = std::min(gains, std::size_t(design.max_seeds));
  std::vector<std::size_t> sizes{std::min(std::size_t(design.first_block), available)};
  while (sizes.back() < available)
    sizes.push_back(std::min(sizes.back() + std::size_t(design.block), available));
  return sizes;
}

}  // namespace

AdaptiveOutcome run_adaptive(std::span<const double> gains, const Question& q, double alpha,
                             const AdaptiveDesign& design) {
  AdaptiveOutcome out;
  int round = 0;
  for (std::size_t n : look_sizes(gains.size(), design)) {
    out.seeds = int(n);
    update_part(out.part, gains.first(n), q, alpha, round++);
    if (out.part.status != PartStatus::open) break;
  }
  return out;
}

namespace {

// The bounds: a false decision of the adaptive design at most α; the naive design's
// shown to exceed it.
constexpr const char kAtMostAlpha[] = "≤ 0.05";
constexpr const char kAboveAlpha[] = "> 0.05";
// The margin δ of the equivalence and non-inferiority scenarios, in sd of the gains.
constexpr double kMargin = 0.5;

using Noise = std::function<double()>;

// A study's paired gains for the whole budget, drawn before either design looks at
// them: both designs see the same data, and the draws do not depend on when one stops.
std::vector<double> draw_gains(int n, double effect, const Noise& noise) {
  std::vector<double> gains(static_cast<std::size_t>(n));
  for (double& g : gains) g = effect + noise();
  return gains;
}

// The naive design's test at one look: true when it rejects.
using NaiveTest = bool (*)(const Comparison&);
bool two_sided_t_rejects(const Comparison& c) {
  return c.tested() && c.p_value < 0.05;
}
bool tost_rejects(const Comparison& c) {
  return c.tested() && equivalence_p(c, kMargin) < 0.05;
}

// The naive design on the same gains: the fixed-n test at every look of the adaptive
// design, stopping at its first rejection (a decision).
bool naive_decides(std::span<const double> gains, NaiveTest rejects, const AdaptiveDesign& design) {
  const std::vector<double> zeros(gains.size(), 0.0);  // the gains are a − b with b = 0
  for (std::size_t n : look_sizes(gains.size(), design))
    if (rejects(paired_t(gains.first(n), std::span(zeros).first(n)))) return true;
  return false;
}

// One question over the simulated studies of a scenario.
struct QuestionTally {
  RateTally agrees, disagrees, better, open;
  double seeds = 0;  // summed over the studies
};

// A scenario: `datasets` studies of true gain `effect` plus `noise`, each question asked
// adaptively of every study's gains, and the naive design (when given) run on them too.
struct ScenarioTally {
  std::vector<QuestionTally> questions;
  RateTally naive;
};

ScenarioTally simulate(int datasets, double effect, const Noise& noise,
                       const std::vector<Question>& questions, NaiveTest naive_test,
                       const AdaptiveDesign& design) {
  ScenarioTally out;
  out.questions.resize(questions.size());
  for (int i = 0; i < datasets; ++i) {
    const std::vector<double> gains = draw_gains(design.max_seeds, effect, noise);
    for (std::size_t k = 0; k < questions.size(); ++k) {
      const AdaptiveOutcome o = run_adaptive(gains, questions[k], design.alpha, design);
      QuestionTally& t = out.questions[k];
      t.agrees.add(o.part.status == PartStatus::agrees);
      t.disagrees.add(o.part.status == PartStatus::disagrees);
      t.better.add(o.part.status != PartStatus::open && o.part.low > 0);
      t.open.add(o.part.status == PartStatus::open);
      t.seeds += o.seeds;
    }
    if (naive_test) out.naive.add(naive_decides(gains, naive_test, design));
  }
  return out;
}

const Question kBetter{Expectation::better, std::nullopt};
const Question kDifference{};  // no claim: does the point differ from its baseline?

// The null with `noise`: false "agrees" to "better", false "better" or "worse" to the
// difference question, and the naive two-sided t-test's false decisions on the same data.
// Returns the difference question's tally (the A/A row of the power table).
QuestionTally no_difference(const std::string& scenario, int datasets, const Noise& noise,
                            const AdaptiveDesign& design, std::vector<CalibrationRow>& rows) {
  const ScenarioTally t =
      simulate(datasets, 0, noise, {kBetter, kDifference}, two_sided_t_rejects, design);
  rows.push_back(calibration_row(scenario, "false agrees (expect better)", t.questions[0].agrees,
                                 kAtMostAlpha));
  rows.push_back(calibration_row(scenario, "false better or worse (the difference question)",
                                 t.questions[1].agrees, kAtMostAlpha));
  rows.push_back(calibration_row(
      scenario, "naive: two-sided paired t p < 0.05 at any look, stopping there (a false decision)",
      t.naive, kAboveAlpha));
  return t.questions[1];
}

// Four questions "better", all false, each on its own null study at α/4 (Bonferroni,
// as sequential_design.h shares α): the chance that any agrees.
void family_of_four(int datasets, const Noise& noise, const AdaptiveDesign& design,
                    std::vector<CalibrationRow>& rows) {
  RateTally any_agrees;
  for (int i = 0; i < datasets; ++i) {
    bool any = false;
    for (int k = 0; k < 4; ++k) {
      const std::vector<double> gains = draw_gains(design.max_seeds, 0, noise);
      any |=
          run_adaptive(gains, kBetter, design.alpha / 4, design).part.status == PartStatus::agrees;
    }
    any_agrees.add(any);
  }
  rows.push_back(calibration_row("no difference, normal",
                                 "any false agrees in a family of 4 (Bonferroni, α/4 each)",
                                 any_agrees, kAtMostAlpha));
}

// At a margin's edge: the true gain is `effect` (±δ) and `expected` is false there by
// exactly nothing, so "agrees" and "disagrees" are both false decisions.
void at_margin(const std::string& scenario, double effect, Expectation expected,
               const std::string& words, NaiveTest naive_test, const Noise& noise, int datasets,
               const AdaptiveDesign& design, std::vector<CalibrationRow>& rows) {
  const ScenarioTally t =
      simulate(datasets, effect, noise, {Question{expected, kMargin}}, naive_test, design);
  rows.push_back(calibration_row(scenario, "false agrees (expect " + words + ")",
                                 t.questions[0].agrees, kAtMostAlpha));
  rows.push_back(calibration_row(scenario, "false disagrees (expect " + words + ")",
                                 t.questions[0].disagrees, kAtMostAlpha));
  if (naive_test)
    rows.push_back(calibration_row(
        scenario, "naive: TOST p < 0.05 at any look, stopping there (a false agrees)", t.naive,
        kAboveAlpha));
}

// The power table's row of a true effect, from the difference question's tally.
AdaptivePowerRow power_row(double effect, const QuestionTally& t, int datasets,
                           const AdaptiveDesign& design) {
  AdaptivePowerRow r;
  r.effect = effect;
  r.mean_seeds = t.seeds / datasets;
  r.open_at_budget = double(t.open.hits) / double(t.open.datasets);
  char scenario[64];
  if (effect == 0) {
    r.decided = calibration_row("A/A (no difference)", "better or worse", t.agrees, kAtMostAlpha);
    return r;
  }
  std::snprintf(scenario, sizeof scenario, "+%.1f sd", effect);
  r.decided = calibration_row(scenario, "better", t.better, "");
  // No fixed n has power 1: when every study decided, the fixed design is matched at
  // the power's lower 95 % bound instead (fewer seeds: the saving is not overstated).
  r.matched_power = t.better.hits < t.better.datasets ? r.decided.rate : r.decided.low;
  r.fixed_seeds = fixed_design_seeds(effect, design.alpha, r.matched_power);
  return r;
}

}  // namespace

AdaptiveCalibration calibrate_adaptive(int datasets, std::uint64_t seed) {
  AdaptiveCalibration out;
  const AdaptiveDesign& design = out.design;
  out.decisions.seed = seed;
  out.decisions.datasets = datasets;
  std::vector<CalibrationRow>& rows = out.decisions.rows;
  SimulationDraws d(seed);  // shared: the scenarios draw from it in this order
  const Noise normal = [&d] { return d.normal(); };
  const Noise heavy_tails = [&d] { return d.student_t3(); };
  const Noise accuracy_difference = [&d] {  // of two models at 0.8 on 200 examples
    const int variant = d.binomial(200, 0.8);
    return (variant - d.binomial(200, 0.8)) / 200.0;
  };
  const QuestionTally aa = no_difference("no difference, normal", datasets, normal, design, rows);
  family_of_four(datasets, normal, design, rows);
  no_difference("no difference, heavy tails (t, 3 df)", datasets, heavy_tails, design, rows);
  no_difference("no difference, accuracy on 200 examples (discrete)", datasets, accuracy_difference,
                design, rows);
  at_margin("true gain at the margin (+δ, δ = 0.5 sd), normal", kMargin, Expectation::equivalent,
            "equivalent within ±δ", tost_rejects, normal, datasets, design, rows);
  at_margin("true gain at the margin (−δ), normal", -kMargin, Expectation::not_worse,
            "not_worse by δ", nullptr, normal, datasets, design, rows);
  out.power.push_back(power_row(0, aa, datasets, design));
  for (double effect : {0.5, 1.0, 2.0}) {
    const ScenarioTally t = simulate(datasets, effect, normal, {kDifference}, nullptr, design);
    out.power.push_back(power_row(effect, t.questions[0], datasets, design));
  }
  return out;
}

std::string fixed_design_cells(int fixed_seeds, double mean_seeds) {
  if (fixed_seeds <= 0) return "— | — |\n";
  char cells[64];
  std::snprintf(cells, sizeof cells, "%d | %+.1f |\n", fixed_seeds, fixed_seeds - mean_seeds);
  return cells;
}

bool AdaptiveCalibration::passes() const {
  for (const AdaptivePowerRow& r : power)
    if (!r.decided.passes) return false;
  return decisions.passes();
}

std::string AdaptiveCalibration::markdown() const {
  std::ostringstream md;
  md << decisions.markdown() << "\n"
     << "Power and seeds at true gains (normal; the difference question): how often the "
        "adaptive design decided by the budget, the seeds it used on average, and the seeds a "
        "two-sided paired t-test at α = 0.05 needs for that power (for a power of 1, the low "
        "end of its interval: no fixed n has power 1):\n\n"
     << "| true gain | decided by " << design.max_seeds
     << " seeds [95% CI] | bound | holds | mean seeds | open at " << design.max_seeds
     << " seeds | fixed design's seeds | seeds saved |\n|---|---|---|---|---|---|---|---|\n";
  char cells[128];
  for (const AdaptivePowerRow& r : power) {
    md << "| " << r.decided.scenario << " | " << r.decided.measure << ": "
       << rate_and_bound_cells(r.decided);
    std::snprintf(cells, sizeof cells, " | %.1f | %.3f | ", r.mean_seeds, r.open_at_budget);
    md << cells;
    md << fixed_design_cells(r.fixed_seeds, r.mean_seeds);
  }
  return md.str();
}

}  // namespace ablate::experiments::stats
