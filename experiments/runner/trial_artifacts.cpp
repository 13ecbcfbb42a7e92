#include "experiments/runner/trial_artifacts.h"

#include <nlohmann/json.hpp>

#include "experiments/io/atomic_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/runner/lm_samples.h"
#include "experiments/runner/predictions.h"
#include "nn/checkpoint.h"

namespace ablate::experiments {

namespace {

using json = nlohmann::json;

constexpr std::int64_t kSampleTokens = 200;  // tokens generated after each prompt (language models)

// The attention weights of every attention module on the first validation example.
json attention_maps(const Task& task, TrialModel& model) {
  std::vector<Seq2SeqBatch> validation = task.evaluation_batches(Split::validation, 1);
  if (validation.empty()) return json::object();
  const Seq2SeqBatch& b = validation.front();
  auto modules = nn::attention_modules(*model.module);
  for (auto& [name, m] : modules) m->capture_attention(true);
  model.module->eval();
  const StreamBatch stream =
      model.decoder_only ? make_stream_batch(b, model.stream) : StreamBatch{};
  {
    NoGradGuard no_grad;
    if (model.decoder_only)
      model.decoder_only->forward(stream.input);
    else
      model.seq2seq->forward(b.src, b.tgt_in);
    Tape::current().reset();
  }
  model.module->train();
  auto text = [&](std::int32_t id, bool target) -> std::string {
    return id == kBos   ? "<s>"
           : id == kEos ? "</s>"
           : id == kPad ? "<pad>"
                        : task.detokenize(&id, 1, target);
  };
  auto tokens = [&](const Tensor& ids, bool target) {
    json out = json::array();
    for (std::int64_t i = 0; i < ids.numel(); ++i)
      out.push_back(text(std::int32_t(ids.at(i)), target));
    return out;
  };
  json j{{"modules", json::array()}};
  if (model.decoder_only) {  // one stream: source (in stream ids), <s>, target
    json out = json::array();
    for (std::int64_t i = 0; i < stream.input.numel(); ++i) {
      const bool target = i >= stream.target_start[0];
      const std::int32_t id = std::int32_t(stream.input.at(i));
      out.push_back(text(target ? id : model.stream.source_id(id), target));
    }
    j["stream"] = out;
  } else {
    j["source"] = tokens(b.src, false);
    j["target_in"] = tokens(b.tgt_in, true);
  }
  for (auto& [name, m] : modules) {
    const Tensor& a = m->captured_attention();  // [1, H, Tq, Tk]
    m->capture_attention(false);
    std::int64_t H = a.shape()[1], Tq = a.shape()[2], Tk = a.shape()[3];
    json heads = json::array();
    for (std::int64_t h = 0; h < H; ++h) {
      json rows = json::array();
      for (std::int64_t i = 0; i < Tq; ++i) {
        json row = json::array();
        for (std::int64_t k = 0; k < Tk; ++k) row.push_back(a.at((h * Tq + i) * Tk + k));
        rows.push_back(row);
      }
      heads.push_back(rows);
    }
    bool cross = name.find("multihead_attn") != std::string::npos;
    bool decoder = name.rfind("decoder", 0) == 0;
    const char* queries = model.decoder_only ? "stream" : decoder ? "target_in" : "source";
    const char* keys = model.decoder_only ? "stream" : decoder && !cross ? "target_in" : "source";
    j["modules"].push_back(
        {{"name", name}, {"queries", queries}, {"keys", keys}, {"weights", heads}});
  }
  return j;
}

// forecasts.json: a few test windows with the lookback, truth and forecast of each
// target series, for report.html's forecast vs truth.
json forecasts_json(const Evaluator& evaluator) {
  json windows = json::array();
  for (const Evaluator::ForecastExample& e : evaluator.test_forecasts())
    windows.push_back({{"window", e.window},
                       {"history", e.history},
                       {"truth", e.truth},
                       {"forecast", e.forecast}});
  return {{"units", "model"}, {"windows", windows}};
}

}  // namespace

void write_trial_artifacts(const Trial& trial, const std::string& dir, const Task& task,
                           TrialModel& model, const Evaluator& evaluator, const TrialOutcome& out) {
  const TrialConfig& c = trial.config;
  const TrialDir files(dir);
  if (out.tested && model.sequence_model())
    write_file_atomically(files.predictions(), predictions_tsv(task, evaluator.test_predictions()));
  if (out.tested && !evaluator.test_forecasts().empty())
    write_file_atomically(files.forecasts(), forecasts_json(evaluator).dump() + "\n");
  if (out.tested && model.lm)
    write_file_atomically(files.samples(), samples_text(generate_samples(
                                               *model.lm, task, c.trial_seed, kSampleTokens)));
  if (model.sequence_model())
    write_file_atomically(files.attention(), attention_maps(task, model).dump() + "\n");
  if (c.train.checkpoint)  // the selected model (its optimizer state is gone)
    nn::save_checkpoint(*model.module, files.checkpoint(),
                        {{"config", trial.config_toml},
                         {"step", std::to_string(out.best.step)},
                         {"selected_by", "validation loss"}});
}

}  // namespace ablate::experiments
