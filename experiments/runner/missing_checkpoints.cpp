#include "experiments/runner/missing_checkpoints.h"

#include <filesystem>
#include <sstream>

#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/records/trial_summary.h"

namespace ablate::experiments {

namespace {

std::optional<TrialSummary> summary_of(const std::string& dir) {
  try {
    return trial_summary_from_json(read_json_file(TrialDir(dir).summary()));
  } catch (const std::exception&) {
    return std::nullopt;  // none or unreadable: the trial is not finished
  }
}

std::string number(double x) {
  std::ostringstream out;
  out.precision(17);
  out << x;
  return out.str();
}

}  // namespace

std::optional<std::map<std::string, double>> finished_without_checkpoint(const Trial& trial,
                                                                         const std::string& dir) {
  if (!trial.config.train.checkpoint || std::filesystem::exists(TrialDir(dir).checkpoint()))
    return std::nullopt;
  const std::optional<TrialSummary> s = summary_of(dir);
  if (!s || s->status != "ok") return std::nullopt;
  return s->test ? s->test->metrics : std::map<std::string, double>{};
}

std::string retrained_metrics_difference(const Trial& trial, const std::string& dir,
                                         const std::map<std::string, double>& recorded) {
  const std::optional<TrialSummary> s = summary_of(dir);
  const std::string who = "trial " + trial.id + " (" + trial.seeded_label() + ")";
  if (!s || s->status != "ok")
    return who + ": trained again to write its checkpoint, it ended " +
           (s ? "'" + s->status + "'" : std::string("without a summary")) +
           " where the recorded training was ok";
  const std::map<std::string, double> now =
      s->test ? s->test->metrics : std::map<std::string, double>{};
  if (now == recorded) return "";
  std::string changed;
  for (const auto& [metric, before] : recorded) {
    auto after = now.find(metric);
    if (after != now.end() && after->second == before) continue;
    changed += (changed.empty() ? "" : ", ") + metric + " " + number(before) + " -> " +
               (after == now.end() ? std::string("(none)") : number(after->second));
  }
  for (const auto& [metric, after] : now)
    if (!recorded.count(metric))
      changed += (changed.empty() ? "" : ", ") + metric + " (none) -> " + number(after);
  return who +
         ": WARNING: trained again to write its checkpoint, its test metrics differ from "
         "the recorded ones (" +
         changed +
         "). Same config and seed should give the same bits: was the code, the build or "
         "the machine changed? summary.json and checkpoint.safetensors now hold the new "
         "training.";
}

std::string retraining_for_checkpoints_note(int count) {
  return std::to_string(count) + " finished trial" + (count == 1 ? "" : "s") +
         " without checkpoint.safetensors (train.checkpoint = true now): training " +
         (count == 1 ? "it" : "them") +
         " again to write it, with the same seed — the test metrics are checked against the "
         "recorded ones";
}

}  // namespace ablate::experiments
