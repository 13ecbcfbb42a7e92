#include "nn/optim/optimizer.h"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace ablate::nn {

namespace {
const std::string kPrefix = "optimizer.";
const std::string kStepKey = "optimizer.step";
}  // namespace

Optimizer::Optimizer(const NamedParameters& parameters) {
  std::set<std::string> names;
  std::map<const Parameter*, std::string> seen;
  for (const auto& [name, p] : parameters) {
    if (!p) throw std::invalid_argument("optimizer: parameter '" + name + "' is null");
    if (!names.insert(name).second)
      throw std::invalid_argument("optimizer: parameter name '" + name + "' given twice");
    // Updating one tensor twice per step would silently double its learning rate.
    if (auto [it, fresh] = seen.emplace(p, name); !fresh)
      throw std::invalid_argument("optimizer: parameter '" + name + "' is the same Parameter as '" +
                                  it->second + "'");
    if (!is_floating(p->value.dtype()))
      throw std::invalid_argument("optimizer: parameter '" + name + "' has dtype " +
                                  dtype_name(p->value.dtype()) + "; only f32 and f64 train");
    if (!(p->grad.shape() == p->value.shape()) || p->grad.dtype() != p->value.dtype())
      throw std::invalid_argument("optimizer: parameter '" + name + "' has a gradient of " +
                                  p->grad.shape().str() + " " + dtype_name(p->grad.dtype()) +
                                  " but a value of " + p->value.shape().str() + " " +
                                  dtype_name(p->value.dtype()));
    if (p->requires_grad) states_.push_back({name, p, 0, {}});
  }
}

void Optimizer::add_slot(const std::string& slot_name) {
  for (ParameterState& s : states_)
    s.slots.emplace_back(slot_name,
                         Tensor::zeros(s.parameter->value.shape(), s.parameter->value.dtype()));
}

void Optimizer::step(double lr) {
  if (!std::isfinite(lr) || lr < 0)
    throw std::invalid_argument("optimizer step: the learning rate must be finite and >= 0, got " +
                                option_to_string(lr));
  ++steps_;
  for (ParameterState& s : states_) {
    if (!s.parameter->requires_grad) continue;
    ++s.updates;
    update(s, lr);
  }
}

void Optimizer::zero_grad() const {
  for (const ParameterState& s : states_) s.parameter->zero_grad();
}

NamedParameters Optimizer::parameters() const {
  NamedParameters out;
  for (const ParameterState& s : states_) out.emplace_back(s.name, s.parameter);
  return out;
}

NamedTensors Optimizer::state() const {
  NamedTensors out;
  for (const ParameterState& s : states_)
    for (const auto& [slot, t] : s.slots) out.emplace_back(kPrefix + s.name + "." + slot, t);
  out.emplace_back(kStepKey, Tensor::full({1}, double(steps_), DType::f64));
  return out;
}

void Optimizer::load_state(const NamedTensors& state) {
  std::map<std::string, const Tensor*> given;
  std::vector<std::string> problems;
  for (const auto& [name, t] : state) {
    if (name.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    if (!given.emplace(name, &t).second) problems.push_back("'" + name + "' given twice");
  }

  std::int64_t step = 0;
  if (auto it = given.find(kStepKey); it == given.end()) {
    problems.push_back("missing '" + kStepKey + "'");
  } else {
    const Tensor& t = *it->second;
    double v = t.numel() == 1 ? t.at(0) : -1;
    if (t.numel() != 1 || !(v >= 0) || v != std::floor(v) || v > 9.0e15)
      problems.push_back("'" + kStepKey + "' must be one non-negative whole number, got " +
                         t.str());
    else
      step = std::int64_t(v);
    given.erase(it);
  }

  std::set<std::string> slot_keys;
  for (const ParameterState& s : states_) {
    for (const auto& [slot, mine] : s.slots) {
      std::string key = kPrefix + s.name + "." + slot;
      slot_keys.insert(key);
      auto it = given.find(key);
      if (it == given.end()) {
        problems.push_back("missing '" + key + "'");
        continue;
      }
      const Tensor& t = *it->second;
      if (!(t.shape() == mine.shape()))
        problems.push_back("'" + key + "' has shape " + t.shape().str() + ", expected " +
                           mine.shape().str());
      else if (!is_floating(t.dtype()))
        problems.push_back("'" + key + "' has dtype " + dtype_name(t.dtype()) +
                           ", expected f32 or f64");
    }
  }
  // What is left over belongs to no slot of this optimizer: a different model, a
  // different optimizer kind, or a parameter that is frozen here.
  for (const auto& [name, t] : given)
    if (!slot_keys.count(name)) problems.push_back("unexpected '" + name + "'");

  if (!problems.empty()) {
    std::string msg = "optimizer load_state:";
    for (std::size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : " ") + problems[i];
    throw std::invalid_argument(msg);
  }
  for (ParameterState& s : states_) {
    for (auto& [slot, mine] : s.slots) mine.copy_from(*given.at(kPrefix + s.name + "." + slot));
    s.updates = step;
  }
  steps_ = step;
}

OptimizerRegistry& optimizer_registry() {
  static OptimizerRegistry registry = [] {
    OptimizerRegistry r("optimizer");
    register_sgd(r);
    register_adam(r);
    return r;
  }();
  return registry;
}

}  // namespace ablate::nn
