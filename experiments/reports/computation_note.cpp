#include "experiments/reports/computation_note.h"

#include <algorithm>

namespace ablate::experiments {

using json = nlohmann::json;

std::optional<Computation> computation_of(const json& summary) {
  if (summary.is_null() || !summary.contains("computation") || !summary["computation"].is_object())
    return std::nullopt;
  const json& c = summary["computation"];
  const json attention = c.value("attention", json::object());
  auto text = [](const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); };
  return Computation{text(attention.value("path", json())),
                     text(attention.value("why_not_fused", json())),
                     text(c.value("gemm_backend", json())), text(c.value("precision", json()))};
}

bool any_computation(const RunRows& run) {
  return std::any_of(run.rows.begin(), run.rows.end(),
                     [](const TrialRow& r) { return computation_of(r.summary).has_value(); });
}

std::string counted_values(const std::map<std::string, int>& values) {
  std::string out;
  for (const auto& [value, n] : values)
    out += (out.empty() ? "" : ", ") + (value.empty() ? std::string("unrecorded") : value) +
           (values.size() > 1 ? " (" + std::to_string(n) + " trials)" : "");
  return out;
}

std::string computation_note(const RunRows& run) {
  std::map<std::string, int> paths, backends, precisions;
  std::string why;
  for (const TrialRow& r : run.rows)
    if (const auto c = computation_of(r.summary)) {
      ++paths[c->attention_path];
      ++backends[c->gemm_backend];
      ++precisions[c->precision];
      if (why.empty()) why = c->why_not_fused;
    }
  if (paths.empty()) return "";
  return "\nComputed with the GEMM backend " + counted_values(backends) + ", " +
         counted_values(precisions) + " matmuls; attention path " + counted_values(paths) +
         (why.empty() ? "" : " (the first reason a forward was not fused: " + why + ")") +
         " — summary.json's `computation`.\n";
}

}  // namespace ablate::experiments
