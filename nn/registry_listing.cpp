#include "nn/registry_listing.h"

#include <sstream>

#include "nn/attention/query_key.h"
#include "nn/attention/score_scale.h"
#include "nn/attention/value.h"
#include "nn/feed_forward.h"
#include "nn/norms/norm.h"
#include "nn/optim/optimizer.h"
#include "nn/optim/schedule.h"
#include "nn/positions/position_encoding.h"

namespace ablate::nn {

namespace {

template <class R>
AxisInfo describe(const R& registry) {
  AxisInfo axis{registry.axis(), {}};
  for (const auto& e : registry.entries())
    axis.components.push_back({e.name, e.description, e.options});
  return axis;
}

}  // namespace

PluginRegistrations*& plugin_registrations() {
  static PluginRegistrations* current = nullptr;
  return current;
}

std::vector<AxisInfo> registry_listing() {
  return {describe(query_key_registry()),   describe(value_registry()),
          describe(score_scale_registry()), describe(position_registry()),
          describe(norm_registry()),        describe(feed_forward_registry()),
          describe(optimizer_registry()),   describe(schedule_registry())};
}

std::optional<std::vector<OptionSpec>> component_options(const std::string& axis,
                                                         const std::string& name) {
  for (const AxisInfo& a : registry_listing())
    if (a.axis == axis)
      for (const ComponentInfo& c : a.components)
        if (c.name == name) return c.options;
  return std::nullopt;
}

std::string format_registry_listing() {
  std::ostringstream s;
  for (const AxisInfo& a : registry_listing()) {
    s << a.axis << "\n";
    for (const ComponentInfo& c : a.components) {
      s << "  " << c.name << std::string(c.name.size() < 16 ? 16 - c.name.size() : 1, ' ')
        << c.description << "\n";
      for (const OptionSpec& o : c.options) {
        s << "      " << o.key << " = " << option_to_string(o.default_value) << "  (" << o.doc;
        if (o.min || o.max) {
          s << "; range ";
          if (o.min)
            s << *o.min;
          else
            s << "-inf";
          s << " .. ";
          if (o.max)
            s << *o.max;
          else
            s << "inf";
        }
        if (!o.choices.empty()) {
          s << "; one of";
          for (const std::string& ch : o.choices) s << " " << ch;
        }
        s << ")\n";
      }
    }
  }
  return s.str();
}

}  // namespace ablate::nn
