// TrialConfig → TOML, every value explicit (keys sorted by toml++), for config.toml and
// for the trial id — except options declared omit_at_default while at their default
// (nn/options.h), so that adding an option keeps the ids of trials that do not use it.

#include "experiments/config/plain_keys.h"
#include "experiments/config/toml_writer.h"
#include "experiments/config/trial_config.h"
#include "experiments/tasks/task.h"
#include "nn/attention/query_key.h"
#include "nn/attention/score_scale.h"
#include "nn/attention/value.h"
#include "nn/feed_forward.h"
#include "nn/norms/norm.h"
#include "nn/optim/optimizer.h"
#include "nn/optim/schedule.h"
#include "nn/positions/position_encoding.h"

namespace ablate::experiments {

namespace {

void put_option(toml::table& t, const std::string& key, const nn::OptionValue& v) {
  std::visit([&](const auto& x) { t.insert_or_assign(key, x); }, v);
}

// The component's kind and options, but those its registry entry declares omit_at_default
// while at their default.
template <class Registry>
toml::table component(const nn::Component& c, const Registry& registry) {
  toml::table t;
  t.insert_or_assign("kind", c.kind);
  for (const auto& [k, v] : c.options.values()) put_option(t, k, v);
  if (const auto* entry = registry.find(c.kind))
    for (const nn::OptionSpec& o : entry->options)
      if (o.omit_at_default && c.options.has(o.key) &&
          c.options.values().at(o.key) == o.default_value)
        t.erase(o.key);
  return t;
}

}  // namespace

toml::table to_toml(const TrialConfig& c) {
  const nn::TransformerConfig& m = c.model.transformer;
  toml::table task = component({c.task.kind, c.task.options}, task_registry());
  for (const auto& [key, digest] : c.task.file_sha256)
    task.insert_or_assign(key + "_sha256", digest);
  // Components here; every plain key from its declaration (plain_keys.h).
  toml::table attention{{"qk", component(m.attention.qk, nn::query_key_registry())},
                        {"v", component(m.attention.v, nn::value_registry())},
                        {"scale", component(m.attention.scale, nn::score_scale_registry())}};
  write_plain_keys(c, "model.attention", attention);
  toml::table norm = component(m.norm, nn::norm_registry());
  write_plain_keys(c, "model.norm", norm);
  toml::table layers;
  write_plain_keys(c, "model.layers", layers);
  toml::table model{{"layers", layers},
                    {"attention", attention},
                    {"positions", component(m.positions, nn::position_registry())},
                    {"norm", norm},
                    {"ffn", component(m.ffn, nn::feed_forward_registry())}};
  write_plain_keys(c, "model", model);
  toml::table train{{"optimizer", component(c.train.optimizer, nn::optimizer_registry())},
                    {"schedule", component(c.train.schedule, nn::schedule_registry())}};
  write_plain_keys(c, "train", train);
  toml::table doc{{"name", c.name}, {"task", task}, {"model", model}, {"train", train}};
  write_plain_keys(c, "", doc);
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
