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

#include "experiments/io/scratch_folder.h"

namespace ablate::experiments {

// A run directory unpacked from a record rather than the run itself.
struct RecordOrigin {
  std::string note;           // after summary.md's title: where its numbers come from
  bool draw_plots = true;     // false when the record has no curves to draw
  std::string kept_sections;  // the original summary.md's sections it cannot rebuild
};

// Writes <run_dir>/record.jsonl from the run directory (trials.json and each trial's
// summary.json and metrics.jsonl, and the attention.json of the one trial whose
// attention the plots of `plotted_index` — the trials the plots show — draw).
void write_run_record(const std::string& run_dir, const nlohmann::json& plotted_index);

// The lines of a record, for record_reports.cpp too (which derives one from results.csv).
// The header line: the record's `source` ("run directory" or results.csv), the run index
// (without the folder it was run in), and the preregistration, experiment file and the
// kept sections of summary.md when there are any.
// `defaults` (records/record_trial_defaults.h) are the summary parts the trials' lines
// leave out; an empty object when none are.
std::string record_header_line(const std::string& source, const nlohmann::json& index,
                               const std::string& run_dir, const std::string& kept_sections,
                               const nlohmann::json& defaults);
// A trial's line: its id, summary.json without the parts equal to `defaults`, and what
// else of it the record keeps.
std::string record_trial_line(const std::string& id, nlohmann::json summary,
                              const nlohmann::json& defaults, const nlohmann::json* evaluations,
                              const nlohmann::json* attention = nullptr,
                              const std::string* samples = nullptr);
// The fields the reports read without asking first (report.cpp's results.csv), null
// where a summary lacks them; a part that is not an object is an error naming `where`.
void complete_summary(nlohmann::json& s, const std::string& where);
// The folder's name, also for a path that ends in '/'.
std::string folder_name(const std::string& dir);

// Writes the run directory `run_dir` (existing and empty) from the record at `path`:
// trials.json, preregistration.json, experiment.toml and each recorded trial's files.
// A bad record is a std::invalid_argument naming path:line, before anything is written.
void unpack_run_record(const std::string& path, const std::string& run_dir);

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
