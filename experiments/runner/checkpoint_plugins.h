#pragma once
// The plugins a checkpoint's model was trained with — loaded only from the command
// line. A checkpoint is data that may come from anyone: the config embedded in it
// names plugin paths, and loading one would run whatever code is there. So the
// checkpoint only says which plugin it needs (the path it recorded, the SHA-256, what
// the config uses from it); the user gives the file with `--plugin PATH`, and it is
// loaded only when its SHA-256 is the recorded one. RELIABILITY.md, "Trust model".
#include <functional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/trial_config.h"

namespace ablate::experiments {

// `plugins` / `plugins_sha256` of a resolved config, as recorded; nothing is loaded.
struct RecordedPlugin {
  std::string path;    // as the config names it
  std::string sha256;  // "" when the config records none
};

// Throws std::invalid_argument "<where>: ..." for values that are not lists of strings.
std::vector<RecordedPlugin> recorded_plugins(const toml::table& config, const std::string& where);

// Matches every recorded plugin with a `command_line` file of the same SHA-256 (of the
// same file name, when no digest is recorded), then loads the command line's files
// (load_plugin: every check before dlopen) and returns the config's references.
// Before anything is loaded, throws std::invalid_argument naming the checkpoint when
// a recorded plugin has no match: its path, its SHA-256, `uses` (what the config
// names that only the plugin provides, asked only then), and the digest of each --plugin that is
// not it. PluginError of a --plugin that cannot be loaded becomes std::invalid_argument.
std::vector<PluginRef> load_checkpoint_plugins(
    const std::string& checkpoint, const std::vector<RecordedPlugin>& recorded,
    const std::vector<std::string>& command_line,
    const std::function<std::vector<std::string>()>& uses);

}  // namespace ablate::experiments
