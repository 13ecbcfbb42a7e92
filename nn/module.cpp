#include "nn/module.h"

namespace ablate::nn {

namespace {
// An empty child name inlines the child: its parameters appear under the parent's
// prefix (how an attention module shows its W_q as "self_attn.w_q").
std::string join(const std::string& prefix, const std::string& name) {
  if (name.empty()) return prefix;
  return prefix.empty() ? name : prefix + "." + name;
}
}  // namespace

Parameter& Module::add_parameter(std::string name, Tensor value, bool requires_grad) {
  parameters_.emplace_back(std::move(name),
                           std::make_unique<Parameter>(std::move(value), requires_grad));
  return *parameters_.back().second;
}

Tensor& Module::add_buffer(std::string name, Tensor value) {
  buffers_.emplace_back(std::move(name), std::make_unique<Tensor>(std::move(value)));
  return *buffers_.back().second;
}

void Module::collect_parameters(const std::string& prefix,
                                std::vector<std::pair<std::string, Parameter*>>& out) const {
  for (const auto& [name, p] : parameters_) out.emplace_back(join(prefix, name), p.get());
  for (const auto& [name, child] : children_) child->collect_parameters(join(prefix, name), out);
}

void Module::collect_buffers(const std::string& prefix,
                             std::vector<std::pair<std::string, Tensor*>>& out) const {
  for (const auto& [name, b] : buffers_) out.emplace_back(join(prefix, name), b.get());
  for (const auto& [name, child] : children_) child->collect_buffers(join(prefix, name), out);
}

void Module::add_random_stream(std::string name, Generator& generator) {
  random_streams_.emplace_back(std::move(name), &generator);
}

void Module::collect_random_streams(const std::string& prefix,
                                    std::vector<std::pair<std::string, Generator*>>& out) const {
  for (const auto& [name, g] : random_streams_) out.emplace_back(join(prefix, name), g);
  for (const auto& [name, child] : children_)
    child->collect_random_streams(join(prefix, name), out);
}

std::vector<std::pair<std::string, Generator*>> Module::named_random_streams() const {
  std::vector<std::pair<std::string, Generator*>> out;
  collect_random_streams("", out);
  return out;
}

void Module::collect_modules(const std::string& prefix,
                             std::vector<std::pair<std::string, Module*>>& out) {
  out.emplace_back(prefix, this);
  for (const auto& [name, child] : children_) child->collect_modules(join(prefix, name), out);
}

std::vector<std::pair<std::string, Parameter*>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Parameter*>> out;
  collect_parameters("", out);
  return out;
}

std::vector<Parameter*> Module::parameters() const {
  std::vector<Parameter*> out;
  for (auto& [name, p] : named_parameters()) out.push_back(p);
  return out;
}

std::vector<std::pair<std::string, Tensor*>> Module::named_buffers() const {
  std::vector<std::pair<std::string, Tensor*>> out;
  collect_buffers("", out);
  return out;
}

std::vector<std::pair<std::string, Module*>> Module::named_modules() {
  std::vector<std::pair<std::string, Module*>> out;
  collect_modules("", out);
  return out;
}

Parameter* Module::find_parameter(const std::string& dotted_name) const {
  for (auto& [name, p] : named_parameters())
    if (name == dotted_name) return p;
  return nullptr;
}

void Module::train(bool on) {
  training_ = on;
  on_train(on);
  for (auto& [name, child] : children_) child->train(on);
}

void Module::set_requires_grad(bool on) {
  for (Parameter* p : parameters()) p->requires_grad = on;
}

std::int64_t Module::parameter_count(bool trainable_only) const {
  std::int64_t n = 0;
  for (Parameter* p : parameters())
    if (!trainable_only || p->requires_grad) n += p->value.numel();
  return n;
}

void Module::zero_grad() const {
  for (Parameter* p : parameters()) p->zero_grad();
}

void Module::to(DType dtype) {
  for (Parameter* p : parameters()) {
    p->value = p->value.to(dtype);
    p->grad = p->grad.to(dtype);
  }
  for (auto& [name, b] : named_buffers())
    if (is_floating(b->dtype())) *b = b->to(dtype);
}

}  // namespace ablate::nn
