#pragma once
// Registries of swappable components, one per axis ("positions", "norm",
// "attention.qk", ...). An entry is a name, a one-line description, the schema of its
// options and a factory. Experiments sweep an axis by naming entries; a new variant is
// one file with its class and factory plus one registration line.
//
// Library components are registered in the axis's registry function (a list of one
// line per component). Code outside the library registers with ABLATE_REGISTER in its
// own .cpp file, which runs when its program starts or its plugin is loaded
// (ablate_add_plugin, nn/README.md):
//
//   ABLATE_REGISTER(ablate::nn::position_registry(), {"my_positions", "what it does",
//                   {/* OptionSpecs */}, [](const Options& o, const BuildContext& c) {
//                     return std::make_unique<MyPositions>(o, c); }});
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nn/options.h"

namespace ablate::nn {

// While a plugin's shared module loads, its ABLATE_REGISTER lines report here instead
// of throwing: what each adds ("norm: scale") and the names that clash with a
// component already registered (a throw from a static initializer would terminate the
// process). Null outside a load; set by experiments/plugins/plugin.h.
struct PluginRegistrations {
  std::vector<std::string> added;    // "axis: name"
  std::vector<std::string> clashes;  // "axis: name"
};
PluginRegistrations*& plugin_registrations();

template <class Product, class... Args>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Product>(const Options&, Args...)>;
  struct Entry {
    std::string name;
    std::string description;
    std::vector<OptionSpec> options;
    Factory factory;
  };

  explicit Registry(std::string axis) : axis_(std::move(axis)) {}

  const std::string& axis() const { return axis_; }

  void add(Entry entry) {
    PluginRegistrations* plugin = plugin_registrations();
    if (find(entry.name)) {
      if (!plugin)
        throw std::logic_error(axis_ + ": component '" + entry.name + "' registered twice");
      plugin->clashes.push_back(axis_ + ": " + entry.name);
      return;
    }
    if (plugin) plugin->added.push_back(axis_ + ": " + entry.name);
    entries_.push_back(std::move(entry));
  }

  const Entry* find(const std::string& name) const {
    for (const Entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }

  // Throws std::invalid_argument naming the axis, the unknown name and the allowed ones.
  const Entry& at(const std::string& name) const {
    if (const Entry* e = find(name)) return *e;
    std::string msg = axis_ + ": unknown component '" + name + "'";
    if (auto m = did_you_mean(name, names())) msg += " (did you mean '" + *m + "'?)";
    msg += "; allowed:";
    for (const std::string& n : names()) msg += " " + n;
    throw std::invalid_argument(msg);
  }

  // Validates the options (OptionError lists every problem) and builds the component.
  std::unique_ptr<Product> create(const std::string& name, const Options& given,
                                  Args... args) const {
    const Entry& e = at(name);
    std::vector<OptionIssue> issues;
    Options resolved = resolve_options(e.options, given, issues);
    if (!issues.empty()) throw OptionError(axis_ + " '" + name + "'", std::move(issues));
    return e.factory(resolved, std::forward<Args>(args)...);
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Entry& e : entries_) out.push_back(e.name);
    return out;
  }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::string axis_;
  std::vector<Entry> entries_;
};

#define ABLATE_REGISTRY_CONCAT_INNER(a, b) a##b
#define ABLATE_REGISTRY_CONCAT(a, b) ABLATE_REGISTRY_CONCAT_INNER(a, b)
#define ABLATE_REGISTER(registry, ...)                                          \
  static const bool ABLATE_REGISTRY_CONCAT(ablate_registered_, __LINE__) = [] { \
    (registry).add(__VA_ARGS__);                                                \
    return true;                                                                \
  }()

}  // namespace ablate::nn
