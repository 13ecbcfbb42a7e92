#include "experiments/config/toml_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace ablate::experiments {

namespace {

// A TOML basic string: quotes, backslashes and control characters escaped; other
// UTF-8 kept as it is.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if ((unsigned char)c < 0x20 || c == 0x7f) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04X", unsigned((unsigned char)c));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

bool bare_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-'))
      return false;
  return true;
}

std::string key_text(std::string_view key) {
  return bare_key(key) ? std::string(key) : quoted(key);
}

void write_table(const toml::table& table, const std::string& path, std::string& out) {
  for (const auto& [key, value] : table)
    if (!value.is_table()) out += key_text(key.str()) + " = " + toml_value_text(value) + "\n";
  for (const auto& [key, value] : table)
    if (const toml::table* sub = value.as_table()) {
      const std::string sub_path = (path.empty() ? "" : path + ".") + key_text(key.str());
      out += (out.empty() ? "[" : "\n[") + sub_path + "]\n";
      write_table(*sub, sub_path, out);
    }
}

}  // namespace

std::string shortest_float_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";  // 3.0 stays a float
  return text;
}

std::string toml_value_text(const toml::node& value) {
  if (auto s = value.as_string()) return quoted(s->get());
  if (auto i = value.as_integer()) return std::to_string(i->get());
  if (auto f = value.as_floating_point()) return shortest_float_text(f->get());
  if (auto b = value.as_boolean()) return b->get() ? "true" : "false";
  if (auto array = value.as_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < array->size(); ++i)
      out += (i ? ", " : "") + toml_value_text(*array->get(i));
    return out + "]";
  }
  if (auto table = value.as_table()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, v] : *table) {
      out += (first ? " " : ", ") + key_text(key.str()) + " = " + toml_value_text(v);
      first = false;
    }
    return out + (first ? "}" : " }");
  }
  // Dates and times: no resolved config holds one.
  throw std::logic_error("toml_value_text: dates and times are not written");
}

std::string toml_document_text(const toml::table& table) {
  std::string out;
  write_table(table, "", out);
  return out;
}

// A swept value as the point label shows it: strings bare (also inside arrays and
// tables), everything else as toml_writer.h writes it.
std::string display_value(const toml::node& n) {
  std::ostringstream s;
  if (auto str = n.as_string()) {
    s << str->get();
  } else if (auto array = n.as_array()) {
    s << "[";
    for (std::size_t i = 0; i < array->size(); ++i)
      s << (i ? ", " : "") << display_value(*array->get(i));
    s << "]";
  } else if (auto table = n.as_table()) {
    s << "{";
    bool first = true;
    for (const auto& [key, value] : *table) {
      s << (first ? " " : ", ") << key.str() << " = " << display_value(value);
      first = false;
    }
    s << (first ? "}" : " }");
  } else {
    s << toml_value_text(n);
  }
  return s.str();
}

}  // namespace ablate::experiments
