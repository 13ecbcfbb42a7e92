#include "experiments/runner/checkpoint_plugins.h"

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "experiments/io/file_digest.h"
#include "experiments/plugins/plugin.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace fs = std::filesystem;

namespace {

// The strings of `key` (absent: none); anything else is refused.
std::vector<std::string> string_list(const toml::table& config, const char* key,
                                     const std::string& where) {
  std::vector<std::string> out;
  const toml::node* node = config.get(key);
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (array)
    for (const toml::node& item : *array)
      if (auto text = item.value<std::string>()) out.push_back(*text);
  if (!array || out.size() != array->size())
    throw std::invalid_argument(where + ": " + key + " must be a list of strings");
  return out;
}

struct GivenPlugin {
  std::string path;    // as given on the command line
  std::string sha256;  // "" when the file cannot be read (load_plugin will say why)
  bool matched = false;
};

std::string digest_of(const std::string& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return "";
  try {
    return sha256_of_file(path);
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

std::vector<RecordedPlugin> recorded_plugins(const toml::table& config, const std::string& where) {
  const std::vector<std::string> paths = string_list(config, "plugins", where);
  const std::vector<std::string> digests = string_list(config, "plugins_sha256", where);
  if (!digests.empty() && digests.size() != paths.size())
    throw std::invalid_argument(where + ": plugins_sha256 lists " + std::to_string(digests.size()) +
                                " digests for " + std::to_string(paths.size()) + " plugins");
  std::vector<RecordedPlugin> out;
  for (std::size_t i = 0; i < paths.size(); ++i)
    out.push_back({paths[i], digests.empty() ? "" : digests[i]});
  return out;
}

std::vector<PluginRef> load_checkpoint_plugins(
    const std::string& checkpoint, const std::vector<RecordedPlugin>& recorded,
    const std::vector<std::string>& command_line,
    const std::function<std::vector<std::string>()>& uses) {
  std::vector<GivenPlugin> given;
  for (const std::string& path : command_line) given.push_back({path, digest_of(path)});
  // Each recorded plugin's match among the given files, by content.
  std::vector<std::optional<std::size_t>> match(recorded.size());
  for (std::size_t r = 0; r < recorded.size(); ++r)
    for (std::size_t g = 0; g < given.size() && !match[r]; ++g) {
      const bool same = recorded[r].sha256.empty() ? fs::path(given[g].path).filename() ==
                                                         fs::path(recorded[r].path).filename()
                                                   : given[g].sha256 == recorded[r].sha256;
      if (same && !given[g].sha256.empty()) {
        match[r] = g;
        given[g].matched = true;
      }
    }
  std::string missing;
  for (std::size_t r = 0; r < recorded.size(); ++r)
    if (!match[r])
      missing += "\n  " + excerpt(recorded[r].path, 200) + " (SHA-256 " +
                 (recorded[r].sha256.empty() ? std::string("not recorded")
                                             : excerpt(recorded[r].sha256, 64)) +
                 ")";
  if (!missing.empty()) {
    std::string message =
        checkpoint +
        ": the model was trained with a plugin that is not given on the command line;"
        " ablate never loads code a checkpoint names, so give the plugin with "
        "--plugin PATH if you trust it. Needed:" +
        missing;
    if (const std::vector<std::string> used = uses(); !used.empty()) {
      message += "\n  (the config uses from it:";
      for (const std::string& u : used) message += " " + u + ";";
      message.back() = ')';
    }
    for (const GivenPlugin& g : given)
      if (!g.matched)
        message += "\n  --plugin " + g.path + " is not it (SHA-256 " +
                   (g.sha256.empty() ? std::string("unreadable: no such file?") : g.sha256) + ")";
    throw std::invalid_argument(message);
  }
  // Every file the user gave is loaded (they are trusted); the config's references stay
  // as it recorded them.
  std::vector<const Plugin*> loaded;
  for (const GivenPlugin& g : given) {
    try {
      loaded.push_back(&load_plugin(g.path));
    } catch (const PluginError& e) {
      throw std::invalid_argument(std::string("--plugin ") + e.what());
    }
  }
  std::vector<PluginRef> refs;
  for (std::size_t r = 0; r < recorded.size(); ++r) {
    const Plugin& plugin = *loaded[*match[r]];
    if (!recorded[r].sha256.empty() &&
        plugin.sha256 != recorded[r].sha256)  // changed while being loaded
      throw std::invalid_argument("--plugin " + given[*match[r]].path +
                                  ": changed while it was being loaded");
    refs.push_back({recorded[r].path, plugin.sha256, plugin.built_for});
  }
  return refs;
}

}  // namespace ablate::experiments
