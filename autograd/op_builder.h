#pragma once
// How an op is written. One function holds the forward and, right below it, the
// backward as a captureless lambda:
//
//   Var exp(const Var& x) {
//     OpBuilder op(OpKind::exp, {x});
//     Tensor y = op.output(x.shape(), x.dtype());
//     ... compute y from op.input(0) ...
//     return op.finish(y, [](BackwardContext& c) {
//       ... c.input_grad(0) += c.output_grad() * c.output() ...
//     });
//   }
//
// then one line in op_kind.h and one gradcheck case in the table test. The builder
// checks that inputs are live Vars of the current tape; op.requires_grad() tells
// whether backward will ever run, so an op can skip saving what only backward needs.
#include <array>
#include <initializer_list>
#include <span>

#include "autograd/tape.h"

namespace ablate {

class OpBuilder {
 public:
  OpBuilder(OpKind kind, std::initializer_list<Var> inputs);
  OpBuilder(OpKind kind, std::span<const Var> inputs);

  const Tensor& input(int i) const;
  bool requires_grad() const { return requires_grad_; }

  Tensor output(const Shape& shape, DType dtype) { return tape_.alloc(shape, dtype); }
  Tensor scratch(const Shape& shape, DType dtype) { return tape_.alloc(shape, dtype); }
  void save(int slot, const Tensor& t) { node_.saved[std::size_t(slot)] = t; }
  void scalar(int slot, double v) { node_.scalars[std::size_t(slot)] = v; }
  void integer(int slot, std::int64_t v) { node_.ints[std::size_t(slot)] = v; }

  Var finish(const Tensor& value, BackwardFn backward);

 private:
  void check_inputs();
  Tape& tape_;
  std::array<Var, 4> listed_;    // copies of an initializer list's inputs (it dies early)
  std::span<const Var> inputs_;  // listed_, or the caller's span (which outlives finish())
  Node node_;
  bool requires_grad_ = false;
};

}  // namespace ablate
