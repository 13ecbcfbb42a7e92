#include "autograd/op_builder.h"

#include <algorithm>

namespace ablate {

OpBuilder::OpBuilder(OpKind kind, std::initializer_list<Var> inputs)
    : OpBuilder(kind, std::span<const Var>()) {
  if (inputs.size() > listed_.size())
    throw std::logic_error(std::string(op_name(kind)) + ": more than 4 listed inputs; pass a span");
  std::copy(inputs.begin(), inputs.end(), listed_.begin());
  inputs_ = std::span<const Var>(listed_.data(), inputs.size());
  check_inputs();
}

OpBuilder::OpBuilder(OpKind kind, std::span<const Var> inputs)
    : tape_(Tape::current()), inputs_(inputs) {
  node_.op = kind;
  check_inputs();
}

void OpBuilder::check_inputs() {
  OpKind kind = node_.op;
  requires_grad_ = false;
  for (const Var& v : inputs_) {
    if (!v.defined())
      throw std::invalid_argument(std::string(op_name(kind)) + ": an input Var is undefined");
    if (&v.tape() != &tape_)
      throw std::logic_error(
          std::string(op_name(kind)) +
          ": an input Var belongs to a tape other than this thread's current one");
    requires_grad_ = requires_grad_ || v.requires_grad();  // also checks the generation
  }
  requires_grad_ = requires_grad_ && tape_.grad_enabled();
}

const Tensor& OpBuilder::input(int i) const {
  return inputs_[std::size_t(i)].value();
}

Var OpBuilder::finish(const Tensor& value, BackwardFn backward) {
  node_.value = value;
  node_.backward = backward;
  return tape_.record(std::move(node_), inputs_);
}

}  // namespace ablate
