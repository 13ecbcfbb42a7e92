#pragma once
// A run directory as the analysis and the reports read it (reports/run_rows.h reads
// it): its trial index (trials.json) and every trial's summary.json, one row a trial.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "experiments/analysis/report_summary.h"
#include "experiments/config/halving_schedule.h"

namespace ablate::experiments {

// One trial of the index, with its summary.json.
struct TrialRow {
  std::string id, point_id, data_id, label, tune_label;
  std::uint64_t seed = 0;
  std::map<std::string, std::string> point, tune;
  nlohmann::json summary;  // null when missing
};

// summary[group][key] when both are there and it is a number, else nothing: a
// summary.json from elsewhere may lack either (and a const json's operator[] with a
// missing key is undefined behaviour: the summary_json fuzz target found one, 2026-12-06).
std::optional<double> summary_number(const nlohmann::json& summary, const std::string& group,
                                     const std::string& key);

// A run directory's trial index and every trial's summary (null when missing).
struct RunRows {
  std::string dir;
  nlohmann::json index;
  std::vector<std::string> keys, tune_keys, metrics;
  // tune.seeds of a two-stage [tune] (empty without): their trials choose each point's
  // setting, and only the other seeds' trials are compared.
  std::set<std::uint64_t> tune_seeds;
  bool tuning_row(const TrialRow& r) const { return tune_seeds.count(r.seed) > 0; }
  // [tune.halving] of a two-stage [tune]: the tuning stage ran in rungs.
  std::optional<HalvingSchedule> halving;
  std::string primary;
  bool higher_is_better = true;
  bool forecast = false;
  std::string task;                       // its kind: which metrics it has (test_metrics)
  std::vector<std::string> test_metrics;  // test_metrics(task) with the by-length ones found
  std::vector<TrialRow> rows;
  ReportSummary report;
};

}  // namespace ablate::experiments
