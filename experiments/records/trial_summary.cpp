#include "experiments/records/trial_summary.h"

#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "experiments/io/json_number.h"

namespace ablate::experiments {

namespace {

using json = nlohmann::json;

constexpr const char* kValidationLoss = "val_loss";
constexpr const char* kTestLoss = "loss";
constexpr const char* kStandardErrors = "standard_errors";

// ---- writing ----

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

void put_number(json& j, const char* key, const std::optional<double>& v) {
  if (v) j[key] = finite_or_string(*v);
}

json numbers_json(const std::map<std::string, double>& values) {
  json j = json::object();
  for (const auto& [k, v] : values) j[k] = finite_or_string(v);
  return j;
}

json evaluation_json(const SummaryEvaluation& e, const char* loss_key) {
  json j = json::object();
  put(j, "step", e.step);
  put_number(j, "train_loss", e.train_loss);
  put_number(j, loss_key, e.loss);
  put_number(j, "lr", e.lr);
  put_number(j, "grad_norm", e.grad_norm);
  put_number(j, "seconds", e.seconds);
  for (const auto& [k, v] : e.metrics) j[k] = finite_or_string(v);
  if (e.standard_errors) j[kStandardErrors] = numbers_json(*e.standard_errors);
  return j;
}

json computation_json(const SummaryComputation& c) {
  json j = json::object();
  if (c.attention_path || c.why_not_fused) {
    json attention = json::object();
    put(attention, "path", c.attention_path);
    put(attention, "why_not_fused", c.why_not_fused);
    j["attention"] = attention;
  }
  put(j, "gemm_backend", c.gemm_backend);
  put(j, "precision", c.precision);
  return j;
}

// What the trial read and ran with: its files, code, computation, plugins, point and
// provenance.
void put_provenance(json& j, const TrialSummary& s) {
  if (!s.files.empty()) {
    json files = json::object();
    for (const auto& [key, f] : s.files) files[key] = {{"path", f.path}, {"sha256", f.sha256}};
    j["files"] = files;
  }
  put(j, "code_version", s.code_version);
  if (s.computation) j["computation"] = computation_json(*s.computation);
  if (!s.plugins.empty()) {
    json plugins = json::array();
    for (const PluginRef& p : s.plugins)
      plugins.push_back({{"path", p.path}, {"sha256", p.sha256}, {"built_for", p.built_for}});
    j["plugins"] = plugins;
  }
  if (s.point) {
    json point = json::object();
    for (const auto& [k, v] : *s.point) point[k] = v;
    j["point"] = point;
  }
  if (s.provenance) j["provenance"] = *s.provenance;
}

// ---- reading ----

[[noreturn]] void wrong(const std::string& field, const char* expected) {
  throw std::runtime_error("summary.json: " + field + " must be " + expected);
}

// A number, or one of the strings io/json_number.h writes for NaN and infinity.
double number(const json& v, const std::string& field) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "nan") return NAN;
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  wrong(field, "a number");
}

const json* field(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::optional<double> get_number(const json& j, const char* key) {
  if (const json* v = field(j, key)) return number(*v, key);
  return std::nullopt;
}

// A count that a record derived from results.csv may hold as a whole float (six
// significant digits there: 7.37947e+06 parameters).
bool is_count(const json& v, bool non_negative) {
  if (v.is_number_unsigned()) return true;
  if (v.is_number_integer()) return !non_negative || v.get<std::int64_t>() >= 0;
  if (!v.is_number_float()) return false;
  const double x = v.get<double>();
  return std::trunc(x) == x && std::abs(x) < 9e18 && (!non_negative || x >= 0);
}

template <class T>
std::optional<T> get(const json& j, const char* key) {
  const json* v = field(j, key);
  if (!v) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v->is_string()) wrong(key, "a string");
    return v->get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v->is_boolean()) wrong(key, "true or false");
    return v->get<bool>();
  } else {
    if (!is_count(*v, std::is_unsigned_v<T>)) wrong(key, "an integer");
    return v->is_number_float() ? T(v->get<double>()) : v->get<T>();
  }
}

const json& object(const json& v, const std::string& field) {
  if (!v.is_object()) wrong(field, "an object");
  return v;
}

std::map<std::string, double> numbers(const json& j, const std::string& field) {
  std::map<std::string, double> out;
  for (const auto& [k, v] : object(j, field).items())
    if (!v.is_null()) out[k] = number(v, field + "." + k);
  return out;
}

SummaryEvaluation evaluation_from(const json& j, const std::string& part, const char* loss_key) {
  SummaryEvaluation e;
  for (const auto& [k, v] : object(j, part).items()) {
    if (v.is_null()) continue;
    if (k == "step")
      e.step = get<std::int64_t>(j, "step");
    else if (k == loss_key)
      e.loss = number(v, part + "." + k);
    else if (k == "train_loss")
      e.train_loss = number(v, part + "." + k);
    else if (k == "lr")
      e.lr = number(v, part + "." + k);
    else if (k == "grad_norm")
      e.grad_norm = number(v, part + "." + k);
    else if (k == "seconds")
      e.seconds = number(v, part + "." + k);
    else if (k == kStandardErrors)
      e.standard_errors = numbers(v, part + "." + k);
    else
      e.metrics[k] = number(v, part + "." + k);
  }
  return e;
}

std::vector<Evaluation::NormDrift> norm_drift_from(const json& j, const std::string& field) {
  std::vector<Evaluation::NormDrift> out;
  for (const auto& [module, d] : object(j, field).items())
    out.push_back({module,
                   number(object(d, field + "." + module).value("mean", json()), field + ".mean"),
                   number(d.value("var", json()), field + ".var")});
  return out;
}

void read_gradients_and_drift(const json& j, TrialSummary& s) {
  if (const std::optional<double> global = get_number(j, "init_grad_norm")) {
    s.init_gradients.recorded = true;
    s.init_gradients.global = *global;
    s.init_gradients.loss = get_number(j, "init_loss");
    if (const json* groups = field(j, "init_grad_norms"))
      for (const auto& [name, norm] : numbers(*groups, "init_grad_norms"))
        s.init_gradients.groups.emplace_back(name, norm);
  }
  if (const json* d = field(j, "norm_drift"))
    s.norm_drift = BatchNormDrift{
        norm_drift_from(object(*d, "norm_drift").value("training", json::object()),
                        "norm_drift.training"),
        norm_drift_from(d->value("last_interval", json::object()), "norm_drift.last_interval")};
}

SummaryComputation computation_from(const json& j) {
  SummaryComputation c;
  if (const json* a = field(object(j, "computation"), "attention")) {
    c.attention_path = get<std::string>(object(*a, "computation.attention"), "path");
    c.why_not_fused = get<std::string>(*a, "why_not_fused");
  }
  c.gemm_backend = get<std::string>(j, "gemm_backend");
  c.precision = get<std::string>(j, "precision");
  return c;
}

void read_provenance(const json& j, TrialSummary& s) {
  if (const json* files = field(j, "files"))
    for (const auto& [key, f] : object(*files, "files").items())
      s.files[key] = {get<std::string>(object(f, "files." + key), "path").value_or(""),
                      get<std::string>(f, "sha256").value_or("")};
  s.code_version = get<std::string>(j, "code_version");
  if (const json* c = field(j, "computation")) s.computation = computation_from(*c);
  if (const json* plugins = field(j, "plugins")) {
    if (!plugins->is_array()) wrong("plugins", "an array");
    for (const json& p : *plugins)
      s.plugins.push_back({get<std::string>(object(p, "plugins[]"), "path").value_or(""),
                           get<std::string>(p, "sha256").value_or(""),
                           get<std::string>(p, "built_for").value_or("")});
  }
  if (const json* point = field(j, "point")) {
    s.point.emplace();
    for (const auto& [k, v] : object(*point, "point").items()) {
      if (!v.is_string()) wrong("point." + k, "a string");
      (*s.point)[k] = v.get<std::string>();
    }
  }
  if (const json* p = field(j, "provenance")) s.provenance = object(*p, "provenance");
}

}  // namespace

json norm_drift_json(const std::vector<Evaluation::NormDrift>& drift) {
  json j = json::object();
  for (const Evaluation::NormDrift& d : drift)
    j[d.module] = {{"mean", finite_or_string(d.mean)}, {"var", finite_or_string(d.var)}};
  return j;
}

SummaryEvaluation validation_record(const Evaluation& e) {
  return {e.step, e.loss, e.train_loss, e.lr, e.grad_norm, e.seconds, e.metrics, std::nullopt};
}

SummaryEvaluation test_record(const Evaluation& e) {
  SummaryEvaluation r;
  r.step = e.step;
  r.loss = e.loss;
  r.metrics = e.metrics;
  r.standard_errors = e.standard_errors;
  return r;
}

json to_json(const TrialSummary& s) {
  json j = json::object();
  put(j, "id", s.id);
  j["status"] = s.status;
  put(j, "error", s.error);
  put(j, "params", s.params);
  put(j, "steps", s.steps);
  put(j, "train_steps", s.train_steps);
  put(j, "resumed_from_step", s.resumed_from_step);
  put(j, "diverged_at", s.diverged_at);
  put(j, "stopped_early", s.stopped_early);
  j["final"] = evaluation_json(s.final, kValidationLoss);
  j["best"] = evaluation_json(s.best, kValidationLoss);
  if (s.test) j["test"] = evaluation_json(*s.test, kTestLoss);
  if (s.init_gradients.recorded) {
    j["init_grad_norm"] = finite_or_string(s.init_gradients.global);
    if (s.init_gradients.loss) j["init_loss"] = finite_or_string(*s.init_gradients.loss);
    j["init_grad_norms"] =
        numbers_json({s.init_gradients.groups.begin(), s.init_gradients.groups.end()});
  }
  if (s.norm_drift)
    j["norm_drift"] = {{"training", norm_drift_json(s.norm_drift->training)},
                       {"last_interval", norm_drift_json(s.norm_drift->last_interval)}};
  put_number(j, "wall_seconds", s.wall_seconds);
  put_number(j, "steps_per_second", s.steps_per_second);
  put_number(j, "peak_rss_mib", s.peak_rss_mib);
  put(j, "seed", s.seed);
  put(j, "data_seed", s.data_seed);
  put_provenance(j, s);
  if (!s.telemetry.empty()) j["telemetry"] = numbers_json(s.telemetry);
  return j;
}

TrialSummary trial_summary_from_json(const json& j) {
  object(j, "the summary");
  TrialSummary s;
  s.id = get<std::string>(j, "id");
  s.status = get<std::string>(j, "status").value_or("");
  s.error = get<std::string>(j, "error");
  s.params = get<std::int64_t>(j, "params");
  s.steps = get<std::int64_t>(j, "steps");
  s.train_steps = get<std::int64_t>(j, "train_steps");
  s.resumed_from_step = get<std::int64_t>(j, "resumed_from_step");
  s.diverged_at = get<std::int64_t>(j, "diverged_at");
  s.stopped_early = get<bool>(j, "stopped_early");
  s.final = evaluation_from(j.value("final", json::object()), "final", kValidationLoss);
  s.best = evaluation_from(j.value("best", json::object()), "best", kValidationLoss);
  if (const json* test = field(j, "test")) s.test = evaluation_from(*test, "test", kTestLoss);
  read_gradients_and_drift(j, s);
  s.wall_seconds = get_number(j, "wall_seconds");
  s.steps_per_second = get_number(j, "steps_per_second");
  s.peak_rss_mib = get_number(j, "peak_rss_mib");
  s.seed = get<std::uint64_t>(j, "seed");
  s.data_seed = get<std::uint64_t>(j, "data_seed");
  read_provenance(j, s);
  if (const json* telemetry = field(j, "telemetry")) s.telemetry = numbers(*telemetry, "telemetry");
  return s;
}

}  // namespace ablate::experiments
