#include "experiments/study/study_rebuild.h"

#include "experiments/io/atomic_file.h"
#include "experiments/reports/run_record.h"
#include "experiments/study/study_report.h"

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

// The training summary of the trials, with the attention statistics of `kept` (the
// same point's entry of the study.json being rebuilt) where the trials lack them.
json refreshed_training(const std::string& dir, const json& kept) {
  const RunSource source(dir);
  json training = training_summary(source.run_dir());
  for (json& entry : training)
    for (const json& old : kept) {
      if (old["point"] != entry["point"]) continue;
      for (const char* key : {"attention_entropy_nats", "attention_max_prob"})
        if (entry[key].value("n", 0) == 0) entry[key] = old[key];
    }
  return training;
}

}  // namespace

void rebuild_study(const std::string& dir, json study) {
  if (study.contains("training")) study["training"] = refreshed_training(dir, study["training"]);
  write_file_atomically(dir + "/study.json", study.dump(2) + "\n");
  write_study_report(dir, study);
}

}  // namespace ablate::experiments
