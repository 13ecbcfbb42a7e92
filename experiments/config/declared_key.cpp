#include "experiments/config/declared_key.h"

#include <cmath>
#include <type_traits>
#include <variant>

#include "experiments/config/toml_writer.h"

namespace ablate::experiments {

nn::OptionValue read_declared(TomlReader& r, const nn::OptionSpec& s) {
  constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min(),
                         kHighest = std::numeric_limits<std::int64_t>::max();
  return std::visit(
      [&](const auto& fallback) -> nn::OptionValue {
        using T = std::decay_t<decltype(fallback)>;
        if constexpr (std::is_same_v<T, bool>) {
          return r.boolean(s.key, fallback);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return r.integer(s.key, fallback, s.min ? std::int64_t(*s.min) : kLowest,
                           s.max && *s.max < kMaxDeclaredInt ? std::int64_t(*s.max) : kHighest);
        } else if constexpr (std::is_same_v<T, double>) {
          return r.number(s.key, fallback, s.min ? *s.min : -INFINITY, s.max ? *s.max : INFINITY);
        } else {
          return r.string(s.key, fallback, s.choices);
        }
      },
      s.default_value);
}

std::string declared_type_name(const nn::OptionValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>)
          return "bool";
        else if constexpr (std::is_same_v<T, std::int64_t>)
          return "integer";
        else if constexpr (std::is_same_v<T, double>)
          return "float";
        else
          return "string";
      },
      v);
}

namespace {

// A declared bound as a reader wants it: ±1e300 are "no bound" (∞), a tiny positive
// lower bound is "above 0".
std::string bound(double v) {
  if (v >= 1e300) return "∞";
  if (v <= -1e300) return "−∞";
  if (v >= kMaxDeclaredInt) return "2⁶³−1";
  if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(std::int64_t(v));
  return shortest_float_text(v);
}

}  // namespace

std::string declared_value_text(const nn::OptionValue& v) {
  if (const double* d = std::get_if<double>(&v)) return shortest_float_text(*d);
  return nn::option_to_string(v);
}

std::string declared_allowed(const nn::OptionSpec& s) {
  if (!s.choices.empty()) {
    std::string out;
    for (const std::string& c : s.choices) out += (out.empty() ? "" : ", ") + ("`" + c + "`");
    return out;
  }
  if (s.min && s.max && *s.min <= -1e300 && *s.max >= 1e300) return "any number";
  if (s.min && *s.min > 0 && *s.min < 1e-200)
    return s.max && *s.max < 1e300 ? "> 0, ≤ " + bound(*s.max) : "> 0";
  if (s.min || s.max) return (s.min ? bound(*s.min) : "−∞") + " – " + (s.max ? bound(*s.max) : "∞");
  return "";
}

void add_path_words(const std::string& path, std::set<std::string>& words) {
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    words.insert(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
}

}  // namespace ablate::experiments
