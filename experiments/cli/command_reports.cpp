// `ablate report` and `ablate compare`.
#include <filesystem>
#include <iostream>
#include <string>

#include "experiments/config/experiment.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/compare_runs.h"
#include "experiments/reports/record_reports.h"
#include "experiments/reports/report.h"
#include "experiments/reports/run_record.h"
#include "experiments/study/study_json.h"
#include "experiments/study/study_rebuild.h"

#include "experiments/cli/commands.h"

namespace ablate::experiments::cli {

int report(const std::vector<std::string>& args) {
  std::string dir, from_results;
  po::options_description desc;
  desc.add_options()("dir", po::value(&dir))(
      "from-results", po::value(&from_results)->value_name("FILE"),
      "first derive DIR/record.jsonl from DIR/results.csv and the experiment file FILE it "
      "was run from (a "
      "results folder kept without its run directory; see experiments/studies/results/README.md)");
  po::variables_map vm;
  if (!parse(args, desc, vm, "report", "dir")) return 0;
  if (!std::filesystem::is_directory(dir)) throw po::error("no such run directory: " + dir);
  const RunDir run(dir);
  const bool run_directory = std::filesystem::exists(run.trial_index());
  if (!from_results.empty()) {
    if (run_directory)
      throw po::error("--from-results: " + dir +
                      " is a run directory (it has trials.json): its record is written "
                      "from the trials themselves");
    derive_run_record(dir, load_experiment(from_results, LoadOptions{}));
  }
  if (!run_directory && !std::filesystem::exists(run.record()))
    throw std::invalid_argument(
        dir +
        ": neither a run directory (no trials.json; run `ablate run` first) nor a "
        "results folder (no record.jsonl; see --from-results)");
  // A study's values, checked before any report is written (study.md is rebuilt from them).
  const std::string study_json = dir + "/study.json";
  const bool study = std::filesystem::exists(study_json);
  const nlohmann::json study_values = study ? read_study_json(study_json) : nlohmann::json();
  ReportSummary r = run_directory ? write_reports(dir) : rebuild_reports_from_record(dir);
  if (study) rebuild_study(dir, study_values);
  std::cout << dir << ": " << r.finished << " of " << r.expected << " trials finished";
  if (r.failed) std::cout << ", " << r.failed << " failed";
  if (r.missing) std::cout << ", " << r.missing << " missing";
  std::cout << (run_directory ? "" : " (rebuilt from " + run.record() + ")");
  std::cout << "\n  table:   " << run.summary_table() << "\n  results: " << run.results()
            << "\n  compared: " << run.comparisons() << "\n  page:    " << run.report_html()
            << "  (open in a browser)\n";
  if (study) std::cout << "  study:   " << dir << "/study.md\n";
  for (const std::string& id : r.missing_ids) std::cout << "  missing: " << id << "\n";
  return r.failed ? 1 : 0;
}

int compare(const std::vector<std::string>& args) {
  CompareOptions o;
  double margin = 0;
  po::options_description desc;
  desc.add_options()("dirs", po::value(&o.run_dirs)->multitoken())(
      "baseline", po::value(&o.baseline)->value_name("POINT_ID"),
      "point_id (or a unique prefix) of the point every other is compared with; default: the first "
      "run's baseline")("metric", po::value(&o.metric)->value_name("M"),
                        "the test metric of the table (default: the first run's)")(
      "equivalence-margin", po::value(&margin)->value_name("δ"),
      "equivalence margin δ of the metric (default: the first run's)")(
      "out", po::value(&o.out_dir)->default_value("comparison")->value_name("DIR"),
      "directory for comparisons.csv and comparisons.md");
  po::variables_map vm;
  if (!parse(args, desc, vm, "compare", nullptr, "dirs")) return 0;
  if (vm.count("equivalence-margin")) {
    if (!(margin > 0)) throw po::error("--equivalence-margin must be > 0");
    o.equivalence_margin = margin;
  }
  const Comparison comparison = compare_runs(o);
  for (const std::string& difference : comparison.provenance_differences)
    std::cerr << "ablate compare: warning: " << difference << "\n";
  std::cout << comparison.markdown;
  std::cout << "\n  table:   " << o.out_dir << "/comparisons.md\n  data:    " << o.out_dir
            << "/comparisons.csv\n  page:    " << o.out_dir << "/" << RunDir::kReportHtml
            << "  (open in a browser)\n";
  return 0;
}

}  // namespace ablate::experiments::cli
