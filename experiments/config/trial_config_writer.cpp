// TrialConfig → TOML, every value explicit (keys sorted by toml++), for config.toml and
// for the trial id.

#include "experiments/config/plain_keys.h"
#include "experiments/config/toml_writer.h"
#include "experiments/config/trial_config.h"
#include "experiments/tasks/task.h"

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

// The task's options, but those declared omit_at_default while at their default.
toml::table task_component(const TaskSpec& task) {
  toml::table t = component({task.kind, task.options});
  if (const auto* entry = task_registry().find(task.kind))
    for (const nn::OptionSpec& o : entry->options)
      if (o.omit_at_default && task.options.has(o.key) &&
          task.options.values().at(o.key) == o.default_value)
        t.erase(o.key);
  return t;
}

}  // namespace

toml::table to_toml(const TrialConfig& c) {
  const nn::TransformerConfig& m = c.model.transformer;
  toml::table task = task_component(c.task);
  for (const auto& [key, digest] : c.task.file_sha256)
    task.insert_or_assign(key + "_sha256", digest);
  // Components here; every plain key from its declaration (plain_keys.h).
  toml::table attention{{"qk", component(m.attention.qk)},
                        {"v", component(m.attention.v)},
                        {"scale", component(m.attention.scale)}};
  write_plain_keys(c, "model.attention", attention);
  toml::table norm = component(m.norm);
  write_plain_keys(c, "model.norm", norm);
  toml::table layers;
  write_plain_keys(c, "model.layers", layers);
  toml::table model{{"layers", layers},
                    {"attention", attention},
                    {"positions", component(m.positions)},
                    {"norm", norm},
                    {"ffn", component(m.ffn)}};
  write_plain_keys(c, "model", model);
  toml::table train{{"optimizer", component(c.train.optimizer)},
                    {"schedule", component(c.train.schedule)}};
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
