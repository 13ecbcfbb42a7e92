#pragma once
// `ablate compare RUN_DIR [RUN_DIR...]`: the comparison table of several runs at once —
// e.g. two experiment files sharing a baseline — computed as a run's own
// comparisons.csv is (analysis/comparisons.h), every point against one baseline point.
// A point that several runs hold (the same resolved config: equal point_id) appears
// once, its seeds merged. Runs compared should share the task and its data seed, so
// that their test sets are the same.
#include <optional>
#include <string>
#include <vector>

namespace ablate::experiments {

struct CompareOptions {
  std::vector<std::string> run_dirs;
  std::string baseline;  // a point_id, or a unique prefix of one; "" = the first run's baseline
  std::string metric;    // "" = the first run's [report] metric (or the task's primary)
  std::optional<double> equivalence_margin;  // none = the first run's
  std::string out_dir;                       // receives comparisons.csv and comparisons.md
};

struct Comparison {
  std::string markdown;  // comparisons.md
  // Where the runs' trials were made by different code or built or run differently
  // (reports/provenance_note.h), one line each; comparisons.md lists them too, and
  // `ablate compare` warns of each on stderr.
  std::vector<std::string> provenance_differences;
};

// Writes out_dir/comparisons.csv and out_dir/comparisons.md.
// std::invalid_argument for what the caller asked wrongly (a directory that is not a
// run, runs of different task families, an unknown or ambiguous --baseline, a metric
// the runs do not have).
Comparison compare_runs(const CompareOptions& options);

}  // namespace ablate::experiments
