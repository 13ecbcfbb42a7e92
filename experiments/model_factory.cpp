#include "experiments/model_factory.h"

#include <algorithm>

namespace ablate::experiments {

std::string check_model_fits_task(TrialConfig& c, const Task& task, std::string* key) {
  nn::TransformerConfig& t = c.model.transformer;
  bool forecast = task.family() == TaskFamily::forecast;
  if (c.model.kind == "auto") c.model.kind = forecast ? "encoder_regressor" : "seq2seq";
  if (forecast != (c.model.kind == "encoder_regressor")) {
    *key = "model.kind";
    return "model '" + c.model.kind + "' does not fit task '" + c.task.kind + "' (" +
           (forecast ? "forecasting needs encoder_regressor" : "sequence tasks need seq2seq") + ")";
  }
  std::int64_t longest = forecast ? task.lookback()
                                  : std::max(task.max_source_length(), task.max_target_length());
  if (t.max_len == 0) t.max_len = longest;
  if (t.max_len < longest) {
    *key = "model.max_len";
    return "max_len = " + std::to_string(t.max_len) + " is shorter than the task's longest sequence (" +
           std::to_string(longest) + ")";
  }
  if ((t.attention.d_k == 0 || t.attention.d_v == 0) && t.d_model % t.heads != 0) {
    *key = "model.heads";
    return "d_model = " + std::to_string(t.d_model) + " is not divisible by heads = " + std::to_string(t.heads);
  }
  if (t.positions.kind == "learned" && t.positions.options.get_int("max_len") < longest) {
    *key = "model.positions.max_len";
    return "learned positions have max_len = " + std::to_string(t.positions.options.get_int("max_len")) +
           " rows, shorter than the task's longest sequence (" + std::to_string(longest) + ")";
  }
  if (c.model.share_embeddings && task.source_vocab() != task.target_vocab()) {
    *key = "model.share_embeddings";
    return "sharing embeddings needs equal source and target vocabularies (" +
           std::to_string(task.source_vocab()) + " vs " + std::to_string(task.target_vocab()) + ")";
  }
  try {
    build_model(c, task);  // the remaining constraints live in the modules' constructors
  } catch (const std::exception& e) {
    *key = "model";
    return e.what();
  }
  return "";
}

TrialModel build_model(const TrialConfig& c, const Task& task) {
  TrialModel m;
  nn::TransformerConfig transformer = c.model.transformer;
  transformer.attention.telemetry = c.train.attention_telemetry;
  if (c.model.kind == "encoder_regressor") {
    auto r = std::make_unique<nn::EncoderRegressor>(transformer, task.series(), task.horizon(),
                                                    task.series(), c.seed);
    m.regressor = r.get();
    m.module = std::move(r);
  } else {
    nn::VocabularyOptions v;
    v.source_vocab = task.source_vocab();
    v.target_vocab = task.target_vocab();
    v.pad = kPad;
    v.bos = kBos;
    v.eos = kEos;
    v.share_embeddings = c.model.share_embeddings;
    v.tie_output = c.model.tie_output;
    auto s = std::make_unique<nn::Seq2SeqTransformer>(transformer, v, c.seed);
    m.seq2seq = s.get();
    m.module = std::move(s);
  }
  return m;
}

}  // namespace ablate::experiments
