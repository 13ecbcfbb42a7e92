#pragma once
// Module: the unit models are built from. A module registers its parameters, buffers
// (non-trained state such as BatchNorm's running statistics) and children in its
// constructor, under names; the dotted path of a parameter
// ("encoder.layers.0.self_attn.w_q.weight") is its name in checkpoints, telemetry
// and error messages. The forward is an ordinary member function taking and
// returning Vars; it records on Tape::current() through leaf(parameter).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.h"
#include "autograd/rng.h"

namespace ablate::nn {

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // Everything below, depth first in registration order, with dotted names.
  std::vector<std::pair<std::string, Parameter*>> named_parameters() const;
  std::vector<Parameter*> parameters() const;
  std::vector<std::pair<std::string, Tensor*>> named_buffers() const;
  std::vector<std::pair<std::string, Module*>> named_modules();  // "" is this module
  Parameter* find_parameter(const std::string& dotted_name) const;
  // The random generators the module draws from after it is built (dropout masks),
  // by dotted name: the state a resumed training run must continue.
  std::vector<std::pair<std::string, Generator*>> named_random_streams() const;

  // train() also switches every child; eval() is train(false).
  void train(bool on = true);
  void eval() { train(false); }
  bool training() const { return training_; }

  // Freezing: parameters keep their values and get no gradient.
  void freeze() { set_requires_grad(false); }
  void unfreeze() { set_requires_grad(true); }
  void set_requires_grad(bool on);

  std::int64_t parameter_count(bool trainable_only = false) const;
  void zero_grad() const;
  // Converts every parameter (and its gradient) and every floating buffer to dtype,
  // e.g. f64 for gradchecks.
  void to(DType dtype);

 protected:
  Parameter& add_parameter(std::string name, Tensor value, bool requires_grad = true);
  Tensor& add_buffer(std::string name, Tensor value);
  // A generator owned by this module (it must outlive the registration).
  void add_random_stream(std::string name, Generator& generator);
  // An empty name inlines the child's names into this module's (no extra level).
  template <class M>
  M& add_module(std::string name, std::unique_ptr<M> child) {
    M& ref = *child;
    children_.emplace_back(std::move(name), std::move(child));
    return ref;
  }
  // Called by train(); modules with mode-dependent state override it.
  virtual void on_train(bool) {}

 private:
  void collect_parameters(const std::string& prefix,
                          std::vector<std::pair<std::string, Parameter*>>& out) const;
  void collect_buffers(const std::string& prefix,
                       std::vector<std::pair<std::string, Tensor*>>& out) const;
  void collect_random_streams(const std::string& prefix,
                              std::vector<std::pair<std::string, Generator*>>& out) const;
  void collect_modules(const std::string& prefix,
                       std::vector<std::pair<std::string, Module*>>& out);

  std::vector<std::pair<std::string, std::unique_ptr<Parameter>>> parameters_;
  std::vector<std::pair<std::string, std::unique_ptr<Tensor>>> buffers_;
  std::vector<std::pair<std::string, std::unique_ptr<Module>>> children_;
  std::vector<std::pair<std::string, Generator*>> random_streams_;
  bool training_ = true;
};

}  // namespace ablate::nn
