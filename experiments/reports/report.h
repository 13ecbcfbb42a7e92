#pragma once
// Reports of a run directory, rebuilt from what is on disk (so `ablate report` works
// on any copy of a run, including shards merged from several machines):
//   results.csv   one row per trial: swept values, seed, status, final and best
//                 metrics, speed
//   summary.md    one row per sweep point: mean ± std over seeds, sorted by the
//                 primary metric; missing and failed trials listed
//   plots/        gnuplot SVG + PNG (see plots.h)
#include <string>
#include <vector>

#include "experiments/config/experiment.h"

namespace ablate::experiments {

// Writes <run_dir>/trials.json: the trials the experiment expects (id, seed, point)
// and its swept keys, so reports can tell what is missing.
void write_trial_index(const std::string& run_dir, const Experiment& experiment);

struct ReportSummary {
  int expected = 0, finished = 0, failed = 0, missing = 0;
  std::vector<std::string> missing_ids;
};

// Reads trials.json and every trials/<id>/summary.json; writes results.csv,
// summary.md and the plots. Throws std::runtime_error if run_dir has no trials.json.
ReportSummary write_reports(const std::string& run_dir);

}  // namespace ablate::experiments
