#include "experiments/config/overrides.h"

#include "experiments/config/toml_reader.h"

namespace ablate::experiments {

namespace {

std::string dotted(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ".") + k;
  return out;
}

}  // namespace

std::vector<Override> parse_overrides(const std::vector<std::string>& texts) {
  std::vector<Override> out;
  std::vector<ConfigProblem> problems;
  for (const std::string& text : texts) {
    const std::string where = "override '" + text + "'";
    if (text.find('=') == std::string::npos) {
      problems.push_back(
          {where, 0, 0, "", "expected key=value (a TOML key and value, e.g. train.steps=2000)"});
      continue;
    }
    Override o;
    o.text = text;
    try {
      o.value = parse_toml_text(text + "\n", where).table;
    } catch (const ConfigError& e) {
      for (ConfigProblem p : e.problems()) {
        p.line = p.column = 0;  // positions inside a one-line argument say nothing more
        problems.push_back(p);
      }
      continue;
    }
    // The key path: down through the tables its dotted key made (an inline table
    // after `=` is the value itself).
    const toml::table* t = &o.value;
    while (t && t->size() == 1) {
      auto only = t->begin();
      o.keys.push_back(std::string(only->first.str()));
      const toml::table* below = only->second.as_table();
      t = below && !below->is_inline() ? below : nullptr;
    }
    if (t || o.keys.empty()) {
      problems.push_back(
          {where, 0, 0, "", "sets more than one key; give one key=value per argument"});
      continue;
    }
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
             dotted({keys.begin(), keys.begin() + std::ptrdiff_t(i) + 1}) +
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
    const std::string path = dotted(o.keys);
    auto under = [](const std::string& a, const std::string& b) {
      return a == b || a.rfind(b + ".", 0) == 0;
    };
    // A sweep entry's problems are reported at the swept key itself.
    const std::string swept = path.rfind("sweep.", 0) == 0 ? path.substr(6) : "";
    if (under(key, path) || under(path, key) || (!swept.empty() && under(key, swept))) found = &o;
  }
  return found;
}

}  // namespace ablate::experiments
