#pragma once
// Reports of a run directory, rebuilt from what is on disk (so `ablate report` works
// on any copy of a run, including shards merged from several machines):
//   results.csv      one row per trial: point id, swept values, seed, status, test
//                    metrics, final and best validation metrics, speed
//   comparisons.csv  one row per sweep point and test metric: mean and interval,
//                    the comparison with its baseline, the verdict (analysis/comparisons.h)
//   claims.csv       with [[report.claims]]: each claim's verdict at each point it
//                    picks (claims_report.h)
//   summary.md       the comparison table of the primary test metric, the claims, the
//                    evaluation noise beside the seed spread, the validation table;
//                    missing and failed trials listed
//   plots/           gnuplot SVG + PNG (see plots.h)
#include <string>

#include "experiments/analysis/report_summary.h"

namespace ablate::experiments {

struct RecordOrigin;  // run_record.h

// Reads trials.json and every trials/<id>/summary.json; writes results.csv,
// comparisons.csv, summary.md and the plots, and (for a run directory, not one
// unpacked from a record) the run's record.jsonl. Throws std::runtime_error if run_dir
// has no trials.json.
ReportSummary write_reports(const std::string& run_dir, const RecordOrigin* origin = nullptr);

}  // namespace ablate::experiments
