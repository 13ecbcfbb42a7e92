#include "experiments/config/quick_variant.h"

#include <algorithm>

#include "experiments/config/toml_writer.h"

namespace ablate::experiments {

std::vector<Override> quick_overrides(const toml::table& doc, const std::string& path,
                                      const PositionIndex& positions,
                                      std::vector<ConfigProblem>& problems) {
  const toml::node* node = doc.get("quick");
  if (!node) {
    problems.push_back(
        {path, 0, 0, "quick",
         "--quick needs a [quick] table in the file: the overrides of its reduced variant, e.g. "
         "\"train.steps\" = 300"});
    return {};
  }
  const toml::table* quick = node->as_table();
  if (!quick) {
    auto [l, c] = positions.find("quick");
    problems.push_back({path, l, c, "quick", "must be a table of \"dotted.key\" = value"});
    return {};
  }
  // toml++ keeps keys sorted; overrides apply in the file's order (a later one wins).
  std::vector<std::pair<std::string, const toml::node*>> entries;
  for (const auto& [k, v] : *quick) entries.emplace_back(std::string(k.str()), &v);
  std::stable_sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
    return positions.find("quick." + a.first) < positions.find("quick." + b.first);
  });
  std::vector<Override> out;
  for (const auto& [key, value] : entries) {
    auto [l, c] = positions.find("quick." + key);
    if (value->is_table() && !value->as_table()->is_inline()) {
      problems.push_back(
          {path, l, c, "quick." + key,
           "write each key of [quick] as one quoted dotted key, \"" + key + ".<key>\" = value"});
      continue;
    }
    const std::string text = key + " = " + toml_value_text(*value);
    try {
      Override o = parse_overrides({text}).front();
      o.file = path;
      o.line = l;
      o.column = c;
      o.origin_key = "quick." + key;
      out.push_back(std::move(o));
    } catch (const ConfigError& e) {
      for (const ConfigProblem& p : e.problems())
        problems.push_back({path, l, c, "quick." + key, "not a dotted key = value: " + p.message});
    }
  }
  if (const toml::node* name = doc.get("name"); name && name->is_string()) {
    Override named = parse_overrides({"name = " + toml_value_text(toml::value<std::string>(
                                                      name->as_string()->get() + "-quick"))})
                         .front();
    auto [l, c] = positions.find("quick");
    named.file = path;
    named.line = l;
    named.column = c;
    named.origin_key = "quick";
    out.push_back(std::move(named));
  }
  return out;
}

void check_quick_table(const toml::table& doc, const std::string& path,
                       const PositionIndex& positions, std::vector<ConfigProblem>& problems) {
  if (doc.contains("quick")) quick_overrides(doc, path, positions, problems);
}

}  // namespace ablate::experiments
