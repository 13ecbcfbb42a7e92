#pragma once
// `ablate tune-replay`: what [tune.halving] schedules would have done to runs made
// without them, from their recorded validation curves (record.jsonl or a run
// directory). A rung's ranking is each trial's recorded curve up to the rung's step —
// exactly what a trial stopped there would have reported, since the learning-rate
// schedule is the full run's — and the reports' own chooser (analysis/point_tuning.h) then
// picks among the settings kept. For each schedule: how many points would choose
// another setting than the run did (their verdicts would rest on trials that were
// never run: they cannot be known from the record), and the tuning CPU the stopped
// trials would not have spent (each trial's recorded training seconds at the rung
// against its whole wall time). A point that chooses the same setting keeps its
// verdict: its compared trials are the same.
#include <string>
#include <vector>

#include "experiments/config/halving_schedule.h"

namespace ablate::experiments {

struct ReplayedRun {
  std::string name;  // the folder's path below the root given
  // Why it cannot be replayed ("" when it can): no two-stage [tune], no curves.
  std::string skipped;
  int points = 0;
  std::vector<int> choices_changed;          // per schedule
  std::vector<double> tuning_seconds_saved;  // per schedule
  double tuning_seconds = 0, all_seconds = 0;
};

// Every run below `root` (a folder with record.jsonl or trials.json), by path, replayed
// under each schedule.
std::vector<ReplayedRun> replay_runs(const std::string& root,
                                     const std::vector<HalvingSchedule>& schedules);

// The Markdown tables: one row a schedule (the runs replayed together), then one a run.
std::string replay_markdown(const std::vector<ReplayedRun>& runs,
                            const std::vector<HalvingSchedule>& schedules);

}  // namespace ablate::experiments
