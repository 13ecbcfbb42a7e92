// checkpoint(): the forward on a scratch tape, one node on the caller's, and the
// recompute in that node's backward.
//
// Why the gradients are bit-identical to running fn on the caller's tape: fn's ops
// would have been one contiguous run of nodes there, whose backwards the reverse sweep
// runs back to back, at the point where this node's backward runs now. The recompute
// makes the same nodes from the same values (same generator states), and its sweep
// adds into the same buffers in the same order:
//   - Parameters through leaf(p): into Parameter::grad, as before;
//   - an input whose gradient already holds contributions (from later consumers) is a
//     leaf whose gradient buffer *is* that buffer, so fn's contributions add onto it in
//     sequence, not summed apart first (which would round differently);
//   - an input without one yet gets its first contribution written on the scratch tape
//     exactly as it would have been (= for the first, += after), then copied over;
//   - the scratch sweep is seeded with a copy of this node's gradient (Tape::backward
//     copies a fresh seed instead of adding it to zeros, which would turn -0 into +0).
#include "autograd/checkpoint.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "autograd/parameter.h"

namespace ablate {

namespace {

thread_local int t_recomputing = 0;

// One nesting depth's scratch tape and what a call on it keeps; capacities persist.
struct Scratch {
  Tape tape;
  std::vector<Var> inputs;          // fn's inputs, on the scratch tape
  std::vector<std::uint8_t> fresh;  // recompute: input i's gradient starts on the scratch tape
};
thread_local std::vector<std::unique_ptr<Scratch>> t_scratch;
thread_local std::size_t t_depth = 0;

Scratch& scratch_at(std::size_t depth) {
  while (t_scratch.size() <= depth) t_scratch.push_back(std::make_unique<Scratch>());
  return *t_scratch[depth];
}

// The scratch tape of the current depth, current for the scope's lifetime (and one
// level deeper for checkpoints fn makes), reset when it ends, error or not.
class ScratchScope {
 public:
  ScratchScope() : depth_(t_depth), scratch_(scratch_at(depth_)), current_(scratch_.tape) {
    ++t_depth;
    scratch_.inputs.clear();
    scratch_.fresh.clear();
  }
  ~ScratchScope() {
    scratch_.inputs.clear();
    scratch_.tape.reset();
    t_depth = depth_;
  }
  ScratchScope(const ScratchScope&) = delete;
  ScratchScope& operator=(const ScratchScope&) = delete;
  Tape& tape() { return scratch_.tape; }
  Scratch& scratch() { return scratch_; }

 private:
  std::size_t depth_;
  Scratch& scratch_;
  TapeScope current_;
};

// Runs fn on the scratch tape and checks what it returned.
Var run(detail::Recomputable& fn, ScratchScope& s) {
  Var out = fn.run(s.scratch().inputs);
  if (!out.defined())
    throw std::invalid_argument("checkpoint: the function returned an undefined Var");
  if (&out.tape() != &s.tape())
    throw std::logic_error(
        "checkpoint: the function returned a Var of another tape; it must compute its output from "
        "the "
        "Vars it is given (its inputs on the scratch tape) and from leaf(parameter)");
  return out;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

void add_into(const Tensor& dst, const Tensor& src) {
  dispatch_float(dst.dtype(), "checkpoint backward", [&]<class T>() {
    T* d = dst.data<T>();
    const T* s = src.data<T>();
    for (std::int64_t i = 0, n = dst.numel(); i < n; ++i) d[i] += s[i];
  });
}

// While it lives: recomputing() is true, fn's generators replay the states they had
// before its forward; afterwards they continue where they were.
class Replay {
 public:
  Replay(detail::Recomputable& fn, Tape& scratch) : fn_(fn) {
    ++t_recomputing;
    now_ = static_cast<Generator::State*>(
        scratch.allocate(sizeof(Generator::State) * std::max<std::size_t>(fn.n_generators, 1),
                         alignof(Generator::State)));
    for (std::size_t i = 0; i < fn.n_generators; ++i) {
      now_[i] = fn.generators[i]->state();
      fn.generators[i]->set_state(fn.states[i]);
    }
  }
  ~Replay() {
    for (std::size_t i = fn_.n_generators; i-- > 0;) fn_.generators[i]->set_state(now_[i]);
    --t_recomputing;
  }
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;

 private:
  detail::Recomputable& fn_;
  Generator::State* now_;
};

void recompute_backward(BackwardContext& c) {
  detail::Recomputable& fn = c.kept<detail::Recomputable>(0);
  ScratchScope s;
  EnableGradGuard recording;  // the outer backward may run under NoGradGuard
  Replay replay(fn, s.tape());
  Scratch& scratch = s.scratch();
  for (int i = 0; i < c.num_inputs(); ++i) {
    const bool onto_existing = c.needs_grad(i) && c.has_input_grad(i);
    scratch.fresh.push_back(c.needs_grad(i) && !onto_existing);
    if (!c.needs_grad(i)) {
      scratch.inputs.push_back(s.tape().constant(c.input(i)));
    } else if (onto_existing) {
      Parameter
          into;  // a leaf whose gradient buffer is the input's (leaf() keeps no reference to it)
      into.value = c.input(i);
      into.grad = c.input_grad(i);
      scratch.inputs.push_back(s.tape().leaf(into));
    } else {
      scratch.inputs.push_back(s.tape().leaf(c.input(i)));
    }
  }
  Var out = run(fn, s);
  if (!same_bits(out.value(), c.output()))
    throw std::logic_error(
        "checkpoint: the recomputed output differs from the forward's; the function is not "
        "deterministic "
        "(does it draw from a generator not passed to checkpoint, or read state that changed "
        "since?)");
  s.tape().backward(out, c.output_grad());
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!scratch.fresh[std::size_t(i)]) continue;
    Tensor g = scratch.inputs[std::size_t(i)].grad();
    if (!g.defined()) continue;  // fn's output does not depend on this input
    auto [dst, accumulate] = c.input_grad_slot(i);
    if (accumulate)
      add_into(dst, g);  // the same Var passed twice: its second copy
    else
      std::memcpy(dst.raw(), g.raw(), g.nbytes());
  }
}

}  // namespace

bool recomputing() {
  return t_recomputing > 0;
}

std::size_t checkpoint_scratch_capacity() {
  std::size_t n = 0;
  for (const auto& s : t_scratch) n += s->tape.arena().capacity();
  return n;
}

Var detail::checkpoint(Tape& tape, std::int64_t kept_index, Recomputable& fn,
                       std::span<const Var> inputs, std::span<Generator* const> generators) {
  for (const Var& x : inputs) {
    if (!x.defined()) throw std::invalid_argument("checkpoint: an input Var is undefined");
    if (&x.tape() != &tape)
      throw std::logic_error(
          "checkpoint: an input Var belongs to a tape other than this thread's current one");
  }
  const std::size_t room = std::max<std::size_t>(generators.size(), 1);
  auto* listed =
      static_cast<Generator**>(tape.allocate(sizeof(Generator*) * room, alignof(Generator*)));
  auto* states = static_cast<Generator::State*>(
      tape.allocate(sizeof(Generator::State) * room, alignof(Generator::State)));
  std::size_t n = 0;
  for (Generator* g : generators)
    if (g) {
      listed[n] = g;
      states[n++] = g->state();
    }
  fn.generators = listed;
  fn.states = states;
  fn.n_generators = n;

  Tensor value;
  bool requires_grad = false;
  {
    ScratchScope s;
    for (const Var& x : inputs)
      s.scratch().inputs.push_back(x.requires_grad() ? s.tape().leaf(x.value())
                                                     : s.tape().constant(x.value()));
    Var out = run(fn, s);
    value = tape.alloc(out.shape(), out.dtype());
    std::memcpy(value.raw(), out.value().raw(), value.nbytes());
    requires_grad = out.requires_grad();
  }
  Node node;
  node.op = OpKind::checkpoint;
  node.value = value;
  node.backward = recompute_backward;
  node.ints[0] = kept_index;
  return tape.record(std::move(node), inputs, requires_grad);
}

}  // namespace ablate
