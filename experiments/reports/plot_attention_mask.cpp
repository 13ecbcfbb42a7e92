#include "experiments/reports/plot_attention_mask.h"

namespace ablate::experiments {

namespace {

const nlohmann::json& tokens(const nlohmann::json& attention, const nlohmann::json& module,
                             const char* which) {
  static const nlohmann::json none = nlohmann::json::array();
  const std::string name = module.value(which, "source");
  return attention.contains(name) && attention[name].is_array() ? attention[name] : none;
}

// The diagonal is shared QK's no-self mask when every head puts exactly 0 on it at every
// row that has another allowed key (`allowed`: the mask without it), at two rows or more.
bool excludes_self(const nlohmann::json& heads, const std::vector<std::vector<bool>>& allowed) {
  std::size_t rows = 0;
  for (std::size_t q = 0; q < allowed.size() && q < allowed[q].size(); ++q) {
    std::size_t others = 0;
    for (std::size_t k = 0; k < allowed[q].size(); ++k) others += allowed[q][k] && k != q;
    if (!allowed[q][q] || others == 0) continue;
    for (const nlohmann::json& head : heads)
      if (head.at(q).at(q).get<double>() != 0.0) return false;
    ++rows;
  }
  return rows >= 2;
}

}  // namespace

AttentionMask attention_mask(const nlohmann::json& module, const nlohmann::json& attention) {
  AttentionMask mask;
  const nlohmann::json& heads = module.at("weights");
  if (heads.empty() || heads[0].empty()) return mask;
  const std::size_t n_queries = heads[0].size(), n_keys = heads[0][0].size();
  const nlohmann::json& keys = tokens(attention, module, "keys");
  const std::string queries_of = module.value("queries", "source");
  const bool self = queries_of == module.value("keys", "source");
  const bool causal = self && (queries_of == "target_in" || queries_of == "stream");

  std::vector<std::vector<bool>> allowed(n_queries, std::vector<bool>(n_keys, true));
  bool padded = false, later = false;
  for (std::size_t q = 0; q < n_queries; ++q)
    for (std::size_t k = 0; k < n_keys; ++k) {
      if (k < keys.size() && keys[k].is_string() && keys[k].get<std::string>() == "<pad>")
        allowed[q][k] = false, padded = true;
      if (causal && k > q) allowed[q][k] = false, later = true;
    }
  bool no_self = false;
  if (self && n_queries == n_keys && excludes_self(heads, allowed)) {
    for (std::size_t q = 0; q < n_queries; ++q) {
      std::size_t others = 0;
      for (std::size_t k = 0; k < n_keys; ++k) others += allowed[q][k] && k != q;
      if (others > 0) allowed[q][q] = false;
    }
    no_self = true;
  }
  if (later) mask.reasons.push_back("causal: no key after the query");
  if (no_self) mask.reasons.push_back("shared QK: no attending to itself");
  if (padded) mask.reasons.push_back("<pad> keys");
  mask.masked.assign(n_queries, std::vector<bool>(n_keys, false));
  for (std::size_t q = 0; q < n_queries; ++q)
    for (std::size_t k = 0; k < n_keys; ++k) mask.masked[q][k] = !allowed[q][k];
  return mask;
}

}  // namespace ablate::experiments
