// TrialConfig → TOML, every value explicit (keys sorted by toml++), for config.toml and
// for the trial id.
#include <sstream>

#include "experiments/config/trial_config.h"
#include "experiments/config/toml_writer.h"

namespace ablate::experiments {

namespace {

void put_option(toml::table& t, const std::string& key, const nn::OptionValue& v) {
  std::visit([&](const auto& x) { t.insert_or_assign(key, x); }, v);
}

toml::table component(const nn::Component& c) {
  toml::table t;
  t.insert_or_assign("kind", c.kind);
  for (const auto& [k, v] : c.options.values()) put_option(t, k, v);
  return t;
}

}  // namespace

toml::table to_toml(const TrialConfig& c) {
  const nn::TransformerConfig& m = c.model.transformer;
  toml::table task = component({c.task.kind, c.task.options});
  for (const auto& [key, digest] : c.task.file_sha256) task.insert_or_assign(key + "_sha256", digest);
  toml::table attention{
      {"qk", component(m.attention.qk)},           {"v", component(m.attention.v)},
      {"scale", component(m.attention.scale)},     {"output_projection", m.attention.output_projection},
      {"d_k", m.attention.d_k},                    {"d_v", m.attention.d_v},
      {"dropout", m.attention.dropout}};
  toml::table norm = component(m.norm);
  norm.insert_or_assign("placement", m.placement);
  norm.insert_or_assign("final", m.final_norm);
  toml::table model{{"kind", c.model.kind},
                    {"d_model", m.d_model},
                    {"heads", m.heads},
                    {"d_ff", m.d_ff},
                    {"layers", toml::table{{"encoder", m.encoder_layers}, {"decoder", m.decoder_layers}}},
                    {"dropout", m.dropout},
                    {"bias", m.bias},
                    {"residual", m.residual},
                    {"scale_embeddings", m.scale_embeddings},
                    {"embedding_dropout", m.embedding_dropout},
                    {"spatial_embedding_dropout", m.spatial_embedding_dropout},
                    {"max_len", m.max_len},
                    {"share_embeddings", c.model.share_embeddings},
                    {"tie_output", c.model.tie_output},
                    {"attention", attention},
                    {"positions", component(m.positions)},
                    {"norm", norm},
                    {"ffn", component(m.ffn)}};
  const TrainSpec& s = c.train;
  toml::table train{{"steps", s.steps},
                    {"batch", s.batch},
                    {"lr", s.lr},
                    {"optimizer", component(s.optimizer)},
                    {"schedule", component(s.schedule)},
                    {"clip_grad_norm", s.clip_grad_norm},
                    {"eval_every", s.eval_every},
                    {"patience", s.patience},
                    {"label_smoothing", s.label_smoothing},
                    {"validation_batch", s.validation_batch},
                    {"decode_examples", s.decode_examples},
                    {"checkpoint", s.checkpoint},
                    {"attention_telemetry", s.attention_telemetry}};
  // Written only when set, so the resolved config (and the trial id hashed from it) of
  // every existing single-threaded trial stays the same.
  if (s.threads != 1) train.insert("threads", s.threads);
  toml::table doc{{"name", c.name},
                  {"seed", std::int64_t(c.data_seed)},
                  {"trial_seed", std::int64_t(c.seed)},
                  {"task", task},
                  {"model", model},
                  {"train", train}};
  // Written only when there are plugins, so trials without them keep their ids.
  if (!c.plugins.empty()) {
    toml::array paths, digests;
    for (const PluginRef& p : c.plugins) {
      paths.push_back(p.path);
      digests.push_back(p.sha256);
    }
    doc.insert("plugins", paths);
    doc.insert("plugins_sha256", digests);
  }
  return doc;
}

std::string to_toml_string(const TrialConfig& c) {
  return toml_document_text(to_toml(c));
}

}  // namespace ablate::experiments
