#pragma once
// A results folder's reports and its record (run_record.h): the reports rebuilt from
// the record, and a record derived from the reports when the run directory is gone.
#include <string>

#include "experiments/analysis/report_summary.h"

namespace ablate::experiments {

struct Experiment;

// Writes <results_dir>/record.jsonl from its results.csv and summary.md and the
// experiment they were run from, after checking that the record rebuilds that
// results.csv: every trial, column and cell the same text, in the column order of the
// ablate that rebuilds it (throws std::runtime_error naming the first difference
// otherwise, and when the experiment's trial ids are not those of results.csv).
void derive_run_record(const std::string& results_dir, const Experiment& experiment);

// Rebuilds the reports of a results folder from its record.jsonl: results.csv,
// comparisons.csv, claims.csv (removed when the record has no claims), summary.md, and
// the plots when the record has the curves to draw them. Each file is replaced
// atomically; the record is not changed.
ReportSummary rebuild_reports_from_record(const std::string& results_dir);

}  // namespace ablate::experiments
