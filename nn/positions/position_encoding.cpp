#include "nn/positions/position_encoding.h"

#include <stdexcept>
#include <string>

namespace ablate::nn {

const char* position_action_name(PositionAction action) {
  switch (action) {
    case PositionAction::none:
      return "none";
    case PositionAction::added_to_embeddings:
      return "added_to_embeddings";
    case PositionAction::rotates_queries_keys:
      return "rotates_queries_keys";
    case PositionAction::biases_scores:
      return "biases_scores";
  }
  return "?";
}

namespace {

[[noreturn]] void not_implemented(PositionAction declared, const char* function) {
  throw std::logic_error(std::string("positions: a scheme declaring action ") +
                         position_action_name(declared) + " was asked for " + function +
                         ", which it does not implement (it must override the "
                         "function of the action it declares)");
}

}  // namespace

Var PositionEncoding::add_to_embeddings(const Var&) {
  not_implemented(action(), "add_to_embeddings");
}
Var PositionEncoding::rotate(const Var&) {
  not_implemented(action(), "rotate");
}
Var PositionEncoding::score_bias(std::int64_t, std::int64_t, std::int64_t, bool, DType) {
  not_implemented(action(), "score_bias");
}

void PositionEncoding::check_length(std::int64_t length, const char* scheme) const {
  if (max_len() > 0 && length > max_len())
    throw std::invalid_argument(
        std::string(scheme) + " positions: sequence of length " + std::to_string(length) +
        " is longer than max_len = " + std::to_string(max_len()) + " (raise positions.max_len)");
}

PositionRegistry& position_registry() {
  static PositionRegistry registry = [] {
    PositionRegistry r("positions");
    register_sinusoidal_positions(r);
    register_learned_positions(r);
    register_no_positions(r);
    register_rotary_positions(r);
    register_alibi_positions(r);
    register_t5_bias_positions(r);
    return r;
  }();
  return registry;
}

}  // namespace ablate::nn
