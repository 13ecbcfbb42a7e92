#include "experiments/reports/tune_replay.h"
#include "experiments/records/metrics_log.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/analysis/point_tuning.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/run_record.h"
#include "experiments/reports/run_rows.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The trial's training seconds at its evaluation of `step` (metrics.jsonl's `seconds`:
// the training clock, across resumes), or its whole wall time when it has none there.
double seconds_at(const std::string& run_dir, const TrialRow& r, std::int64_t step) {
  for (const MetricsLine& m : read_metrics_log(RunDir(run_dir).trial(r.id).metrics()).lines)
    if (m.step == step && m.value("seconds")) return *m.value("seconds");
  return r.summary.value("wall_seconds", 0.0);
}

// Replays `run` under `schedule`: the points whose choice changes, and the seconds saved.
void replay_schedule(const RunRows& run,
                     const std::map<std::map<std::string, std::string>, Tuning>& made,
                     const HalvingSchedule& schedule, ReplayedRun& out) {
  RunRows halved = run;
  halved.halving = schedule;
  const auto replayed = tune_points(halved);
  int changed = 0;
  double saved = 0;
  for (const auto& [point, tuning] : replayed) {
    changed += made.at(point).chosen != tuning.chosen;
    for (const TuningSetting& s : tuning.settings) {
      if (s.stopped_at == 0) continue;
      for (const TrialRow& r : run.rows)
        if (r.point == point && run.tuning_row(r) && r.tune_label == s.label)
          saved += r.summary.value("wall_seconds", 0.0) - seconds_at(run.dir, r, s.stopped_at);
    }
  }
  out.choices_changed.push_back(changed);
  out.tuning_seconds_saved.push_back(saved);
}

ReplayedRun replay_run(const std::string& dir, const std::string& name,
                       const std::vector<HalvingSchedule>& schedules) {
  ReplayedRun out;
  out.name = name;
  const RunSource source(dir);
  const RunRows run = read_run(source.run_dir());
  if (run.tune_keys.empty()) {
    out.skipped = "no [tune]";
    return out;
  }
  if (run.tune_seeds.empty()) {
    out.skipped = "[tune] without tune.seeds: every setting runs on the compared seeds";
    return out;
  }
  if (!source.origin().draw_plots && source.from_record()) {
    out.skipped = "no validation curves in its record";
    return out;
  }
  for (const TrialRow& r : run.rows) {
    const double seconds = r.summary.is_null() ? 0.0 : r.summary.value("wall_seconds", 0.0);
    out.all_seconds += seconds;
    if (run.tuning_row(r)) out.tuning_seconds += seconds;
  }
  const auto made = tune_points(run);
  out.points = int(made.size());
  for (const HalvingSchedule& s : schedules) replay_schedule(run, made, s, out);
  return out;
}

std::string percent(double part, double whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", whole > 0 ? 100.0 * part / whole : 0.0);
  return text;
}

}  // namespace

std::vector<ReplayedRun> replay_runs(const std::string& root,
                                     const std::vector<HalvingSchedule>& schedules) {
  std::vector<std::string> dirs;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    if (file == RunDir::kRecord || file == "trials.json")
      dirs.push_back(entry.path().parent_path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  std::vector<ReplayedRun> out;
  for (const std::string& dir : dirs) {
    std::string name = fs::relative(dir, root).string();
    out.push_back(replay_run(dir, name == "." ? dir : name, schedules));
  }
  return out;
}

std::string replay_markdown(const std::vector<ReplayedRun>& runs,
                            const std::vector<HalvingSchedule>& schedules) {
  std::ostringstream md;
  int replayed = 0, points = 0;
  double tuning = 0, all = 0;
  for (const ReplayedRun& r : runs)
    if (r.skipped.empty()) {
      ++replayed;
      points += r.points;
      tuning += r.tuning_seconds;
      all += r.all_seconds;
    }
  md << "| schedule | choices changed (of " << points << " points in " << replayed
     << " runs) | verdicts changed | tuning CPU saved | of all CPU |\n|---|---|---|---|---|\n";
  for (std::size_t s = 0; s < schedules.size(); ++s) {
    int changed = 0;
    double saved = 0;
    for (const ReplayedRun& r : runs)
      if (r.skipped.empty()) {
        changed += r.choices_changed[s];
        saved += r.tuning_seconds_saved[s];
      }
    md << "| " << halving_text(schedules[s]) << " | " << changed << " | "
       << (changed == 0 ? std::string("0")
                        : "unknown: " + std::to_string(changed) + " rest on trials not run")
       << " | " << percent(saved, tuning) << " | " << percent(saved, all) << " |\n";
  }
  md << "\n| run | points | choices changed, by schedule | tuning CPU saved, by schedule |\n"
        "|---|---|---|---|\n";
  for (const ReplayedRun& r : runs) {
    md << "| " << r.name << " | ";
    if (!r.skipped.empty()) {
      md << "not replayed: " << r.skipped << " | | |\n";
      continue;
    }
    md << r.points << " |";
    for (std::size_t s = 0; s < schedules.size(); ++s)
      md << (s ? ", " : " ") << r.choices_changed[s];
    md << " |";
    for (std::size_t s = 0; s < schedules.size(); ++s)
      md << (s ? ", " : " ") << percent(r.tuning_seconds_saved[s], r.tuning_seconds);
    md << " |\n";
  }
  return md.str();
}

}  // namespace ablate::experiments
