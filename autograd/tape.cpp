#include "autograd/tape.h"

#include <cstring>
#include <string>

namespace ablate {

namespace {
thread_local Tape* t_current = nullptr;
thread_local bool t_grad_enabled = true;
}  // namespace

Parameter::Parameter(Tensor initial_value, bool requires_grad_)
    : value(std::move(initial_value)),
      grad(Tensor::zeros(value.shape(), value.dtype())),
      requires_grad(requires_grad_) {}

// ---- Var ------------------------------------------------------------------------

Tape& Var::tape() const {
  if (!tape_) throw std::logic_error("Var is undefined (default-constructed)");
  return *tape_;
}

const Tensor& Var::value() const {
  return tape().node(*this).value;
}

bool Var::requires_grad() const {
  return tape().node(*this).requires_grad;
}

Tensor Var::grad() const {
  const Node& n = tape().node(*this);
  if (!n.grad) return Tensor();
  return Tensor::view(n.grad, n.value.shape(), n.value.dtype());
}

// ---- Tape -----------------------------------------------------------------------

Tape::Tape() {
  nodes_.reserve(4096);
}

Tape::~Tape() {
  destroy_kept();
}

Tape& Tape::current() {
  if (t_current) return *t_current;
  thread_local Tape default_tape;
  return default_tape;
}

bool Tape::grad_enabled() const {
  return t_grad_enabled;
}

const Node& Tape::node(const Var& v) const {
  if (v.tape_ != this)
    throw std::logic_error("Var belongs to a different tape than the one it is used with");
  if (v.generation_ != generation_)
    throw std::logic_error("Var used after its tape was reset: it was made in generation " +
                           std::to_string(v.generation_) + ", the tape is now at generation " +
                           std::to_string(generation_) +
                           " (keep a Tensor copy, value().clone(), across reset())");
  return nodes_[v.index_];
}

Node& Tape::checked(const Var& v) {
  return const_cast<Node&>(node(v));
}

Var Tape::record(Node&& node, std::span<const Var> inputs) {
  bool any_grad = false;
  const std::uint32_t* ids = input_ids(inputs, any_grad);
  return push(std::move(node), ids, inputs.size(), any_grad);
}

Var Tape::record(Node&& node, std::span<const Var> inputs, bool requires_grad) {
  bool any_grad = false;
  const std::uint32_t* ids = input_ids(inputs, any_grad);
  return push(std::move(node), ids, inputs.size(), requires_grad);
}

const std::uint32_t* Tape::input_ids(std::span<const Var> inputs, bool& any_grad) {
  auto* ids = static_cast<std::uint32_t*>(
      arena_.allocate(sizeof(std::uint32_t) * std::max<std::size_t>(inputs.size(), 1), 4));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Node& in = this->node(inputs[i]);  // checks the tape and the generation
    ids[i] = inputs[i].index_;
    any_grad = any_grad || in.requires_grad;
  }
  return ids;
}

Var Tape::push(Node&& node, const std::uint32_t* ids, std::size_t n_inputs, bool requires_grad) {
  node.inputs = ids;
  node.n_inputs = std::uint32_t(n_inputs);
  node.requires_grad = requires_grad && t_grad_enabled && node.backward != nullptr;
  if (!node.requires_grad) node.backward = nullptr;
  nodes_.push_back(std::move(node));
  return Var(this, std::uint32_t(nodes_.size() - 1), generation_);
}

Var Tape::constant(const Tensor& value) {
  Node n;
  n.value = value;
  n.op = OpKind::constant;
  return record(std::move(n), {});
}

Var Tape::leaf(Parameter& p) {
  Node n;
  n.value = p.value;
  n.op = OpKind::leaf;
  Var v = record(std::move(n), {});
  Node& stored = nodes_.back();
  stored.requires_grad = p.requires_grad && t_grad_enabled;
  if (stored.requires_grad) {
    if (!(p.grad.shape() == p.value.shape()) || p.grad.dtype() != p.value.dtype())
      p.grad = Tensor::zeros(p.value.shape(), p.value.dtype());
    stored.grad = p.grad.raw();
    stored.persistent_grad = true;
  }
  return v;
}

Var Tape::leaf(const Tensor& value) {
  Node n;
  n.value = value;
  n.op = OpKind::leaf;
  Var v = record(std::move(n), {});
  nodes_.back().requires_grad = t_grad_enabled;
  return v;
}

Var Tape::detach(const Var& x) {
  Node n;
  n.value = node(x).value;
  n.op = OpKind::detach;
  return record(std::move(n), {});
}

Tensor Tape::alloc(const Shape& shape, DType dtype) {
  std::size_t bytes = std::size_t(shape.numel()) * dtype_size(dtype);
  return Tensor::view(arena_.allocate(bytes), shape, dtype);
}

Tensor Tape::alloc_zeros(const Shape& shape, DType dtype) {
  Tensor t = alloc(shape, dtype);
  std::memset(t.raw(), 0, t.nbytes());
  return t;
}

void Tape::backward(const Var& loss) {
  const Node& n = node(loss);
  if (n.value.numel() != 1)
    throw ShapeError("backward: the loss must have one element, got shape " +
                     n.value.shape().str() + " (pass an explicit output gradient instead)");
  Tensor seed = alloc(n.value.shape(), n.value.dtype());
  seed.fill(1.0);
  backward(loss, seed);
}

void Tape::backward(const Var& output, const Tensor& grad_output) {
  Node& root = checked(output);
  require_same_shape(root.value.shape(), grad_output.shape(), "backward", "output gradient");
  if (grad_output.dtype() != root.value.dtype())
    throw std::invalid_argument(std::string("backward: output gradient has dtype ") +
                                dtype_name(grad_output.dtype()) + ", the output has " +
                                dtype_name(root.value.dtype()));
  if (!root.requires_grad)
    throw std::logic_error(
        "backward: the output does not require grad (no input to it requires grad, or it "
        "was computed under NoGradGuard)");
  for (Node& n : nodes_)
    if (!n.persistent_grad) n.grad = nullptr;
  for (GradBucket& b : grad_buckets_) b.free.clear();
  if (!root.grad) {
    // A copy, not 0 + g: the seed is the gradient bit for bit (-0 stays -0), as when
    // the consumers of `output` had been on this tape (checkpoint relies on it).
    root.grad = alloc_grad(root.value);
    std::memcpy(root.grad, grad_output.raw(), root.value.nbytes());
  } else {
    Tensor g = Tensor::view(root.grad, root.value.shape(), root.value.dtype());
    dispatch_float(g.dtype(), "backward", [&]<class T>() {
      T* dst = g.data<T>();
      const T* src = grad_output.data<T>();
      for (std::int64_t i = 0, n = g.numel(); i < n; ++i) dst[i] += src[i];
    });
  }
  run_backward(output.index_);
}

void Tape::run_backward(std::uint32_t root) {
  for (std::int64_t i = root; i >= 0; --i) {
    Node& n = nodes_[std::size_t(i)];
    if (!n.backward || !n.grad) continue;
    BackwardContext ctx(*this, n);
    n.backward(ctx);
    // Every consumer of n ran before n (they come later on the tape), so n's gradient
    // is complete and, once n's backward has read it, dead.
    recycle_grad(n);
  }
}

void Tape::retain_grad(const Var& v) {
  checked(v).retain_grad = true;
}

void* Tape::alloc_grad(const Tensor& like) {
  std::size_t bytes = like.nbytes();
  for (GradBucket& b : grad_buckets_)
    if (b.bytes == bytes && !b.free.empty()) {
      void* p = b.free.back();
      b.free.pop_back();
      return p;
    }
  return arena_.allocate(bytes);
}

void Tape::recycle_grad(Node& n) {
  if (n.persistent_grad || n.retain_grad || !n.grad) return;
  std::size_t bytes = n.value.nbytes();
  GradBucket* bucket = nullptr;
  for (GradBucket& b : grad_buckets_)
    if (b.bytes == bytes) bucket = &b;
  if (!bucket) bucket = &grad_buckets_.emplace_back(GradBucket{bytes, {}});
  bucket->free.push_back(n.grad);
  n.grad = nullptr;
}

void Tape::destroy_kept() {
  for (auto k = kept_.rbegin(); k != kept_.rend(); ++k) k->destroy(k->object);
  kept_.clear();
}

void Tape::reset() {
  for (GradBucket& b : grad_buckets_) b.free.clear();  // they pointed into the arena
  destroy_kept();                                      // before the arena they live in
  nodes_.clear();
  arena_.reset();
  ++generation_;
}

// ---- scopes -----------------------------------------------------------------------

NoGradGuard::NoGradGuard() : previous_(t_grad_enabled) {
  t_grad_enabled = false;
}
NoGradGuard::~NoGradGuard() {
  t_grad_enabled = previous_;
}

EnableGradGuard::EnableGradGuard() : previous_(t_grad_enabled) {
  t_grad_enabled = true;
}
EnableGradGuard::~EnableGradGuard() {
  t_grad_enabled = previous_;
}

TapeScope::TapeScope(Tape& tape) : previous_(t_current) {
  t_current = &tape;
}
TapeScope::~TapeScope() {
  t_current = previous_;
}

// ---- BackwardContext ------------------------------------------------------------

Tensor BackwardContext::output_grad() const {
  return Tensor::view(node_.grad, node_.value.shape(), node_.value.dtype());
}

const Tensor& BackwardContext::input(int i) const {
  return tape_.nodes_[node_.inputs[i]].value;
}

bool BackwardContext::needs_grad(int i) const {
  return tape_.nodes_[node_.inputs[i]].requires_grad;
}

bool BackwardContext::has_input_grad(int i) const {
  return tape_.nodes_[node_.inputs[i]].grad != nullptr;
}

Tensor BackwardContext::input_grad(int i) {
  Node& in = tape_.nodes_[node_.inputs[i]];
  if (!in.grad) {
    in.grad = tape_.alloc_grad(in.value);
    std::memset(in.grad, 0, in.value.nbytes());
  }
  return Tensor::view(in.grad, in.value.shape(), in.value.dtype());
}

BackwardContext::GradSlot BackwardContext::input_grad_slot(int i) {
  Node& in = tape_.nodes_[node_.inputs[i]];
  bool fresh = !in.grad;
  if (fresh) in.grad = tape_.alloc_grad(in.value);
  return {Tensor::view(in.grad, in.value.shape(), in.value.dtype()), !fresh};
}

}  // namespace ablate
