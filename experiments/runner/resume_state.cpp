#include "experiments/runner/resume_state.h"

#include "autograd/kernels/gemm.h"

#include <bit>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "experiments/io/json_file.h"
#include "experiments/records/code_version.h"
#include "nn/checkpoint.h"
#include "nn/norms/batch_statistics_drift.h"
#include "nn/transformer/transformer_stacks.h"

namespace ablate::experiments {

namespace {

using json = nlohmann::json;

constexpr const char* kKind = "ablate-resume-state";
constexpr int kProgressVersion = 3;  // 3: initial gradients, BatchNorm drift
// The copy of the model validation selected, beside the model (nn/checkpoint.h).
const std::string kSelectedPrefix = std::string(nn::kExtraPrefix) + "selected.";

// A double by its bit pattern (JSON's unsigned integers hold 64 bits exactly; its
// numbers would lose NaN payloads, infinities and, through some readers, the last bit).
json exact(double v) {
  return std::bit_cast<std::uint64_t>(v);
}
double exact_double(const json& j) {
  return std::bit_cast<double>(j.get<std::uint64_t>());
}

json exact(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(exact(x));
  return out;
}
std::vector<double> exact_doubles(const json& j) {
  std::vector<double> out;
  for (const json& x : j) out.push_back(exact_double(x));
  return out;
}

json exact(const Evaluation& e) {
  json metrics = json::array(), errors = json::array(), grad_norms = json::array(),
       attention = json::array(), norm_drift = json::array();
  for (const auto& [name, v] : e.metrics) metrics.push_back({name, exact(v)});
  for (const auto& [name, v] : e.standard_errors) errors.push_back({name, exact(v)});
  for (const auto& [name, v] : e.grad_norms) grad_norms.push_back({name, exact(v)});
  for (const auto& a : e.attention)
    attention.push_back(
        {{"module", a.module}, {"entropy", exact(a.entropy)}, {"max_prob", exact(a.max_prob)}});
  for (const auto& d : e.norm_drift) norm_drift.push_back({d.module, exact(d.mean), exact(d.var)});
  return {
      {"step", e.step},         {"train_loss", exact(e.train_loss)}, {"loss", exact(e.loss)},
      {"lr", exact(e.lr)},      {"grad_norm", exact(e.grad_norm)},   {"seconds", exact(e.seconds)},
      {"metrics", metrics},     {"standard_errors", errors},         {"grad_norms", grad_norms},
      {"attention", attention}, {"norm_drift", norm_drift}};
}

Evaluation exact_evaluation(const json& j) {
  Evaluation e;
  e.step = j.at("step").get<std::int64_t>();
  e.train_loss = exact_double(j.at("train_loss"));
  e.loss = exact_double(j.at("loss"));
  e.lr = exact_double(j.at("lr"));
  e.grad_norm = exact_double(j.at("grad_norm"));
  e.seconds = exact_double(j.at("seconds"));
  for (const json& m : j.at("metrics"))
    e.metrics[m.at(0).get<std::string>()] = exact_double(m.at(1));
  for (const json& m : j.at("standard_errors"))
    e.standard_errors[m.at(0).get<std::string>()] = exact_double(m.at(1));
  for (const json& g : j.at("grad_norms"))
    e.grad_norms.emplace_back(g.at(0).get<std::string>(), exact_double(g.at(1)));
  for (const json& a : j.at("attention"))
    e.attention.push_back({a.at("module").get<std::string>(), exact_doubles(a.at("entropy")),
                           exact_doubles(a.at("max_prob"))});
  for (const json& d : j.at("norm_drift"))
    e.norm_drift.push_back(
        {d.at(0).get<std::string>(), exact_double(d.at(1)), exact_double(d.at(2))});
  return e;
}

json exact(const Generator& g) {
  Generator::State s = g.state();
  return {{"words", {s.words[0], s.words[1], s.words[2], s.words[3]}},
          {"spare_normal", exact(s.spare_normal)},
          {"has_spare", s.has_spare}};
}

json exact(const nn::DistanceSums& s) {
  return {{"mean_sum", exact(s.mean_sum)}, {"var_sum", exact(s.var_sum)}, {"batches", s.batches}};
}
nn::DistanceSums distance_sums(const json& j) {
  return {exact_double(j.at("mean_sum")), exact_double(j.at("var_sum")),
          j.at("batches").get<std::int64_t>()};
}

json exact(const InitialGradients& g) {
  json groups = json::array();
  for (const auto& [name, v] : g.groups) groups.push_back({name, exact(v)});
  json out{{"recorded", g.recorded}, {"global", exact(g.global)}, {"groups", groups}};
  if (g.loss) out["loss"] = exact(*g.loss);
  return out;
}
InitialGradients initial_gradients(const json& j) {
  InitialGradients g{j.at("recorded").get<bool>(), exact_double(j.at("global")), {}};
  for (const json& x : j.at("groups"))
    g.groups.emplace_back(x.at(0).get<std::string>(), exact_double(x.at(1)));
  // States saved before ablate recorded it have none: the trial then writes none.
  if (j.contains("loss")) g.loss = exact_double(j.at("loss"));
  return g;
}

Generator::State generator_state(const json& j) {
  Generator::State s{};
  for (int i = 0; i < 4; ++i) s.words[i] = j.at("words").at(i).get<std::uint64_t>();
  s.spare_normal = exact_double(j.at("spare_normal"));
  s.has_spare = j.at("has_spare").get<bool>();
  return s;
}

json progress_json(nn::Module& model, const Generator& batches, const TrainingProgress& p) {
  json streams = json::object(), telemetry = json::object(), drift = json::object();
  for (const auto& [name, g] : model.named_random_streams()) streams[name] = exact(*g);
  for (const auto& [name, m] : nn::attention_modules(model)) {
    const nn::AttentionTelemetry& t = m->telemetry();
    telemetry[name] = {{"entropy_sum", exact(t.entropy_sum)},
                       {"max_prob_sum", exact(t.max_prob_sum)},
                       {"rows", t.rows}};
  }
  for (const auto& [name, d] : nn::batch_statistics_drift_modules(model))
    drift[name] = {{"interval", exact(d->interval)}, {"training", exact(d->training)}};
  return {{"version", kProgressVersion},
          {"step", p.step},
          {"loss_sum", exact(p.loss_sum)},
          {"loss_count", p.loss_count},
          {"best_val", exact(p.best_val)},
          {"evals_without_gain", p.evals_without_gain},
          {"final", exact(p.final)},
          {"best", exact(p.best)},
          {"metrics_log", p.metrics_log},
          {"seconds", exact(p.seconds)},
          {"batches", exact(batches)},
          {"random_streams", streams},
          {"attention_telemetry", telemetry},
          {"norm_drift", drift},
          {"init_gradients", exact(p.init_gradients)}};
}

}  // namespace

void save_resume_state(const std::string& path, const Trial& trial, nn::Module& model,
                       const nn::Optimizer& optimizer, const Generator& batches,
                       const TrainingProgress& progress) {
  std::vector<std::pair<std::string, Tensor>> extra = optimizer.state();
  for (const auto& [name, t] : progress.selected) extra.emplace_back(kSelectedPrefix + name, t);
  nn::save_checkpoint(model, path,
                      {{"kind", kKind},
                       {"config", trial.config_toml},
                       {"code_version", code_version()},
                       {"gemm_backend", kernels::gemm_backend_name(kernels::gemm_backend())},
                       {"progress", progress_json(model, batches, progress).dump()}},
                      extra);
}

namespace {

// "" when the saved state is this trial's, made by this build with this GEMM backend;
// else why it is not.
std::string foreign_state(const std::map<std::string, std::string>& metadata, const Trial& trial) {
  auto meta = [&](const char* key) {
    auto it = metadata.find(key);
    return it == metadata.end() ? std::string() : it->second;
  };
  if (meta("kind") != kKind) return "not a resume state";
  if (meta("config") != trial.config_toml) return "saved for another configuration";
  if (meta("code_version") != code_version())
    return "saved by ablate " + meta("code_version") + ", this is " + code_version();
  // One trial, one backend: steps from another GEMM backend would mix two backends' bits.
  if (const std::string backend = kernels::gemm_backend_name(kernels::gemm_backend());
      meta("gemm_backend") != backend)
    return "saved with the GEMM backend " +
           (meta("gemm_backend").empty() ? "unrecorded" : meta("gemm_backend")) +
           ", this run uses " + backend + " (ABLATE_GEMM)";
  return "";
}

// Everything the progress record restores, read and checked before anything changes.
struct SavedProgress {
  TrainingProgress progress;
  Generator::State batches{};
  std::vector<std::pair<Generator*, Generator::State>> streams;
  std::vector<std::pair<nn::AttentionTelemetry*, nn::AttentionTelemetry>> telemetry;
  std::vector<std::pair<nn::BatchStatisticsDrift*, nn::BatchStatisticsDrift>> drift;
};

// Throws (a json or std exception) when the record is damaged.
SavedProgress read_saved_progress(const json& j, nn::Module& model) {
  SavedProgress saved;
  TrainingProgress& p = saved.progress;
  p.step = j.at("step").get<std::int64_t>();
  p.loss_sum = exact_double(j.at("loss_sum"));
  p.loss_count = j.at("loss_count").get<std::int64_t>();
  p.best_val = exact_double(j.at("best_val"));
  p.evals_without_gain = j.at("evals_without_gain").get<std::int64_t>();
  p.final = exact_evaluation(j.at("final"));
  p.best = exact_evaluation(j.at("best"));
  p.metrics_log = j.at("metrics_log").get<std::string>();
  p.seconds = exact_double(j.at("seconds"));
  saved.batches = generator_state(j.at("batches"));
  const json& saved_streams = j.at("random_streams");
  for (const auto& [name, g] : model.named_random_streams())
    saved.streams.emplace_back(g, generator_state(saved_streams.at(name)));
  const json& saved_telemetry = j.at("attention_telemetry");
  for (const auto& [name, m] : nn::attention_modules(model)) {
    const json& t = saved_telemetry.at(name);
    saved.telemetry.emplace_back(&m->telemetry(),
                                 nn::AttentionTelemetry{exact_doubles(t.at("entropy_sum")),
                                                        exact_doubles(t.at("max_prob_sum")),
                                                        t.at("rows").get<std::int64_t>()});
  }
  const json& saved_drift = j.at("norm_drift");
  for (const auto& [name, d] : nn::batch_statistics_drift_modules(model)) {
    const json& t = saved_drift.at(name);
    saved.drift.emplace_back(d,
                             nn::BatchStatisticsDrift{d->recording, distance_sums(t.at("interval")),
                                                      distance_sums(t.at("training"))});
  }
  p.init_gradients = initial_gradients(j.at("init_gradients"));
  return saved;
}

}  // namespace

std::optional<TrainingProgress> load_resume_state(const std::string& path, const Trial& trial,
                                                  nn::Module& model, nn::Optimizer& optimizer,
                                                  Generator& batches, std::string* ignored) {
  std::error_code missing;
  if (!std::filesystem::exists(path, missing)) return std::nullopt;
  auto ignore = [&](const std::string& why) -> std::optional<TrainingProgress> {
    if (ignored) *ignored = path + ": " + why + "; the trial starts again from step 0";
    return std::nullopt;
  };
  nn::SafetensorsFile file;
  try {
    file = nn::read_safetensors(path);
  } catch (const std::exception& e) {
    return ignore(std::string("unreadable (") + e.what() + ")");
  }
  if (const std::string why = foreign_state(file.metadata, trial); !why.empty()) return ignore(why);
  SavedProgress saved;
  try {  // everything is read and checked before anything is changed
    const auto progress = file.metadata.find("progress");
    const json j = parse_json(progress == file.metadata.end() ? std::string() : progress->second,
                              path + " (its progress)");
    if (j.at("version").get<int>() != kProgressVersion)
      return ignore("written in another progress format");
    saved = read_saved_progress(j, model);
  } catch (const std::exception& e) {
    return ignore(std::string("its progress record is damaged (") + e.what() + ")");
  }
  // The same config and build made the same model, so the tensors fit; if they do
  // not, the file was altered, and the trial fails with this message.
  try {
    optimizer.load_state(file.tensors);
    nn::load_checkpoint(model, path, /*strict=*/true);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": cannot restore this trial's state (" + e.what() +
                             "); delete the file to start the trial again");
  }
  TrainingProgress& p = saved.progress;
  for (const auto& [name, t] : file.tensors)
    if (name.starts_with(kSelectedPrefix))
      p.selected.emplace_back(name.substr(kSelectedPrefix.size()), t);
  batches.set_state(saved.batches);
  for (auto& [g, s] : saved.streams) g->set_state(s);
  for (auto& [t, kept] : saved.telemetry) *t = std::move(kept);
  for (auto& [d, kept] : saved.drift) *d = kept;
  return p;
}

}  // namespace ablate::experiments
