#include "experiments/reports/lm_samples_report.h"

#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/run_points.h"

namespace ablate::experiments {

std::string lm_samples_section(const std::string& run_dir, const RunPoints& run) {
  const nlohmann::json index = read_json_file(RunDir(run_dir).trial_index());
  std::string out;
  for (const PointResults& p : run.points) {
    std::string best_path;
    std::uint64_t best_seed = std::numeric_limits<std::uint64_t>::max();
    for (const TrialRef& t : chosen_trials(index, p)) {
      const std::string path = RunDir(run_dir).trial(t.id).samples();
      if (t.seed < best_seed && std::filesystem::exists(path)) best_seed = t.seed, best_path = path;
    }
    if (best_path.empty()) continue;
    out += "### " + (p.label.empty() ? std::string("samples") : p.label) + " (seed " +
           std::to_string(best_seed) + ")\n\n```text\n" + read_file(best_path) + "```\n\n";
  }
  if (out.empty()) return "";
  return "## Samples\n\nText each point's model generated after the beginnings of test documents "
         "(sampled at "
         "temperature 1 from its distribution, 200 tokens; samples.txt in the trial's "
         "directory).\n\n" +
         out;
}

}  // namespace ablate::experiments
