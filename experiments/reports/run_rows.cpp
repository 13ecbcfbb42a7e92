#include "experiments/reports/run_rows.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include "experiments/analysis/successive_halving.h"
#include "experiments/config/report_spec.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"

namespace ablate::experiments {

namespace fs = std::filesystem;

using json = nlohmann::json;

std::string summary_value_text(const json& v) {
  if (v.is_number()) {
    std::ostringstream s;
    s << std::setprecision(6) << v.get<double>();
    return s.str();
  }
  if (v.is_string()) return v.get<std::string>();
  return "";
}

namespace {

// The task's test metrics, each followed by its per-length (<m>_len<L>, symbolic
// tasks with test lengths of their own) or per-context (<m>_ctx<L>, language models)
// variants that the finished trials' summaries hold, in order of L.
std::vector<std::string> with_by_length_metrics(const std::vector<std::string>& base,
                                                const std::vector<TrialRow>& rows) {
  std::map<std::string, std::map<std::int64_t, std::string>> found;  // base → L → key
  for (const TrialRow& r : rows) {
    if (r.summary.is_null() || !r.summary.contains("test")) continue;
    const json& test = r.summary["test"];
    for (auto it = test.begin(); it != test.end(); ++it)
      for (const std::string& m : base)
        for (const char* kind : {"_len", "_ctx"}) {
          const std::string prefix = m + kind;
          const std::string& key = it.key();
          if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
              key.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
            found[m][std::stoll(key.substr(prefix.size()))] = key;
        }
  }
  std::vector<std::string> out;
  for (const std::string& m : base) {
    out.push_back(m);
    for (const auto& [length, key] : found[m]) out.push_back(key);
  }
  return out;
}

// The row of an entry of trials.json, with the trial's summary.json (null when
// missing or unreadable), counted in `report`.
TrialRow read_row(const std::string& run_dir, const json& t, ReportSummary& report) {
  TrialRow r;
  r.id = t["id"];
  r.point_id = t.value("point_id", "");
  r.data_id = t.value("data_id", "");
  r.seed = t["seed"];
  r.label = t.value("label", "");
  for (auto& [k, v] : t["point"].items()) r.point[k] = v.get<std::string>();
  const json tune = t.value("tune", json::object());
  for (auto& [k, v] : tune.items()) r.tune[k] = v.get<std::string>();
  r.tune_label = t.value("tune_label", "");
  std::string summary_path = RunDir(run_dir).trial(r.id).summary();
  ++report.expected;
  if (fs::exists(summary_path)) {
    try {
      r.summary = read_json_file(summary_path);
    } catch (const std::exception&) {
      r.summary = nullptr;
    }
  }
  if (r.summary.is_null()) {
    ++report.missing;
    report.missing_ids.push_back(r.id);
  } else if (r.summary.value("status", "") == "failed") {
    ++report.failed;
  } else {
    ++report.finished;
  }
  return r;
}

}  // namespace

RunRows read_run(const std::string& run_dir) {
  RunRows run;
  run.dir = run_dir;
  std::string index_path = RunDir(run_dir).trial_index();
  if (!fs::exists(index_path))
    throw std::runtime_error(run_dir +
                             ": not a run directory (no trials.json; run `ablate run` first)");
  return read_run(run_dir, read_json_file(index_path));
}

RunRows read_run(const std::string& run_dir, nlohmann::json index_json) {
  RunRows run;
  run.dir = run_dir;
  run.index = std::move(index_json);
  json& index = run.index;
  run.keys = index["swept_keys"].get<std::vector<std::string>>();
  run.tune_keys = index.value("tune_keys", std::vector<std::string>{});
  if (index.contains("tuning"))
    run.tune_seeds = index["tuning"].value("seeds", std::set<std::uint64_t>{});
  run.halving = halving_of_index(index);
  run.forecast = index.value("family", "seq2seq") == "forecast";
  // Runs written before trials.json named the task: the family's metrics.
  run.task = index.value("task", std::string(run.forecast ? "forecast" : ""));
  for (const std::string& m : test_metrics(run.task))
    if (m != "loss") run.metrics.push_back(m);
  run.primary = run.metrics.front();
  run.higher_is_better = higher_is_better(run.primary);
  for (const json& t : index["trials"]) run.rows.push_back(read_row(run_dir, t, run.report));
  run.test_metrics = with_by_length_metrics(test_metrics(run.task), run.rows);
  return run;
}

}  // namespace ablate::experiments
