#include "experiments/config/plain_keys.h"

#include "experiments/config/declared_key.h"
#include "experiments/config/setting_keys.h"
#include "experiments/config/toml_writer.h"
#include "experiments/tasks/task.h"
#include "nn/registry_listing.h"
#include "nn/transformer/transformer_models.h"

#include <cmath>
#include <limits>
#include <set>
#include <type_traits>
#include <utility>

namespace ablate::experiments {

namespace {

constexpr double kMaxInt = kMaxDeclaredInt;

// The TrialConfig field a key sets, as a function returning a reference to it.
// clang-format off
#define FIELD(member) [](TrialConfig& c) -> auto& { return c.member; }
// clang-format on

template <class T>
nn::OptionValue to_option(const T& v) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::string>)
    return v;
  else
    return std::int64_t(v);  // every integer field (seeds are unsigned)
}

template <class T>
T from_option(const nn::OptionValue& v) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::string>)
    return std::get<T>(v);
  else
    return T(std::get<std::int64_t>(v));
}

template <class Field>
PlainKey key(std::string table, nn::OptionSpec spec, Field field,
             InIdentity identity = InIdentity::always, nn::OptionValue neutral = {}) {
  using T = std::remove_cvref_t<decltype(field(std::declval<TrialConfig&>()))>;
  PlainKey k{std::move(table), std::move(spec), identity, std::move(neutral), {}, {}};
  k.get = [field](const TrialConfig& c) {
    return to_option<T>(field(const_cast<TrialConfig&>(c)));
  };
  k.set = [field](TrialConfig& c, const nn::OptionValue& v) { field(c) = from_option<T>(v); };
  return k;
}

using I = std::int64_t;
constexpr InIdentity never = InIdentity::never, unless_neutral = InIdentity::unless_neutral;

// The top level (`name` is required and read on its own; `plugins` by load_experiment).
std::vector<PlainKey> top_level_keys() {
  return {
      key("", {"description", std::string(), "one sentence: the question the experiment answers"},
          FIELD(description), never),
      key("",
          {"seed", I(0), "data seed: task data and the held-out splits (shared by every trial)",
           0.0, kMaxInt},
          FIELD(data_seed)),
      key("",
          {"trial_seed", I(0),
           "one trial's own seed: initialisation, dropout, batches (sweeps use sweep.seeds)", 0.0,
           kMaxInt},
          FIELD(trial_seed)),
  };
}

// [model] (besides its components: attention, positions, norm, ...).
std::vector<PlainKey> model_keys() {
  return {
      key("model",
          {"kind",
           std::string("auto"),
           "auto: seq2seq for sequence tasks, encoder_regressor for forecasting, decoder "
           "(decoder-only, causal) for language modelling; decoder also fits sequence tasks "
           "(source, separator and target as one stream, tasks/README.md)",
           std::nullopt,
           std::nullopt,
           {"auto", "seq2seq", "encoder_regressor", "decoder"}},
          FIELD(model.kind)),
      key("model", {"d_model", I(64), "model width", 1.0, 65536.0},
          FIELD(model.transformer.d_model)),
      key("model",
          {"heads", I(4), "attention heads; must divide d_model unless d_k and d_v are set", 1.0,
           1024.0},
          FIELD(model.transformer.heads)),
      key("model",
          {"d_ff", I(0), "feed-forward inner width; 0 = 4 · d_model", 0.0, double(1 << 20)},
          FIELD(model.transformer.d_ff)),
      key("model",
          {"dropout", 0.0, "after attention and feed-forward, before the residual add", 0.0,
           nn::TransformerLimits::max_dropout},
          FIELD(model.transformer.dropout)),
      key("model", {"bias", true, "projections carry biases"}, FIELD(model.transformer.bias)),
      key("model", {"residual", true, "residual connections"}, FIELD(model.transformer.residual)),
      key("model", {"scale_embeddings", true, "embeddings × sqrt(d_model)"},
          FIELD(model.transformer.scale_embeddings)),
      key("model",
          {"embedding_dropout", 0.0, "on embeddings + positions", 0.0,
           nn::TransformerLimits::max_dropout},
          FIELD(model.transformer.embedding_dropout)),
      key("model",
          {"spatial_embedding_dropout", false, "embedding dropout drops whole feature channels"},
          FIELD(model.transformer.spatial_embedding_dropout)),
      key("model",
          {"max_len", I(0),
           "longest sequence; 0 = the task's longest (a decoder-only model on a sequence task: its "
           "longest stream)",
           0.0, double(1 << 24)},
          FIELD(model.transformer.max_len)),
      key("model",
          {"share_embeddings", false,
           "one table for source and target (equal vocabularies; decoder-only: source ids "
           "unshifted in the stream)"},
          FIELD(model.share_embeddings)),
      key("model", {"tie_output", false, "output projection = target embedding table"},
          FIELD(model.tie_output)),
      key("model",
          {"readout", std::string("mean"),
           "forecasting head: mean over time (order-blind without positions) or flatten (keeps "
           "order)",
           std::nullopt, std::nullopt, nn::readout_names()},
          FIELD(model.readout), unless_neutral, std::string("mean")),
  };
}

// The plain keys of the tables inside [model].
std::vector<PlainKey> model_subtable_keys() {
  return {
      // [model.layers] (`layers = N` sets both)
      key("model.layers", {"encoder", I(2), "encoder layers", 0.0, 64.0},
          FIELD(model.transformer.encoder_layers)),
      key("model.layers", {"decoder", I(2), "decoder layers", 0.0, 64.0},
          FIELD(model.transformer.decoder_layers)),
      // [model.attention] (besides its components qk, v, scale)
      key("model.attention", {"output_projection", true, "the output projection W_o"},
          FIELD(model.transformer.attention.output_projection)),
      key("model.attention",
          {"d_k", I(0), "query/key width per head; 0 = d_model / heads", 0.0, 65536.0},
          FIELD(model.transformer.attention.d_k)),
      key("model.attention",
          {"d_v", I(0), "value width per head; 0 = d_model / heads", 0.0, 65536.0},
          FIELD(model.transformer.attention.d_v)),
      key("model.attention",
          {"dropout", 0.0, "on the attention weights, while training", 0.0,
           nn::TransformerLimits::max_dropout},
          FIELD(model.transformer.attention.dropout)),
      // [model.norm] (besides its kind and options; when norm is written as a table)
      key("model.norm",
          {"placement", std::string("post"), "post (Vaswani et al.) or pre (with a final norm)",
           std::nullopt, std::nullopt, nn::TransformerLimits::placements()},
          FIELD(model.transformer.placement)),
      key("model.norm",
          {"final", std::string("auto"), "a final norm after each stack; auto = with pre",
           std::nullopt, std::nullopt, nn::TransformerLimits::final_norms()},
          FIELD(model.transformer.final_norm)),
  };
}

// [train] (besides its components optimizer and schedule): how long and how it learns.
std::vector<PlainKey> training_keys() {
  return {
      key("train", {"steps", I(1000), "training steps", 1.0, 1e9}, FIELD(train.steps)),
      key("train", {"batch", I(32), "sequences (or windows) per step", 1.0, double(1 << 16)},
          FIELD(train.batch)),
      key("train",
          {"lr", 1e-3, "learning rate (may also be written inside optimizer)", 1e-12, 100.0},
          FIELD(train.lr)),
      key("train",
          {"clip_grad_norm", 0.0, "clip the global gradient norm to this; 0 = off", 0.0, 1e9},
          FIELD(train.clip_grad_norm)),
      key("train",
          {"eval_every", I(100), "steps between evaluations (the last step is always evaluated)",
           1.0, 1e9},
          FIELD(train.eval_every)),
      key("train",
          {"patience", I(0),
           "early stopping: evaluations without a better validation loss; 0 = off", 0.0, 1e6},
          FIELD(train.patience)),
      key("train", {"label_smoothing", 0.0, "sequence tasks", 0.0, 1.0},
          FIELD(train.label_smoothing)),
  };
}

// [train]: how it is evaluated, and what it keeps and records.
std::vector<PlainKey> evaluation_keys() {
  return {
      key("train",
          {"validation_batch", I(128), "batch size for evaluation (validation and test)", 1.0,
           double(1 << 16)},
          FIELD(train.validation_batch)),
      key("train",
          {"decode_examples", I(0),
           "validation sequences greedily decoded per evaluation; 0 = all (test decodes all)", 0.0,
           double(1 << 24)},
          FIELD(train.decode_examples)),
      key("train",
          {"beam_width", I(1),
           "test decoding: beam search of this width (nn/README.md); 1 = greedy", 1.0, 256.0},
          FIELD(train.beam_width), unless_neutral, I(1)),
      // Written into config.toml as `always`, but hashed as false whatever it is
      // (config/trial_grid.cpp, identity_toml): not part of the trial's id.
      key("train",
          {"checkpoint", false,
           "save checkpoint.safetensors: the model validation selected (lowest validation "
           "loss). Not part of the trial's id: turned on for a finished sweep, it trains again "
           "only the finished trials without one (\"Checkpoints of a finished sweep\")"},
          FIELD(train.checkpoint)),
      key("train",
          {"attention_telemetry", false,
           "per attention module and head: mean entropy and max probability since the last "
           "evaluation"},
          FIELD(train.attention_telemetry)),
      key("train",
          {"norm_telemetry", false,
           "per BatchNorm module: distance of batch from running mean and variance since the last "
           "evaluation"},
          FIELD(train.norm_telemetry), unless_neutral, false),
  };
}

// [train]: how it computes.
std::vector<PlainKey> computation_keys() {
  return {
      key("train",
          {"precision", std::string("f32"),
           "matrix products: f32, or bf16 mixed precision (bf16 inputs, f32 accumulation, weights, "
           "gradients, softmax, norms and losses; training and evaluation)",
           std::nullopt, std::nullopt, kernels::matmul_precision_names()},
          FIELD(train.precision), unless_neutral, std::string("f32")),
      key("train",
          {"threads", I(1),
           "threads of this trial's matrix products (results differ in the last bits)", 1.0, 256.0},
          FIELD(train.threads), unless_neutral, I(1)),
      key("train",
          {"resume_every", I(0),
           "steps between saves of the resumable state; 0 = about every 5 minutes", 0.0, 1e9},
          FIELD(train.resume_every), never),
      // Never in the id: the recompute runs the same ops on the same values in the same
      // order, so losses, gradients and every result are bit-identical with it on or off
      // (tests/nn/recompute_test.cpp, tests/experiments/recompute_trial_test.cpp); only
      // peak memory and time differ, which no trial id covers.
      key("train",
          {"recompute", false,
           "recompute each layer's activations in the backward instead of keeping them (less "
           "memory, ~1/3 more compute)"},
          FIELD(train.recompute), never),
  };
}

// Every section's keys, in the order they are read — and listed: `ablate list` and
// the key tables of docs/reference/ follow it.
std::vector<PlainKey> declare() {
  std::vector<PlainKey> keys;
  for (auto section : {top_level_keys, model_keys, model_subtable_keys, training_keys,
                       evaluation_keys, computation_keys})
    for (PlainKey& k : section()) keys.push_back(std::move(k));
  return keys;
}

#undef FIELD

std::string identity_note(const PlainKey& k) {
  switch (k.identity) {
    case InIdentity::always:
      return "";
    case InIdentity::unless_neutral:
      return " (in the trial's id unless " + declared_value_text(k.neutral) + ")";
    case InIdentity::never:
      return " (not part of the trial's id)";
  }
  return "";
}

}  // namespace

const std::vector<PlainKey>& plain_keys() {
  static const std::vector<PlainKey> keys = declare();
  return keys;
}

void read_plain_keys(TomlReader& r, TrialConfig& c) {
  for (const PlainKey& k : plain_keys())
    if (k.table == r.path()) k.set(c, read_declared(r, k.spec));
}

void write_plain_keys(const TrialConfig& c, const std::string& table, toml::table& out) {
  for (const PlainKey& k : plain_keys()) {
    if (k.table != table || k.identity == InIdentity::never) continue;
    nn::OptionValue v = k.get(c);
    if (k.identity == InIdentity::unless_neutral && v == k.neutral) continue;
    std::visit([&](const auto& x) { out.insert_or_assign(k.spec.key, x); }, v);
  }
}

std::string plain_keys_markdown(const std::string& table) {
  std::string out = kKeyTableHeader;
  for (const PlainKey& k : plain_keys())
    if (k.table == table)
      out += "| `" + k.spec.key + "` | " + declared_type_name(k.spec.default_value) + " | `" +
             declared_value_text(k.spec.default_value) + "` | " + declared_allowed(k.spec) + " | " +
             k.spec.doc + identity_note(k) + " |\n";
  return out;
}

std::string fuzz_dictionary() {
  std::set<std::string> words;
  for (const PlainKey& k : plain_keys()) {
    add_path_words(k.path(), words);
    for (const std::string& c : k.spec.choices) words.insert(c);
  }
  auto component = [&](const std::string& name, const std::vector<nn::OptionSpec>& options) {
    words.insert(name);
    for (const nn::OptionSpec& o : options) {
      words.insert(o.key);
      for (const std::string& c : o.choices) words.insert(c);
    }
  };
  for (const nn::AxisInfo& axis : nn::registry_listing()) {
    add_path_words(axis.axis, words);  // the axis's own keys: "attention", "qk", ...
    for (const nn::ComponentInfo& c : axis.components) component(c.name, c.options);
  }
  for (const auto& t : task_registry().entries()) component(t.name, t.options);
  add_setting_key_words(words);
  std::string out;
  for (const std::string& w : words)
    if (!w.empty()) out += "\"" + w + "\"\n";
  return out;
}

std::string format_plain_keys() {
  std::string out;
  for (const PlainKey& k : plain_keys()) {
    std::string path = k.path();
    out += "  " + path + std::string(path.size() < 34 ? 34 - path.size() : 1, ' ') +
           declared_type_name(k.spec.default_value) + " = " +
           declared_value_text(k.spec.default_value);
    if (std::string a = declared_allowed(k.spec); !a.empty()) out += "  [" + a + "]";
    out += "  " + k.spec.doc + identity_note(k) + "\n";
  }
  return out;
}

}  // namespace ablate::experiments
