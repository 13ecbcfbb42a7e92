#include "experiments/records/metrics_log.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/trial_summary.h"

namespace ablate::experiments {

using json = nlohmann::json;

std::string metrics_line(const Evaluation& e) {
  json j{{"step", e.step}, {"train_loss", e.train_loss}, {"val_loss", e.loss},
         {"lr", e.lr},     {"grad_norm", e.grad_norm},   {"seconds", e.seconds}};
  for (const auto& [k, v] : e.metrics) j[k] = v;
  if (!e.grad_norms.empty()) {
    json g = json::object();
    for (const auto& [name, norm] : e.grad_norms) g[name] = norm;
    j["grad_norms"] = g;
  }
  if (!e.attention.empty()) {
    json a = json::object();
    for (const Evaluation::AttentionStats& s : e.attention)
      a[s.module] = {{"entropy", s.entropy}, {"max_prob", s.max_prob}};
    j["attention"] = a;
  }
  if (!e.norm_drift.empty()) j["norm_drift"] = norm_drift_json(e.norm_drift);
  return j.dump() + "\n";
}

std::optional<double> MetricsLine::value(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

namespace {

// A list of numbers, or nullopt when it is anything else.
std::optional<std::vector<double>> numbers(const json& j) {
  if (!j.is_array()) return std::nullopt;
  std::vector<double> out;
  for (const json& x : j) {
    if (!x.is_number()) return std::nullopt;
    out.push_back(x.get<double>());
  }
  return out;
}

std::vector<Evaluation::AttentionStats> attention_of(const json& a) {
  std::vector<Evaluation::AttentionStats> out;
  if (!a.is_object()) return out;
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (!it.value().is_object()) continue;
    auto entropy = numbers(it.value().value("entropy", json())),
         max_prob = numbers(it.value().value("max_prob", json()));
    if (entropy && max_prob && entropy->size() == max_prob->size())
      out.push_back({it.key(), std::move(*entropy), std::move(*max_prob)});
  }
  return out;
}

}  // namespace

MetricsLog parse_metrics_log(std::string_view text) {
  MetricsLog log;
  std::size_t begin = 0;
  while (begin < text.size() && log.lines.size() + log.unreadable < kMaxMetricsLines) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    if (line.empty()) continue;
    json e;
    try {
      e = parse_json(line, "metrics.jsonl");
    } catch (const std::runtime_error&) {
      ++log.unreadable;
      continue;
    }
    if (!e.is_object() || !e.contains("step") || !e["step"].is_number_integer()) {
      ++log.unreadable;
      continue;
    }
    MetricsLine m;
    m.step = e["step"].get<std::int64_t>();
    for (auto it = e.begin(); it != e.end(); ++it)
      if (it.key() != "step" && it.value().is_number() && std::isfinite(it.value().get<double>()))
        m.values[it.key()] = it.value().get<double>();
    if (e.contains("attention")) m.attention = attention_of(e["attention"]);
    log.lines.push_back(std::move(m));
  }
  return log;
}

MetricsLog read_metrics_log(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  return parse_metrics_log(read_file(path));
}

}  // namespace ablate::experiments
