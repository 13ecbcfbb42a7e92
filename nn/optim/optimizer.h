#pragma once
// Optimizers, the "optimizer" axis: sgd | adam | adamw. An optimizer updates the
// trainable parameters it was given from their accumulated gradients; the learning
// rate is an argument of step() because the schedule (schedule.h) owns it.
//
// Per-parameter state ("slots": momentum buffers, moment estimates) is allocated once,
// when the optimizer is built, with the parameter's shape and dtype (so build it after
// Module::to(dtype)); step() then never touches the heap. state()/load_state() expose
// the slots for checkpoints as "optimizer.<parameter name>.<slot>" plus the step count
// "optimizer.step".
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "autograd/parameter.h"
#include "nn/registry.h"

namespace ablate::nn {

using NamedParameters = std::vector<std::pair<std::string, Parameter*>>;
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class Optimizer {
 public:
  // Keeps the parameters whose requires_grad is set now (as PyTorch users pass
  // filter(requires_grad, ...)); a frozen one is never updated and has no state. One
  // that is frozen later is skipped by step() until unfrozen. Throws on a null or
  // non-floating parameter, and on a parameter or name given twice.
  explicit Optimizer(const NamedParameters& parameters);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update with learning rate lr (finite, >= 0) from the current gradients.
  void step(double lr);
  // Sets the gradients of this optimizer's parameters to zero.
  void zero_grad() const;
  // Updates performed so far (restored by load_state).
  std::int64_t steps() const { return steps_; }

  // The parameters it updates, in the order given.
  NamedParameters parameters() const;

  // The slots as "optimizer.<parameter>.<slot>" (aliasing the live tensors: clone to
  // keep a snapshot) and a one-element f64 "optimizer.step".
  NamedTensors state() const;
  // Copies every "optimizer.*" entry of `state` into the slots (other entries, such as
  // model weights from the same checkpoint, are ignored; dtypes are converted). Throws
  // std::invalid_argument naming every missing, unexpected or mis-shaped entry, and
  // changes nothing then. Every parameter's update count becomes the loaded step.
  void load_state(const NamedTensors& state);

 protected:
  struct ParameterState {
    std::string name;
    Parameter* parameter;
    // Updates of this parameter. Equals steps() unless it was frozen for some steps;
    // PyTorch keeps the same per-parameter count (Adam's bias correction, SGD's
    // first momentum step).
    std::int64_t updates = 0;
    std::vector<std::pair<std::string, Tensor>> slots;  // name → zeros like the parameter
  };

  // Subclasses call this in their constructor once per slot name; slot i of every
  // parameter is then ParameterState::slots[i].second.
  void add_slot(const std::string& slot_name);
  // Updates one parameter; `s.updates` already counts this update (1 on the first).
  virtual void update(ParameterState& s, double lr) = 0;

 private:
  std::vector<ParameterState> states_;
  std::int64_t steps_ = 0;
};

using OptimizerRegistry = Registry<Optimizer, NamedParameters>;
OptimizerRegistry& optimizer_registry();

void register_sgd(OptimizerRegistry&);
void register_adam(OptimizerRegistry&);  // "adam" and "adamw"

}  // namespace ablate::nn
