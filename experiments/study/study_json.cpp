#include "experiments/study/study_json.h"

#include <stdexcept>

#include "experiments/io/json_file.h"
#include "experiments/io/json_shape.h"

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

json mean_std() {
  return {{"mean", "number"}, {"std", "number"}};
}

json gradient() {
  return {{"grad", json::array({"number"})},
          {"max_abs", "number"},
          {"min_abs", "number"},
          {"ratio", "number"}};
}

// A test metric of a training point (study_report.cpp's training_summary()).
json test_metric() {
  return {{"n", "integer"},      {"mean", "number"},         {"ci_low", "number"},
          {"ci_high", "number"}, {"verdict", "string"},      {"identical_to_baseline?", "boolean"},
          {"diff?", "number"},   {"diff_ci_low?", "number"}, {"diff_ci_high?", "number"}};
}

// What study_report.cpp and study_training_section.cpp read, key by key.
json study_shape() {
  const json literal{
      {"softmax_ones_10", json::array({"number", 10})},
      {"softmax_ones_10000", {{"first", "number"}, {"last", "number"}}},
      {"loss_10_7_5", "number"},
      {"grad_10_7_5", gradient()},
      {"grad_1_to_20",
       {{"1", gradient()}, {"sqrt20", gradient()}, {"1000", gradient()}, {"1e6", gradient()}}}};
  const json corrected_row{{"logits", "string"},
                           {"divisor", "string"},
                           {"divisor_value", "number"},
                           {"target", "integer"},
                           {"grad", json::array({"number"})},
                           {"ratio", "number"},
                           {"max_prob", "number"},
                           {"entropy", "number"}};
  const json attention_row{{"d_k", "integer"},
                           {"scale", "string"},
                           {"expected_var_scores", "number"},
                           {"var_scores", mean_std()},
                           {"mean_max_prob", mean_std()},
                           {"mean_entropy_nats", mean_std()},
                           {"grad_scores_fro", mean_std()},
                           {"mean_softmax_jacobian_fro", mean_std()}};
  const json point{{"model.d_model?", "string"},
                   {"model.heads?", "string"},
                   {"model.attention.scale?", "string"}};
  const json training_row{{"point", point},
                          {"tuned?", "string"},
                          {"tuned_at_grid_edge?", "boolean"},
                          {"attention_max_prob", mean_std()},
                          {"attention_entropy_nats", mean_std()},
                          {"test_loss?", test_metric()},
                          {"test_sequence_accuracy?", test_metric()}};
  return {{"name?", "string"},
          {"description?", "string"},
          {"literal?", literal},
          {"corrected?", json::array({corrected_row})},
          {"attention?", json::array({attention_row})},
          {"training?", json::array({training_row})}};
}

bool positive_integer_text(const std::string& s) {
  return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos &&
         s != std::string(s.size(), '0');
}

// What a shape cannot say: d_model and heads are counts (study.md divides one by the
// other), and a difference comes with its interval and verdict.
void check_training(const json& training, const std::string& path) {
  for (std::size_t i = 0; i < training.size(); ++i) {
    const std::string at = path + ": field training[" + std::to_string(i) + "]";
    for (const char* key : {"model.d_model", "model.heads"})
      if (training[i]["point"].contains(key) &&
          !positive_integer_text(training[i]["point"][key].get<std::string>()))
        throw std::invalid_argument(at + ".point." + key +
                                    ": must be a positive integer (as text)");
    for (const char* metric : {"test_loss", "test_sequence_accuracy"})
      if (training[i].contains(metric) && training[i][metric].contains("diff"))
        for (const char* key : {"diff_ci_low", "diff_ci_high"})
          if (!training[i][metric].contains(key))
            throw std::invalid_argument(at + "." + metric + "." + key +
                                        ": missing (diff is given)");
  }
}

}  // namespace

json read_study_json(const std::string& path) {
  json study;
  try {
    study = read_json_file(path);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  check_json_shape(study, study_shape(), path);
  if (study.contains("training")) check_training(study["training"], path);
  return study;
}

}  // namespace ablate::experiments
