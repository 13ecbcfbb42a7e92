#pragma once
// Which cells of an attention map were masked — given weight 0 by the model's rules, not
// by learning — so the heatmaps can draw them apart from a learned weight of 0.
// attention.json (runner/trial_artifacts.cpp) holds the weights and the tokens, not the
// mask, so the mask is rebuilt the way MultiHeadAttention::build_mask makes it:
//   padding   a "<pad>" key is masked for every query;
//   causal    the decoder's self-attention (queries and keys both "target_in") and a
//             decoder-only model's (both "stream") mask every key after the query;
//   no self   shared QK's rule (exclude_self): in self-attention a query does not see
//             its own position unless nothing else is allowed. Whether a trial had it
//             is not in the file, so it is recognised from the weights: a diagonal that
//             is exactly 0 in every head at every row with another allowed key (at least
//             two such rows). A softmax gives an exact 0 only for a score ~100 below its
//             row's maximum, which no learned diagonal does at every row and head at once.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ablate::experiments {

struct AttentionMask {
  std::vector<std::vector<bool>> masked;  // [query][key]
  std::vector<std::string> reasons;       // the rules that masked a cell, as a reader reads them
  bool any() const { return !reasons.empty(); }
};

// `module` is one entry of attention.json's "modules"; `attention` the whole file.
AttentionMask attention_mask(const nlohmann::json& module, const nlohmann::json& attention);

}  // namespace ablate::experiments
