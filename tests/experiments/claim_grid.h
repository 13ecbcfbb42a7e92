#pragma once
// A placement × depth grid of sweep points with one claim, built without a run
// directory: the claims tests judge it (claims_test.cpp, preregistration_test.cpp).
#include <string>
#include <vector>

#include "experiments/reports/report.h"

namespace ablate::experiments::testing {

inline PointResults grid_point(const std::string& placement, const std::string& depth,
                               std::vector<double> accuracy) {
  PointResults p;
  p.run = "run";
  p.values = {{"placement", placement}, {"depth", depth}};
  p.label = "placement=" + placement + " depth=" + depth;
  p.point_id = placement + depth;
  for (std::size_t s = 0; s < accuracy.size(); ++s) p.test[s]["sequence_accuracy"] = accuracy[s];
  p.trials = int(accuracy.size());
  return p;
}

// A placement × depth grid compared within each depth.
inline RunPoints placement_grid() {
  RunPoints run;
  run.task = "reverse";
  run.keys = {"placement", "depth"};
  run.points = {
      grid_point("pre", "2", {0.80, 0.82, 0.81, 0.83, 0.79}),
      grid_point("pre", "4", {0.80, 0.82, 0.81, 0.83, 0.79}),
      grid_point("post", "2", {0.60, 0.63, 0.60, 0.64, 0.58}),   // clearly worse
      grid_point("post", "4", {0.81, 0.80, 0.82, 0.82, 0.80})};  // no detectable difference
  ClaimSpec claim;
  claim.claim = "Post-LN is worse than pre-LN at every depth.";
  claim.point = {{"placement", "post"}};
  claim.expect = "worse";
  run.claims = {claim};
  return run;
}

}  // namespace ablate::experiments::testing
