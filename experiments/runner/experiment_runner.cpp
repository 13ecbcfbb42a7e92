#include "experiments/runner/experiment_runner.h"

#include "experiments/reports/report.h"
#include "experiments/runner/adaptive_sweep.h"
#include "experiments/runner/tuned_sweep.h"

namespace ablate::experiments {

RunSummary run_experiment(const Experiment& e, const RunOptions& options) {
  if (!e.tune_seeds.empty() && !e.exact_trials) return run_tuned(e, options);
  if (e.adaptive) return run_adaptive(e, options);
  SweepPlan plan = plan_sweep(e, options);
  run_planned(e, plan, options);
  write_reports(plan.summary.run_dir);
  return plan.summary;
}

}  // namespace ablate::experiments
