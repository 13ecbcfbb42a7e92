#pragma once
// The layout of a run directory (<out>/<name>), each file's name declared once:
//   experiment.toml        the experiment file as run
//   trials.json            the trial index (reports/trial_index.h)
//   preregistration.json   the frozen claims, when the experiment has them
//   record.jsonl           the run's record (reports/run_record.h)
//   results.csv, comparisons.csv, claims.csv, summary.md, plots/   the reports
//   history/               earlier versions of experiment.toml and trials.json
//   .lock, .lock.shard-<k>-of-<n>   held while a run (or a shard of it) writes here
//   trials/<id>/           one trial's directory (TrialDir, runner/trial_runner.h):
//     config.toml, metrics.jsonl, summary.json, checkpoint.safetensors,
//     resume.safetensors, attention.json, samples.txt, predictions.tsv
// Paths are strings: the directory's path joined with "/" and the file's name.
#include <string>
#include <utility>

namespace ablate::experiments {

class TrialDir {
 public:
  static constexpr const char* kConfig = "config.toml";
  static constexpr const char* kMetrics = "metrics.jsonl";
  static constexpr const char* kSummary = "summary.json";
  static constexpr const char* kCheckpoint = "checkpoint.safetensors";
  static constexpr const char* kResumeState = "resume.safetensors";
  static constexpr const char* kAttention = "attention.json";
  static constexpr const char* kSamples = "samples.txt";
  static constexpr const char* kPredictions = "predictions.tsv";
  static constexpr const char* kForecasts = "forecasts.json";

  explicit TrialDir(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  // A file of this directory by name (e.g. one an MPI worker sent).
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  std::string config() const { return file(kConfig); }
  std::string metrics() const { return file(kMetrics); }
  std::string summary() const { return file(kSummary); }
  std::string checkpoint() const { return file(kCheckpoint); }
  std::string resume_state() const { return file(kResumeState); }
  std::string attention() const { return file(kAttention); }
  std::string samples() const { return file(kSamples); }
  std::string predictions() const { return file(kPredictions); }
  std::string forecasts() const { return file(kForecasts); }

 private:
  std::string path_;
};

class RunDir {
 public:
  static constexpr const char* kExperiment = "experiment.toml";
  static constexpr const char* kTrialIndex = "trials.json";
  static constexpr const char* kPreregistration = "preregistration.json";
  static constexpr const char* kRecord = "record.jsonl";
  static constexpr const char* kResults = "results.csv";
  static constexpr const char* kComparisons = "comparisons.csv";
  static constexpr const char* kClaims = "claims.csv";
  static constexpr const char* kSummaryTable = "summary.md";
  static constexpr const char* kReportHtml = "report.html";
  static constexpr const char* kPlots = "plots";
  static constexpr const char* kHistory = "history";
  static constexpr const char* kTrials = "trials";
  static constexpr const char* kLock = ".lock";

  explicit RunDir(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  std::string experiment() const { return file(kExperiment); }
  std::string trial_index() const { return file(kTrialIndex); }
  std::string preregistration() const { return file(kPreregistration); }
  std::string record() const { return file(kRecord); }
  std::string results() const { return file(kResults); }
  std::string comparisons() const { return file(kComparisons); }
  std::string claims() const { return file(kClaims); }
  std::string summary_table() const { return file(kSummaryTable); }
  std::string report_html() const { return file(kReportHtml); }
  std::string plots() const { return file(kPlots); }
  std::string history() const { return file(kHistory); }
  std::string trials() const { return file(kTrials); }
  std::string lock() const { return file(kLock); }
  // The lock of shard k of n (runner/run_lock.h).
  std::string shard_lock(int shard, int shards) const;
  // The n-th earlier version (from 1) of experiment.toml and of trials.json, in history/.
  std::string earlier_experiment(int n) const { return earlier("experiment", n, ".toml"); }
  std::string earlier_trial_index(int n) const { return earlier("trials", n, ".json"); }

  TrialDir trial(const std::string& id) const { return TrialDir(trials() + "/" + id); }

 private:
  std::string earlier(const char* stem, int n, const char* extension) const;
  std::string path_;
};

}  // namespace ablate::experiments
