#include "experiments/config/sweep_overrides.h"

#include <algorithm>

#include "experiments/config/toml_writer.h"

namespace ablate::experiments {

namespace {

// Keys of [sweep] that are not axes.
bool is_sweep_setting(const std::string& key) {
  return key == "seeds" || key == "zip" || key == "adaptive";
}

// Keys of [tune] that are not axes: tune.halving stays a table.
bool is_tune_setting(const std::string& key) {
  return key == "halving";
}

bool is_under(const std::string& key, const std::string& path) {
  return key.size() > path.size() && key.rfind(path + ".", 0) == 0;
}

// Moves the entries of `from` into `to` as dotted keys below `prefix` (moved, not
// copied: a copy loses the values' source positions, where their problems point).
void flatten_into(toml::table& from, const std::string& prefix, toml::table& to) {
  for (auto&& [k, v] : from) {
    const std::string key = prefix + "." + std::string(k.str());
    if (toml::table* t = v.as_table())
      flatten_into(*t, key, to);
    else
      to.insert_or_assign(toml::key(key, k.source()), std::move(v));
  }
}

// `table` with its nested tables as dotted keys, except the entries `kept` names.
void flatten_table(toml::table& table, bool (*kept)(const std::string&)) {
  const bool nested = std::any_of(table.begin(), table.end(), [&](const auto& entry) {
    return entry.second.is_table() && !kept(std::string(entry.first.str()));
  });
  if (!nested) return;
  toml::table flat;
  for (auto&& [k, v] : table) {
    const std::string key(k.str());
    if (kept(key) || !v.is_table())
      flat.insert_or_assign(k, std::move(v));
    else
      flatten_into(*v.as_table(), key, flat);
  }
  table = std::move(flat);
}

bool keep_none(const std::string&) {
  return false;
}

// The [sweep.zip] groups of `doc` (one table, or an array of tables).
std::vector<toml::table*> zip_groups(toml::table& doc) {
  std::vector<toml::table*> groups;
  toml::table* sweep = doc["sweep"].as_table();
  toml::node* zip = sweep ? sweep->get("zip") : nullptr;
  if (!zip) return groups;
  if (toml::table* t = zip->as_table()) groups.push_back(t);
  if (toml::array* a = zip->as_array())
    for (toml::node& g : *a)
      if (toml::table* t = g.as_table()) groups.push_back(t);
  return groups;
}

std::string listed_values(const toml::node& list) {
  std::string out;
  if (const toml::array* a = list.as_array())
    for (const toml::node& v : *a) out += (out.empty() ? "" : ", ") + display_value(v);
  return out;
}

// Why a fixed value at `path` cannot replace an axis of a [sweep.zip] group ("" if it
// touches none).
std::string zip_conflict(toml::table& doc, const std::string& path) {
  for (toml::table* group : zip_groups(doc)) {
    std::string keys;
    bool touched = false;
    for (const auto& [k, v] : *group) {
      const std::string key(k.str());
      keys += (keys.empty() ? "" : ", ") + key;
      touched = touched || key == path || is_under(key, path) || is_under(path, key);
    }
    if (touched)
      return "sets a key of a [sweep.zip] group (" + keys +
             "), whose values go together: one of them cannot be fixed alone; set the group's "
             "lists instead (sweep.zip.KEY=[...] for each of its keys) or edit the file";
  }
  return "";
}

// Removes the axes of [sweep] and [tune] that a fixed value at `path` replaces, with a
// note for each; refuses a value inside a swept key.
std::string replace_axes(toml::table& doc, const std::string& path, const std::string& who,
                         std::vector<std::string>& notes) {
  if (std::string err = zip_conflict(doc, path); !err.empty()) return err;
  for (const char* name : {"sweep", "tune"}) {
    toml::table* grid = doc[name].as_table();
    if (!grid) continue;
    std::vector<std::string> replaced;
    for (const auto& [k, v] : *grid) {
      const std::string key(k.str());
      if (std::string(name) == "sweep" && is_sweep_setting(key)) continue;
      if (is_under(path, key))
        return "sets a key inside " + key + ", which [" + name +
               "] replaces with each of its values; override the axis instead: " + name + "." +
               key + "=[...]";
      if (key != path && !is_under(key, path)) continue;
      replaced.push_back(key);
      notes.push_back(who + " replaces the " +
                      (std::string(name) == "sweep" ? "sweep" : "[tune] search") + " over " + key +
                      " (" + listed_values(v) + ") with one value");
    }
    for (const std::string& key : replaced) {
      grid->erase(key);
      // [report]'s baseline picks points by the swept values; this key no longer varies.
      if (toml::table* baseline = doc["report"]["baseline"].as_table();
          baseline && baseline->erase(key))
        notes.back() += " (and [report] baseline no longer names it)";
    }
  }
  return "";
}

// KEY=a,b: the list becomes KEY's axis, in [tune] when the file tunes KEY.
std::string set_axis(toml::table& doc, const Override& o, const toml::node& list) {
  const std::string key = dotted_key(o.keys);
  if (std::string err = zip_conflict(doc, key); !err.empty()) return err;
  const toml::table* tune = doc["tune"].as_table();
  const std::string grid = tune && tune->contains(key) ? "tune" : "sweep";
  return set_key_path(doc, {grid, key}, list);
}

}  // namespace

void flatten_grid_tables(toml::table& doc) {
  if (toml::table* sweep = doc["sweep"].as_table()) {
    flatten_table(*sweep, is_sweep_setting);
    for (toml::table* group : zip_groups(doc)) flatten_table(*group, keep_none);
  }
  if (toml::table* tune = doc["tune"].as_table()) flatten_table(*tune, is_tune_setting);
}

std::string apply_to_document(toml::table& doc, const Override& o,
                              std::vector<std::string>& notes) {
  const toml::node* leaf = &o.value;
  for (const std::string& k : o.keys) leaf = leaf->as_table()->get(k);
  const std::string& top = o.keys.front();
  if (top == "sweep" || top == "tune") {
    // sweep.model.norm.kind=[...] is the axis "model.norm.kind", as the file writes it.
    std::vector<std::string> keys{top};
    std::size_t rest = 1;
    if (o.keys.size() > 2 && ((top == "sweep" && (o.keys[1] == "zip" || o.keys[1] == "adaptive")) ||
                              (top == "tune" && is_tune_setting(o.keys[1]))))
      keys.push_back(o.keys[rest++]);
    if (rest < o.keys.size())
      keys.push_back(dotted_key({o.keys.begin() + std::ptrdiff_t(rest), o.keys.end()}));
    std::string err = set_key_path(doc, keys, *leaf);
    flatten_grid_tables(doc);
    return err;
  }
  if (o.multirun) return set_axis(doc, o, *leaf);
  if (std::string err = set_key_path(doc, o.keys, *leaf); !err.empty()) return err;
  const std::string path = dotted_key(o.keys);
  std::string value = o.text.substr(o.text.find('=') + 1);
  if (!leaf->is_date() && !leaf->is_time() && !leaf->is_date_time())
    value = display_value(*leaf);  // "post", not "\"post\"" (display_value writes no dates)
  const std::string who =
      o.file.empty() ? "override " + path + "=" + value : o.origin_key + " (--quick)";
  return replace_axes(doc, path, who, notes);
}

}  // namespace ablate::experiments
