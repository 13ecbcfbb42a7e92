#pragma once
// A run's record: what its reports are made from, in one file committed beside them
// (`record.jsonl`), so that `ablate report` rebuilds summary.md, comparisons.csv,
// claims.csv and results.csv from a results folder alone — under the statistics of the
// ablate that runs it, without the run directory and without training again.
//
// JSON Lines, one object a line (a changed trial changes one line of a diff):
//   line 1   {"record": "ablate run record", "version": 2, "source": ...,
//             "trials.json": the run index (without source_dir, a local path),
//             "trial_defaults": the summary parts most trials share (provenance,
//               files, code_version, computation), kept once instead of on every line,
//             "preregistration.json": the frozen claims, when the run has them,
//             "experiment.toml": the experiment file as run,
//             "kept_sections": markdown, only in a record derived from results.csv}
//   then     {"id": ..., "summary": the trial's summary.json without the parts equal to
//               trial_defaults ("summary_lacks": the default parts it does not have),
//             "evaluations": its metrics.jsonl, each evaluation's scalar values,
//             "attention": its attention.json, for the trial the plots draw it of,
//             "samples": a language model's samples.txt, which summary.md shows}
//             for every trial with a summary, in the index's order.
// `source` is "run directory" — written by every `ablate report` of a run directory,
// lossless for the reports (full-precision metrics, test-set standard errors, the
// validation curves) — or "results.csv": derived once from a results folder kept
// without its run directory (`ablate report DIR --from-results FILE`): six significant
// digits, no standard errors, no curves, no per-layer telemetry. Sections of the
// original summary.md such a record cannot rebuild (curve metrics, samples, gradient
// norms by layer, plots) are kept verbatim under a heading saying so.
//
// Version 1 (every part on every line) is read as well. A record may come from elsewhere: every id
// is checked (16 hexadecimal digits, in the index, once) before anything is written, and errors
// name the file and line.
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "experiments/config/experiment.h"
#include "experiments/io/scratch_folder.h"
#include "experiments/reports/report.h"

namespace ablate::experiments {

// Writes <run_dir>/record.jsonl from the run directory (trials.json and each trial's
// summary.json and metrics.jsonl, and the attention.json of the one trial whose
// attention the plots of `plotted_index` — the trials the plots show — draw).
void write_run_record(const std::string& run_dir, const nlohmann::json& plotted_index);

// Writes <results_dir>/record.jsonl from its results.csv and summary.md and the
// experiment they were run from, after checking that the record rebuilds that
// results.csv: every trial, column and cell the same text, in the column order of the
// ablate that rebuilds it (throws std::runtime_error naming the first difference
// otherwise, and when the experiment's trial ids are not those of results.csv).
void derive_run_record(const std::string& results_dir, const Experiment& experiment);

// Writes the run directory `run_dir` (existing and empty) from the record at `path`:
// trials.json, preregistration.json, experiment.toml and each recorded trial's files.
// A bad record is a std::invalid_argument naming path:line, before anything is written.
void unpack_run_record(const std::string& path, const std::string& run_dir);

// Rebuilds the reports of a results folder from its record.jsonl: results.csv,
// comparisons.csv, claims.csv (removed when the record has no claims), summary.md, and
// the plots when the record has the curves to draw them. Each file is replaced
// atomically; the record is not changed.
ReportSummary rebuild_reports_from_record(const std::string& results_dir);

// A run directory to read reports from: `dir` itself when it has trials.json, else
// its record.jsonl unpacked into a temporary run directory of the same name (removed
// with this object). Throws std::runtime_error when `dir` has neither.
class RunSource {
 public:
  explicit RunSource(const std::string& dir);
  ~RunSource();
  RunSource(const RunSource&) = delete;
  RunSource& operator=(const RunSource&) = delete;
  const std::string& run_dir() const { return run_dir_; }
  bool from_record() const { return scratch_ != nullptr; }
  // For a folder read from its record: what the reports say of where the trials came from.
  const RecordOrigin& origin() const { return origin_; }

 private:
  std::string run_dir_;
  std::unique_ptr<ScratchFolder> scratch_;  // the unpacked copy, when read from a record
  RecordOrigin origin_;
};

}  // namespace ablate::experiments
