#include "experiments/config/toml_reader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/config/suggestions.h"

namespace ablate::experiments {

std::pair<std::int64_t, std::int64_t> PositionIndex::original(
    const toml::source_position& p) const {
  const std::int64_t line = p.line, column = p.column;
  return {line, columns_ ? columns_->original(line, column) : column};
}

void PositionIndex::add(const toml::node& node, const std::string& path) {
  if (node.source().begin.line > 0) positions_[path] = original(node.source().begin);
  if (const toml::table* t = node.as_table())
    for (const auto& [k, v] : *t) {
      std::string child = path.empty() ? std::string(k.str()) : path + "." + std::string(k.str());
      add(v, child);
      // A key's own position is where a reader looks ("line 12, column 1: d_modl").
      if (k.source().begin.line > 0) positions_[child] = original(k.source().begin);
    }
  // The tables of an array of tables ([[report.claims]]) as path[0], path[1], ...
  if (const toml::array* a = node.as_array())
    for (std::size_t i = 0; i < a->size(); ++i)
      if ((*a)[i].is_table()) add((*a)[i], path + "[" + std::to_string(i) + "]");
}

std::pair<std::int64_t, std::int64_t> PositionIndex::find(const std::string& path) const {
  std::string p = path;
  while (true) {
    if (auto it = positions_.find(p); it != positions_.end()) return it->second;
    auto dot = p.rfind('.');
    if (dot == std::string::npos) break;
    p = p.substr(0, dot);
  }
  if (auto it = positions_.find(p); it != positions_.end()) return it->second;
  return {0, 0};
}

TomlReader::TomlReader(const toml::table* table, std::string path, std::string file,
                       std::vector<ConfigProblem>& problems, const PositionIndex& positions)
    : table_(table),
      path_(std::move(path)),
      file_(std::move(file)),
      problems_(problems),
      positions_(positions) {}

TomlReader TomlReader::child(const toml::table* table, const std::string& key) const {
  return TomlReader(table, key_path(key), file_, problems_, positions_);
}

void TomlReader::problem(const std::string& key, const std::string& message) {
  std::string path = key.empty() ? path_ : key_path(key);
  auto [line, column] = positions_.find(path);
  problems_.push_back({file_, line, column, path, message});
}

const toml::node* TomlReader::get(const std::string& key) {
  known_.insert(key);
  return table_ ? table_->get(key) : nullptr;
}

const toml::node* TomlReader::node(const std::string& key) {
  return get(key);
}

namespace {
std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}
}  // namespace

std::int64_t TomlReader::integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                                 std::int64_t max) {
  const toml::node* n = get(key);
  if (!n) return fallback;
  auto v = integer_value(*n);
  if (!v) {
    problem(key, "must be an integer, got " + type_name(*n));
    return fallback;
  }
  if (*v < min || *v > max) {
    problem(key, "= " + std::to_string(*v) + " is out of range (allowed " + std::to_string(min) +
                     " to " + std::to_string(max) + ")");
    return fallback;
  }
  return *v;
}

double TomlReader::number(const std::string& key, double fallback, double min, double max) {
  const toml::node* n = get(key);
  if (!n) return fallback;
  if (!n->is_number()) {
    problem(key, "must be a number, got " + type_name(*n));
    return fallback;
  }
  double v = *n->value<double>();
  if (!std::isfinite(v) || v < min || v > max) {
    std::ostringstream s;
    s << "= " << v << " is out of range (allowed " << min << " to " << max << ")";
    problem(key, s.str());
    return fallback;
  }
  return v;
}

bool TomlReader::boolean(const std::string& key, bool fallback) {
  const toml::node* n = get(key);
  if (!n) return fallback;
  if (!n->is_boolean()) {
    problem(key, "must be true or false, got " + type_name(*n));
    return fallback;
  }
  return *n->value<bool>();
}

std::string TomlReader::string(const std::string& key, const std::string& fallback,
                               const std::vector<std::string>& choices) {
  const toml::node* n = get(key);
  if (!n) return fallback;
  if (!n->is_string()) {
    problem(key, "must be a string, got " + type_name(*n));
    return fallback;
  }
  std::string v = *n->value<std::string>();
  if (!choices.empty() && std::find(choices.begin(), choices.end(), v) == choices.end()) {
    std::string msg = "\"" + v + "\" is not allowed; allowed:";
    for (const std::string& c : choices) msg += " " + c;
    if (auto m = closest_name(v, choices)) msg += " (did you mean '" + *m + "'?)";
    problem(key, msg);
    return fallback;
  }
  return v;
}

std::string TomlReader::required_string(const std::string& key,
                                        const std::vector<std::string>& choices) {
  if (!table_ || !table_->get(key)) {
    known_.insert(key);
    problem("", "missing required key '" + key + "'");
    return "";
  }
  return string(key, "", choices);
}

const toml::table* TomlReader::table(const std::string& key) {
  const toml::node* n = get(key);
  if (!n) return nullptr;
  if (!n->is_table()) {
    problem(key, "must be a table, got " + type_name(*n));
    return nullptr;
  }
  return n->as_table();
}

TomlDocument parse_experiment_file(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw ConfigError({{path, 0, 0, "",
                        "is a directory, not an experiment file (.toml); to write the reports "
                        "of a run directory: ablate report DIR"}});
  if (!std::filesystem::is_regular_file(path))
    throw ConfigError({{path, 0, 0, "", "cannot read the experiment file (no such file)"}});
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw ConfigError({{path, 0, 0, "", "cannot read the experiment file"}});
  return parse_toml_text(text.str(), path);
}

TomlDocument parse_toml_text(const std::string& text, const std::string& file) {
  AsciiToml ascii = ascii_toml(text, file);
  TomlDocument doc;
  doc.columns = std::make_shared<const SourceColumns>(std::move(ascii.columns));
  try {
    doc.table = toml::parse(ascii.text, file);
  } catch (const toml::parse_error& err) {
    const std::int64_t line = err.source().begin.line;
    throw ConfigError({{file, line, doc.columns->original(line, err.source().begin.column), "",
                        "not valid TOML: " + std::string(err.description())}});
  }
  return doc;
}

std::optional<std::int64_t> integer_value(const toml::node& n) {
  if (auto i = n.as_integer()) return i->get();
  return std::nullopt;
}

std::optional<nn::OptionValue> option_value(const toml::node& n) {
  if (auto b = n.as_boolean()) return nn::OptionValue(b->get());
  if (auto i = n.as_integer()) return nn::OptionValue(i->get());
  if (auto f = n.as_floating_point()) return nn::OptionValue(f->get());
  if (auto s = n.as_string()) return nn::OptionValue(s->get());
  return std::nullopt;
}

nn::Options TomlReader::remaining_as_options() {
  nn::Options out;
  if (!table_) return out;
  for (const auto& [k, v] : *table_) {
    std::string key(k.str());
    if (known_.count(key)) continue;
    known_.insert(key);
    if (auto o = option_value(v))
      out.set(key, *o);
    else
      problem(key, "must be a single value (string, number or boolean), got " + type_name(v));
  }
  return out;
}

void TomlReader::unknown_name(const std::string& key, const std::string& what,
                              const std::vector<std::string>& allowed, bool is_table) {
  const std::vector<std::string> listed = listed_keys(allowed);
  if (auto m = closest_name(key, listed)) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "[" + std::string.
    std::string msg = what;
    msg += " (did you mean ";
    msg += is_table ? '[' : '\'';
    msg += is_table ? key_path(*m) : *m;
    msg += is_table ? ']' : '\'';
    msg += "?)";
    problem(key, msg);
    return;
  }
  std::string msg = what + kAllowedHere;
  for (const std::string& c : listed) msg += " " + c;
  problem(key, msg);
}

void TomlReader::finish() {
  if (!table_) return;
  const std::vector<std::string> known = known_keys();
  for (const auto& [k, v] : *table_) {
    std::string key(k.str());
    if (known_.count(key)) continue;
    const bool is_table = v.is_table() && !v.as_table()->is_inline();
    unknown_name(key, is_table ? "unknown table" : "unknown key", known, is_table);
  }
}

}  // namespace ablate::experiments
