#pragma once
// The tape: a thread-local Wengert list of the operations of one step.
//
// Each op computes its forward value into the tape's arena, appends one Node (its
// inputs, what its backward needs, and a pointer to its backward function) and
// returns a Var handle. backward(loss) walks the nodes once in reverse, accumulating
// gradients into each node's grad buffer and, for Parameter leaves, into
// Parameter::grad. reset() drops all nodes and rewinds the arena; the node vector and
// the arena keep their capacity, so a steady-state step allocates nothing.
//
// A Var carries its tape's generation; using it after reset() throws instead of
// reading freed memory.
#include <array>
#include <cstdint>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "autograd/arena.h"
#include "autograd/op_kind.h"
#include "autograd/parameter.h"
#include "autograd/tensor.h"

namespace ablate {

class Tape;
class BackwardContext;
using BackwardFn = void (*)(BackwardContext&);

struct Node {
  Tensor value;                   // forward result (arena memory, a Parameter's, or a constant's)
  void* grad = nullptr;           // d(output)/d(value), same shape/dtype, allocated on first use
  BackwardFn backward = nullptr;  // null for leaves and for nodes that need no gradient
  const std::uint32_t* inputs = nullptr;  // indices of input nodes (arena)
  std::uint32_t n_inputs = 0;
  OpKind op = OpKind::constant;
  bool requires_grad = false;
  bool persistent_grad = false;  // grad belongs to a Parameter and survives reset()
  bool retain_grad = false;      // keep grad readable after backward (Tape::retain_grad)
  std::array<Tensor, 3> saved;   // extra tensors backward needs (masks, statistics, indices)
  std::array<double, 2> scalars{};
  std::array<std::int64_t, 4> ints{};
};

class Var {
 public:
  Var() = default;

  bool defined() const { return tape_ != nullptr; }
  const Tensor& value() const;
  const Shape& shape() const { return value().shape(); }
  DType dtype() const { return value().dtype(); }
  std::int64_t numel() const { return value().numel(); }
  bool requires_grad() const;
  // The gradient accumulated by the last backward() (a view; undefined if no gradient
  // reached this Var). Valid until the tape is reset. For a Var computed by an op, call
  // Tape::retain_grad(var) before backward(): otherwise its buffer is recycled.
  Tensor grad() const;
  double item() const { return value().item(); }

  Tape& tape() const;
  std::uint32_t index() const { return index_; }

 private:
  friend class Tape;
  Var(Tape* tape, std::uint32_t index, std::uint32_t generation)
      : tape_(tape), index_(index), generation_(generation) {}
  Tape* tape_ = nullptr;
  std::uint32_t index_ = 0;
  std::uint32_t generation_ = 0;
};

class Tape {
 public:
  Tape();
  ~Tape();
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  // This thread's active tape (a thread-local default unless a TapeScope is open).
  static Tape& current();

  Var constant(const Tensor& value);  // no gradient flows into it
  Var leaf(Parameter& parameter);     // gradient accumulates into parameter.grad
  // A leaf that needs a gradient but is no Parameter (what checkpoint() turns its
  // inputs into): the gradient lives on this tape, allocated by its first
  // contribution, and Var::grad() reads it until reset().
  Var leaf(const Tensor& value);
  Var detach(const Var& x);  // same value, cut from the graph

  // Reverse sweep from a one-element `loss` (seeded with 1), or from any output with
  // an explicit upstream gradient of the same shape and dtype.
  void backward(const Var& loss);
  void backward(const Var& output, const Tensor& grad_output);
  // Keeps `v`'s gradient readable through Var::grad() after backward (like PyTorch's
  // retain_grad()). Without it, an op output's gradient buffer is handed to the next
  // gradient of the same size as soon as that op's backward has run, which keeps the
  // backward pass's memory at its live frontier instead of one buffer per node.
  void retain_grad(const Var& v);

  // Frees every activation at once; Vars made before become invalid.
  void reset();

  // Arena memory valid until reset().
  Tensor alloc(const Shape& shape, DType dtype);
  Tensor alloc_zeros(const Shape& shape, DType dtype);
  void* allocate(std::size_t bytes, std::size_t alignment = 64) {
    return arena_.allocate(bytes, alignment);
  }

  // Keeps an object that a node's backward needs besides tensors and numbers (the
  // closure of a checkpointed function) alive until reset(), which destroys it. It is
  // built in the arena, so a steady-state step allocates nothing for it. Returns its
  // index, for the node's ints; kept<T>(index) finds it again.
  template <class T>
  std::pair<std::int64_t, T*> keep(T&& object);
  template <class T>
  T& kept(std::int64_t index) const {
    return *static_cast<T*>(kept_.at(std::size_t(index)).object);
  }

  bool grad_enabled() const;
  std::size_t size() const { return nodes_.size(); }
  std::uint32_t generation() const { return generation_; }
  const Arena& arena() const { return arena_; }
  const Node& node(std::uint32_t index) const { return nodes_.at(index); }
  // The node behind `v`; throws if v belongs to another tape or an earlier generation.
  const Node& node(const Var& v) const;

  // For op implementations (see op_builder.h).
  Var record(Node&& node, std::span<const Var> inputs);
  // For a node whose need of a gradient its inputs do not decide (a checkpointed
  // function: its weights may need one when its inputs do not, and its output may need
  // none when they do): requires_grad as given, if gradients are being recorded.
  Var record(Node&& node, std::span<const Var> inputs, bool requires_grad);

 private:
  friend class Var;
  friend class BackwardContext;
  Node& checked(const Var& v);
  // record(): the inputs' indices in the arena (whether any needs a gradient in
  // any_grad), then the node appended.
  const std::uint32_t* input_ids(std::span<const Var> inputs, bool& any_grad);
  Var push(Node&& node, const std::uint32_t* ids, std::size_t n_inputs, bool requires_grad);
  void run_backward(std::uint32_t root);
  // An uninitialised gradient buffer: a recycled one of the same byte size, or arena memory.
  void* alloc_grad(const Tensor& like);
  void recycle_grad(Node& n);

  std::vector<Node> nodes_;
  // Recycled gradient buffers by byte size; capacity persists across steps.
  struct GradBucket {
    std::size_t bytes;
    std::vector<void*> free;
  };
  std::vector<GradBucket> grad_buckets_;
  struct Kept {
    void* object;
    void (*destroy)(void*);
  };
  std::vector<Kept> kept_;  // capacity persists across steps
  void destroy_kept();
  Arena arena_;
  std::uint32_t generation_ = 1;
};

template <class T>
std::pair<std::int64_t, T*> Tape::keep(T&& object) {
  using Object = std::remove_cvref_t<T>;
  static_assert(alignof(Object) <= 64, "Tape::keep: over-aligned type");
  auto* p = new (arena_.allocate(sizeof(Object), alignof(Object))) Object(std::forward<T>(object));
  kept_.push_back({p, [](void* o) { static_cast<Object*>(o)->~Object(); }});
  return {std::int64_t(kept_.size() - 1), p};
}

// Within its scope ops record no gradient information (like torch.no_grad()).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// Within its scope ops record gradient information again, even inside a NoGradGuard
// (like torch.enable_grad(); checkpoint's recompute, which a backward may run under
// NoGradGuard, uses it).
class EnableGradGuard {
 public:
  EnableGradGuard();
  ~EnableGradGuard();
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

// Makes `tape` this thread's current tape for the scope's lifetime.
class TapeScope {
 public:
  explicit TapeScope(Tape& tape);
  ~TapeScope();
  TapeScope(const TapeScope&) = delete;
  TapeScope& operator=(const TapeScope&) = delete;

 private:
  Tape* previous_;
};

// What a backward function sees of its node.
class BackwardContext {
 public:
  BackwardContext(Tape& tape, Node& node) : tape_(tape), node_(node) {}

  DType dtype() const { return node_.value.dtype(); }
  const Tensor& output() const { return node_.value; }
  Tensor output_grad() const;
  // True when nothing reads the output gradient after this backward (no retain_grad),
  // so the backward may transform it in place instead of copying it to scratch.
  bool output_grad_is_private() const { return !node_.retain_grad; }
  int num_inputs() const { return int(node_.n_inputs); }
  const Tensor& input(int i) const;
  bool needs_grad(int i) const;
  // True when input i's gradient buffer exists already: a Parameter's, or one that a
  // later consumer of the input has contributed to in this sweep. input_grad(i) then
  // returns that buffer as it is.
  bool has_input_grad(int i) const;
  // The gradient buffer of input i (zeroed when first used this sweep); backward
  // functions add into it.
  Tensor input_grad(int i);
  // For a backward that writes every element of input i's gradient: when this is the
  // first contribution of the sweep the buffer is left unzeroed and `accumulate` is
  // false (write with =), otherwise it is true (add with +=). Saves a memset and a
  // read of zeros per activation gradient.
  struct GradSlot {
    Tensor grad;
    bool accumulate;
  };
  GradSlot input_grad_slot(int i);
  const Tensor& saved(int i) const { return node_.saved[std::size_t(i)]; }
  // Arena memory for temporaries of the backward (valid until reset()).
  Tensor scratch(const Shape& shape, DType dtype) { return tape_.alloc(shape, dtype); }
  double scalar(int i) const { return node_.scalars[std::size_t(i)]; }
  std::int64_t integer(int i) const { return node_.ints[std::size_t(i)]; }
  // The object Tape::keep returned the index of, stored in ints[slot].
  template <class T>
  T& kept(int slot) const {
    return tape_.kept<T>(integer(slot));
  }

 private:
  Tape& tape_;
  Node& node_;
};

}  // namespace ablate
