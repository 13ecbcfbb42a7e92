#pragma once
// Activation recomputation ("activation checkpointing", Chen et al. 2016, arXiv
// 1604.06174; torch.utils.checkpoint): checkpoint(fn, inputs) runs fn on a scratch tape
// and keeps only its output on the current tape, as one node. Its backward runs fn
// again from the same inputs, on the scratch tape, and backpropagates through that
// recording. The activations fn's backward needs are held for one checkpointed call
// at a time instead of for all of them; the price is fn's forward twice.
//
//   Var inputs[] = {x};
//   Var y = checkpoint([layer, mask](std::span<const Var> in) { return layer->forward(in[0], mask);
//   },
//                      inputs, {&dropout_generator});
//
// The result is bit for bit what fn would have given without it, values and every
// gradient: the recompute runs the same ops on the same values in the same order, and
// its gradients go into the same buffers in the same order (checkpoint.cpp says how).
// What fn must respect:
//   - its Vars come from `inputs` (their Vars on the scratch tape, in order) and from
//     leaf(parameter) on the current tape (not a captured tape's), whose gradients
//     accumulate into Parameter::grad as usual;
//   - what it captures stays valid until the backward has run: Tensors by value (arena
//     views live until the tape's reset()), modules and generators by pointer;
//   - its randomness comes from `generators`: their states before the forward are
//     restored for the recompute, and set back after it;
//   - an effect that must happen once per step skips itself when recomputing() (the
//     running statistics of batch_norm, attention telemetry);
//   - it returns one Var it computed.
// The recompute is checked: an output that differs from the forward's (randomness
// from a generator not listed, say) throws std::logic_error.
//
// Without gradient recording (NoGradGuard: evaluation, decoding) checkpoint just calls
// fn. Checkpoints may nest (one scratch tape per depth). The closure is kept in the
// current tape's arena until its reset(), and each depth's scratch tape keeps its
// arena, so a steady-state step still allocates nothing.
#include <cstddef>
#include <initializer_list>
#include <span>
#include <utility>

#include "autograd/rng.h"
#include "autograd/tape.h"

namespace ablate {

// True while checkpoint re-runs a function in the backward.
bool recomputing();

// Arena bytes held by this thread's scratch tapes (the activations of one checkpointed
// call at a time), for memory reports beside Tape::arena().capacity().
std::size_t checkpoint_scratch_capacity();

namespace detail {

// A checkpointed function, type-erased, with the generator states its recompute replays.
struct Recomputable {
  virtual ~Recomputable() = default;
  virtual Var run(std::span<const Var> inputs) = 0;
  Generator* const* generators = nullptr;
  Generator::State* states = nullptr;  // before the forward
  std::size_t n_generators = 0;
};

template <class Fn>
struct RecomputableFn final : Recomputable {
  explicit RecomputableFn(Fn f) : fn(std::move(f)) {}
  Var run(std::span<const Var> inputs) override { return fn(inputs); }
  Fn fn;
};

Var checkpoint(Tape& tape, std::int64_t kept_index, Recomputable& fn, std::span<const Var> inputs,
               std::span<Generator* const> generators);

}  // namespace detail

template <class Fn>
Var checkpoint(Fn&& fn, std::span<const Var> inputs, std::span<Generator* const> generators = {}) {
  Tape& tape = Tape::current();
  if (!tape.grad_enabled()) return fn(inputs);
  auto [index, kept] =
      tape.keep(detail::RecomputableFn<std::remove_cvref_t<Fn>>(std::forward<Fn>(fn)));
  return detail::checkpoint(tape, index, *kept, inputs, generators);
}

template <class Fn>
Var checkpoint(Fn&& fn, std::span<const Var> inputs, std::initializer_list<Generator*> generators) {
  return checkpoint(std::forward<Fn>(fn), inputs,
                    std::span<Generator* const>(generators.begin(), generators.size()));
}

}  // namespace ablate
