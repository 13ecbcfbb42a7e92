#include "nn/transformer/transformer_config.h"

#include <algorithm>

namespace ablate::nn {

namespace {
bool one_of(const std::string& v, const std::vector<std::string>& choices) {
  return std::find(choices.begin(), choices.end(), v) != choices.end();
}
}  // namespace

const std::vector<std::string>& TransformerLimits::placements() {
  static const std::vector<std::string> choices{"post", "pre"};
  return choices;
}

const std::vector<std::string>& TransformerLimits::final_norms() {
  static const std::vector<std::string> choices{"auto", "yes", "no"};
  return choices;
}

bool TransformerConfig::pre_norm() const {
  return placement == "pre";
}

bool TransformerConfig::has_final_norm() const {
  return final_norm == "yes" || (final_norm == "auto" && pre_norm());
}

std::int64_t TransformerConfig::head_dim_k() const {
  return attention.d_k ? attention.d_k : d_model / heads;
}

std::int64_t TransformerConfig::head_dim_v() const {
  return attention.d_v ? attention.d_v : d_model / heads;
}

std::string TransformerConfig::head_split_problem() const {
  if ((attention.d_k == 0 || attention.d_v == 0) && d_model % heads != 0)
    return "d_model = " + std::to_string(d_model) +
           " is not divisible by heads = " + std::to_string(heads);
  return "";
}

void TransformerConfig::validate() const {
  auto positive = [](std::int64_t v, const char* name) {
    if (v <= 0)
      throw std::invalid_argument(std::string(name) + " must be positive, got " +
                                  std::to_string(v));
  };
  positive(d_model, "d_model");
  positive(heads, "heads");
  positive(d_ff, "d_ff");
  positive(max_len, "max_len");
  if (encoder_layers < 0 || decoder_layers < 0)
    throw std::invalid_argument("layer counts must be >= 0");
  if (std::string problem = head_split_problem(); !problem.empty())
    throw std::invalid_argument(problem);
  if (!one_of(placement, TransformerLimits::placements()))
    throw std::invalid_argument("norm placement must be 'post' or 'pre', got '" + placement + "'");
  if (!one_of(final_norm, TransformerLimits::final_norms()))
    throw std::invalid_argument("final_norm must be 'auto', 'yes' or 'no', got '" + final_norm +
                                "'");
  for (double p : {dropout, embedding_dropout, attention.dropout})
    if (!(p >= 0.0 && p <= TransformerLimits::max_dropout))
      throw std::invalid_argument("dropout must be in [0, 0.99], got " + std::to_string(p));
}

}  // namespace ablate::nn
