#include "experiments/study/study_training_section.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <vector>

#include "experiments/study/study_text.h"

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

std::string scale_name(const std::string& scale) {
  if (scale == "sqrt_dk") return "1/sqrt(d_k)";
  if (scale == "none") return "1 (unscaled)";
  if (scale == "dk") return "1/d_k";
  if (scale == "learned") return "learned";
  return scale;  // a constant such as 0.5
}

// "4, 16" from d_k values.
std::string list_of(const std::vector<std::int64_t>& v) {
  std::string out;
  for (std::int64_t x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

std::string interval(const json& m) {
  if (!m.contains("mean")) return "—";
  return study_number(m["mean"].get<double>()) + " [" + study_number(m["ci_low"].get<double>()) +
         ", " + study_number(m["ci_high"].get<double>()) + "]";
}

std::string difference(const json& m) {
  if (!m.contains("diff")) return m.value("verdict", "") == "baseline" ? "baseline" : "—";
  const double d = m["diff"].get<double>();
  std::string out =
      d > 0 ? "+" : "";  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on "+" + string
  out += study_number(d, 3);
  out += " [" + study_number(m["diff_ci_low"].get<double>(), 3) + ", " +
         study_number(m["diff_ci_high"].get<double>(), 3) + "], ";
  out += m["verdict"].get<std::string>();
  return out;
}

// A sweep point of the training summary, by its d_k.
struct TrainingPoint {
  std::int64_t d_k = 0, d_model = 0, heads = 0;
  std::string scale;
  const json* p = nullptr;
};

// Sorted by d_k (stable: the summary's order within a d_k).
std::vector<TrainingPoint> training_points(const json& t) {
  std::vector<TrainingPoint> rows;
  for (const json& p : t) {
    TrainingPoint r;
    r.d_model = std::stoll(p["point"].value("model.d_model", "0"));
    r.heads = std::stoll(p["point"].value("model.heads", "1"));
    r.d_k = r.heads ? r.d_model / r.heads : 0;
    r.scale = p["point"].value("model.attention.scale", "");
    r.p = &p;
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const TrainingPoint& a, const TrainingPoint& b) { return a.d_k < b.d_k; });
  return rows;
}

// The heading, how to read the table, and the table.
std::string training_table(const std::vector<TrainingPoint>& rows) {
  std::ostringstream md;
  md << "## Claim 4 in training: does the scale matter once the model is trained?\n\n"
     << "The sweep of this file, with the learning rate tuned for every point on validation "
        "([tune]); "
        "d_k = d_model / heads as the table lists. Test metrics of the model validation selected, "
        "mean over seeds with its 95% "
        "interval; each scale against 1/sqrt(d_k) at the same d_k (paired by seed; exploratory: p "
        "not adjusted "
        "over the table, and a finding the permutation test does not reproduce is marked; "
        "`summary.md` and "
        "`comparisons.csv` have the full statistics). Attention max probability: "
        "the mean over modules and heads during the last evaluation interval.\n\n"
     << "| d_k | d_model × heads | scale | lr (tuned) | test loss | vs 1/sqrt(d_k) | test sequence "
        "accuracy | "
        "vs 1/sqrt(d_k) | attention max prob |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const TrainingPoint& r : rows) {
    const json& p = *r.p;
    const json loss = p.value("test_loss", json::object()),
               acc = p.value("test_sequence_accuracy", json::object());
    md << "| " << r.d_k << " | " << r.d_model << " × " << r.heads << " | " << scale_name(r.scale)
       << " | " << p.value("tuned", "")
       << (p.value("tuned_at_grid_edge", false) ? " (grid's edge)" : "") << " | " << interval(loss)
       << " | " << difference(loss) << " | " << interval(acc) << " | " << difference(acc) << " | "
       << mean_pm_std(p["attention_max_prob"]) << " |\n";
  }
  const auto at_edge = std::count_if(rows.begin(), rows.end(), [](const TrainingPoint& r) {
    return r.p->value("tuned_at_grid_edge", false);
  });
  if (at_edge)
    md << "\n"
       << at_edge << " of " << rows.size()
       << " points chose the learning-rate grid's first or last value (\"grid's edge\"): "
          "their best rate may lie beyond it, and their rows compare them at the best rate "
          "tried. summary.md's Tuning table has every rate's validation loss.\n";
  return md.str();
}

constexpr const char* kSameNetwork = "the same network as 1/sqrt(d_k) (identical results)";

// At which d_k the test loss of `scale` is worse, better, or not detectably different
// from 1/sqrt(d_k), by the verdict's leading word.
std::map<std::string, std::vector<std::int64_t>> verdicts(const std::vector<TrainingPoint>& rows,
                                                          const std::string& scale) {
  std::map<std::string, std::vector<std::int64_t>> by;
  for (const TrainingPoint& r : rows) {
    if (r.scale != scale) continue;
    // The verdict's leading word: "worse (rests on normality, n = 5)" is a "worse".
    const json loss = r.p->value("test_loss", json::object());
    const std::string v = loss.value("verdict", "");
    std::string word = "no detectable difference";
    for (const char* w : {"better", "worse", "inconclusive"})
      if (v.starts_with(w)) word = w;
    // The same network as the baseline (study_report.cpp), as 0.5 is 1/sqrt(d_k) at
    // d_k = 4: not an open question, though the test is withheld.
    if (loss.value("identical_to_baseline", false)) word = kSameNetwork;
    by[word].push_back(r.d_k);
  }
  return by;
}

// Per scale: at which d_k the test loss is worse, better, or not detectably different.
std::string verdicts_per_scale(const std::vector<TrainingPoint>& rows) {
  std::vector<std::string> scales;
  for (const TrainingPoint& r : rows)
    if (r.scale != "sqrt_dk" && std::find(scales.begin(), scales.end(), r.scale) == scales.end())
      scales.push_back(r.scale);
  std::ostringstream md;
  md << "\nOn test loss, against 1/sqrt(d_k) at the same d_k:\n\n";
  for (const std::string& scale : scales) {
    auto by = verdicts(rows, scale);
    md << "- **" << scale_name(scale) << "**:";
    bool first = true;
    for (const char* word :
         {"worse", "better", "no detectable difference", "inconclusive", kSameNetwork})
      if (by.count(word)) {
        md << (first ? " " : "; ") << word << " at d_k = " << list_of(by[word]);
        first = false;
      }
    md << ".\n";
  }
  return md.str();
}

// The blog's first training claim, judged from the verdicts per d_k.
std::string unscaled_verdict(const std::vector<TrainingPoint>& rows) {
  auto none = verdicts(rows, "none");
  const std::vector<std::int64_t> unscaled_worse = none["worse"];
  std::ostringstream md;
  md << "\n**Verdict on \"unscaled scores train worse\":** ";
  if (unscaled_worse.empty())
    md << "not detected at any d_k of this sweep; the design could not tell the two apart here.";
  else if (!none.count("no detectable difference") && !none.count("better"))
    md << "supported at every d_k of this sweep (" << list_of(unscaled_worse) << ").";
  else
    md << "supported at d_k = " << list_of(unscaled_worse)
       << (none.count("no detectable difference")
               ? "; not detected at d_k = " + list_of(none["no detectable difference"])
               : std::string())
       << (none.count("better") ? "; unscaled was better at d_k = " + list_of(none["better"])
                                : std::string())
       << ".";
  return md.str();
}

// The blog's second training claim, judged alike.
std::string constant_verdict(const std::vector<TrainingPoint>& rows) {
  auto half = verdicts(rows, "0.5");
  std::ostringstream md;
  md << "\n\n**Verdict on \"another constant would do\"** (the blog: sqrt(d) \"feels more like "
        "an empirical value; another number could be taken, e.g. TabNet simply multiplies by "
        "0.5 to scale the network's output\" — TabNet in fact scales its residual sums by "
        "sqrt(0.5), Arik & Pfister, \"Feature processing\" and Figure 4(c), not attention "
        "scores; the constant 0.5 on the scores is the blog's suggestion, tested here): ";
  if (!half.count("worse"))
    md << "0.5 was not detectably worse than 1/sqrt(d_k) at any d_k of this sweep.";
  else
    md << "a fixed constant does not follow d_k: 0.5 equals 1/sqrt(d_k) at d_k = 4 only, and it "
          "was worse "
          "on test loss at d_k = "
       << list_of(half["worse"])
       << (half.count("no detectable difference")
               ? " (no detectable difference at d_k = " +
                     list_of(half["no detectable difference"]) + ")"
               : std::string())
       << ". It works where it is close to 1/sqrt(d_k), which is what the scale is for.";
  // Why the replication blog_scale's first version answered otherwise: there d_model
  // stays 64 while heads × d_k grows, and Xavier's variance 2/(d_model + heads·d_k)
  // shrinks q and k. Its results are its own report's; this file states only the premise.
  md << " Here every W_q and W_k maps d_model to heads × d_k = d_model, so Xavier-uniform gives "
        "the queries and keys unit-variance coordinates and the unscaled score variance is d_k "
        "(Claim 3's premise). The replication blog_scale asks the same question in a language "
        "model whose d_model stays 64 as d_k grows to 128. Its first version kept Xavier, under "
        "which its unscaled score variance is 14, 14 and 6.3 at d_k = 8, 32, 128, never growing "
        "with d_k, and found 0.5 not detectably worse; its pre-registered version draws W_q and "
        "W_k from N(0, 1/d_model), so that the unscaled score variance is about d_k as here "
        "(experiments/studies/replications/blog_scale.toml; its verdicts, and how they compare "
        "with this table, are in the replications README's blog_scale section and "
        "experiments/studies/results/replications/blog_scale/claims.csv).";
  return md.str();
}

// The wide point: how 1/d_k and the learned scale did there; "" without one.
std::string widest_point_note(const std::vector<TrainingPoint>& rows) {
  auto at = [&](const std::string& scale, std::int64_t d_k) -> const json* {
    for (const TrainingPoint& r : rows)
      if (r.scale == scale && r.d_k == d_k) return r.p;
    return nullptr;
  };
  std::ostringstream md;
  std::int64_t widest = 0;
  for (const TrainingPoint& r : rows)
    if (r.d_model > 512 - 1) widest = std::max(widest, r.d_k);
  if (widest > 0) {
    md << "\n\n**At width 512** (d_k = " << widest << "):";
    for (const char* scale : {"dk", "learned"})
      if (const json* p = at(scale, widest)) {
        const json loss = p->value("test_loss", json::object());
        md << " " << scale_name(scale) << " test loss " << interval(loss) << " ("
           << difference(loss) << ");";
      }
    if (const json* p = at("sqrt_dk", widest))
      md << " 1/sqrt(d_k) " << interval(p->value("test_loss", json::object())) << ".";
  }
  return md.str();
}

}  // namespace

std::string training_section(const json& t) {
  const std::vector<TrainingPoint> rows = training_points(t);
  return training_table(rows) + verdicts_per_scale(rows) + unscaled_verdict(rows) +
         constant_verdict(rows) + widest_point_note(rows) +
         "\n\nTrained attention may sharpen on purpose, so saturation after training is not by "
         "itself a failure; "
         "what the scale changes is where training starts (Claim 3).\n\n";
}

}  // namespace ablate::experiments
