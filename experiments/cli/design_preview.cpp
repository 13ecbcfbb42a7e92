#include "experiments/cli/design_preview.h"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "experiments/analysis/adaptive_schedule.h"
#include "experiments/config/experiment.h"
#include "experiments/stats/group_sequential_design.h"
#include "experiments/stats/verdicts.h"

namespace ablate::experiments::cli {

namespace {

using Point = std::map<std::string, std::string>;

// Whether `point` has every value of `wanted` (a claim's point, or the baseline).
bool has_values(const Point& point,
                const std::vector<std::pair<std::string, std::string>>& wanted) {
  for (const auto& [key, value] : wanted)
    if (auto it = point.find(key); it == point.end() || it->second != value) return false;
  return true;
}

// One question's test at `level` at true effects 0, 0.5 and 1 sd, in lines.
std::string characteristics(const stats::GroupSequentialPlan& plan, double level, bool two_sided) {
  std::ostringstream out;
  char line[200];
  for (double effect : {0.0, 0.5, 1.0}) {
    const stats::OperatingPoint p = stats::planned_operating_point(plan, level, two_sided, effect);
    std::snprintf(line, sizeof line,
                  "      true effect %s: decides %s %.3f, stops for futility %.3f, mean seeds "
                  "%.1f\n",
                  effect == 0     ? "0 (no difference)"
                  : effect == 0.5 ? "+0.5 sd"
                                  : "+1 sd",
                  effect == 0 ? "(falsely)" : "(power)", p.reject, p.futile,
                  p.expected_information);
    out << line;
  }
  return out.str();
}

}  // namespace

std::string design_preview(const Experiment& e) {
  if (!e.adaptive || e.adaptive->design != "group_sequential") return "";
  const stats::GroupSequentialPlan plan = group_sequential_plan(*e.adaptive, int(e.seeds.size()));
  std::set<Point> points;
  for (const Trial& t : e.trials) points.emplace(t.point.begin(), t.point.end());
  std::ostringstream out;
  std::string looks;
  for (double n : plan.looks) looks += (looks.empty() ? "" : ", ") + std::to_string(int(n));
  out << "  before any data, at looks of " << looks
      << " seeds (20,000 simulated studies an effect, normal paired differences; effects in sd "
         "of the differences; at most "
      << e.adaptive->max_seeds << " seeds a point):\n";
  const double alpha = stats::kAlpha;
  if (e.report.claims.empty()) {
    std::size_t compared = 0;
    for (const Point& p : points) compared += !has_values(p, e.report.baseline);
    const double level = alpha / double(std::max<std::size_t>(1, compared));
    char head[200];
    std::snprintf(head, sizeof head,
                  "    each of %zu compared points, does it differ from its baseline "
                  "(two-sided at α/%zu = %.4g, more once others are decided):\n",
                  compared, compared, level);
    out << head << characteristics(plan, level, true);
    return out.str();
  }
  const std::size_t m = e.report.claims.size();
  for (const ClaimSpec& c : e.report.claims) {
    std::size_t k = 0;
    for (const Point& p : points) k += has_values(p, c.point);
    char head[400];
    std::snprintf(head, sizeof head,
                  "    claim \"%s\" (expect %s; %zu point%s, each one-sided at α/%zu = %.4g to "
                  "agree):\n",
                  c.claim.c_str(), c.expect.c_str(), k, k == 1 ? "" : "s", m, alpha / double(m));
    out << head << characteristics(plan, alpha / double(m), false);
  }
  return out.str();
}

}  // namespace ablate::experiments::cli
