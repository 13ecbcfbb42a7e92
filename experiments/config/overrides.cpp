#include "experiments/config/overrides.h"

#include <optional>

#include "experiments/config/toml_reader.h"

namespace ablate::experiments {

std::string dotted_key(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ".") + k;
  return out;
}

namespace {

std::string trimmed(const std::string& s) {
  const std::size_t first = s.find_first_not_of(" \t"), last = s.find_last_not_of(" \t");
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

// The key path of a parsed `key = value` line: down through the tables its dotted key
// made (an inline table after `=` is the value itself). Empty when it sets more than
// one key.
std::vector<std::string> key_path_of(const toml::table& line) {
  std::vector<std::string> keys;
  const toml::table* t = &line;
  while (t && t->size() == 1) {
    auto only = t->begin();
    keys.push_back(std::string(only->first.str()));
    const toml::table* below = only->second.as_table();
    t = below && !below->is_inline() ? below : nullptr;
  }
  if (t) keys.clear();
  return keys;
}

// A value as the command line gives it: a TOML value when the text is one, else the
// text itself as a string (a bare word: `rms`, `ten`, `data/a.tsv`). Text opening a
// TOML array, table or string must be one (null then).
std::optional<toml::table> command_line_value(const std::string& text) {
  try {
    return parse_toml_text("v = " + text + "\n", "value").table;
  } catch (const ConfigError&) {
    if (text.empty() || std::string("[{\"'").find(text.front()) != std::string::npos)
      return std::nullopt;
    return toml::table{{"v", text}};
  }
}

}  // namespace

std::vector<std::string> comma_items(const std::string& value) {
  std::vector<std::string> items(1);
  int depth = 0;
  char quote = 0;
  for (char c : value) {
    if (quote)
      quote = c == quote ? 0 : quote;
    else if (c == '"' || c == '\'')
      quote = c;
    else if (c == '[' || c == '{')
      ++depth;
    else if (c == ']' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      items.emplace_back();
      continue;
    }
    items.back() += c;
  }
  for (std::string& item : items) item = trimmed(item);
  return items;
}

namespace {

// One override: the whole text as a TOML line (`train.lr=3e-4`, `'sweep.seeds=[0,1]'`),
// else KEY=VALUE with VALUE bare words or a comma list of values. Returns "" or what is
// wrong with it.
std::string parse_override(const std::string& text, Override& o) {
  o.text = text;
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos)
    return "expected key=value (e.g. train.steps=2000 or model.norm.kind=rms)";
  const std::string key_text = trimmed(text.substr(0, eq)), value = trimmed(text.substr(eq + 1));
  if (value.empty()) return "no value after '=' (an empty string is key=\"\")";
  const std::string where = "override '" + text + "'";
  const char* several = "sets more than one key; give one key=value per argument";
  std::string not_toml;
  try {
    o.value = parse_toml_text(text + "\n", where).table;
    o.keys = key_path_of(o.value);
    return o.keys.empty() ? several : "";
  } catch (const ConfigError& e) {
    not_toml = e.problems().front().message;
  }
  // Not a TOML line: the key on its own, and the value as words.
  try {
    o.keys = key_path_of(parse_toml_text(key_text + " = 0\n", where).table);
  } catch (const ConfigError&) {
    return not_toml;
  }
  if (o.keys.empty()) return several;
  const std::vector<std::string> items = comma_items(value);
  toml::array values;
  for (const std::string& item : items) {
    if (item.empty()) return "an empty value in the comma list '" + value + "'";
    std::optional<toml::table> v = command_line_value(item);
    if (!v) return not_toml;
    values.push_back(*v->get("v"));
  }
  o.multirun = items.size() > 1;
  o.value = toml::table{};
  if (o.multirun) return set_key_path(o.value, o.keys, values);
  return set_key_path(o.value, o.keys, values[0]);
}

}  // namespace

std::vector<Override> parse_overrides(const std::vector<std::string>& texts) {
  std::vector<Override> out;
  std::vector<ConfigProblem> problems;
  for (const std::string& text : texts) {
    Override o;
    if (std::string err = parse_override(text, o); !err.empty())
      problems.push_back({"override '" + text + "'", 0, 0, "", err});
    else
      out.push_back(std::move(o));
  }
  if (!problems.empty()) throw ConfigError(problems);
  return out;
}

std::string set_key_path(toml::table& doc, const std::vector<std::string>& keys,
                         const toml::node& value) {
  toml::table* t = &doc;
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    toml::node* next = t->get(keys[i]);
    if (!next) {
      t->insert_or_assign(keys[i], toml::table{});
      next = t->get(keys[i]);
    } else if (auto s = next->as_string()) {
      toml::table component{{"kind", s->get()}};
      t->insert_or_assign(keys[i], std::move(component));
      next = t->get(keys[i]);
    }
    if (!next->is_table())
      return "cannot set a key inside '" +
             dotted_key({keys.begin(), keys.begin() + std::ptrdiff_t(i) + 1}) +
             "', which is not a table";
    t = next->as_table();
  }
  t->insert_or_assign(keys.back(), value);
  return "";
}

std::string apply_override(toml::table& doc, const Override& o) {
  const toml::node* leaf = &o.value;
  for (const std::string& k : o.keys) leaf = leaf->as_table()->get(k);
  return set_key_path(doc, o.keys, *leaf);
}

std::string overrides_block(const std::vector<Override>& overrides) {
  std::string quick, given;
  for (const Override& o : overrides) (o.file.empty() ? given : quick) += "#   " + o.text + "\n";
  std::string out;
  if (!quick.empty())
    out +=
        "\n# ---- --quick: the file's [quick] values, applied to the file above in this order:\n" +
        quick;
  if (!given.empty())
    out +=
        "\n# ---- overrides given on the command line, applied to the file above in this order:\n" +
        given;
  return out;
}

const Override* override_of(const std::vector<Override>& overrides, const std::string& key) {
  const Override* found = nullptr;
  for (const Override& o : overrides) {  // the last one wins, as when applied
    const std::string path = dotted_key(o.keys);
    auto under = [](const std::string& a, const std::string& b) {
      return a == b || a.rfind(b + ".", 0) == 0;
    };
    // A sweep entry's problems are reported at the swept key itself; those of KEY=a,b
    // at KEY or at its entry, sweep.KEY.
    const std::string swept = path.rfind("sweep.", 0) == 0 ? path.substr(6) : "";
    if (o.multirun && under(key, "sweep." + path)) found = &o;
    if (under(key, path) || under(path, key) || (!swept.empty() && under(key, swept))) found = &o;
  }
  return found;
}

}  // namespace ablate::experiments
