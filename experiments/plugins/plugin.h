#pragma once
// Plugins: components written outside ablate's tree, built into a shared module by
// ablate_add_plugin (the installed CMake package, nn/README.md) and loaded by `ablate`
// at run time. Their ABLATE_REGISTER lines run when the module loads, adding to the
// same registries the built-in components are in, so an experiment file sweeps them
// like any other (`plugins = ["build/libmy_norms.so"]`, or `--plugin PATH`).
//
// A plugin is checked before any of its code runs: the file must exist (a regular
// file), be a shared library dlopen can map here (elf_precheck.h), carry the
// marker ablate_add_plugin compiles into it, and have been built against this very
// ablate version (its ABI: headers, layouts, registries). Loading it must then succeed
// (every symbol it uses resolves against this `ablate`) and every name it registers
// must be new on its axis. A failure is a PluginError saying which and why.
//
// A plugin's SHA-256 is part of the identity of every trial of an experiment that
// loads it (recorded in config.toml and summary.json): a rebuilt plugin reruns them.
#include <stdexcept>
#include <string>
#include <vector>

namespace ablate::experiments {

struct PluginError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Plugin {
  std::string path;                     // as resolved (absolute, normalised)
  std::string sha256;                   // of the file's bytes
  std::string built_for;                // the ablate version it was built against
  std::vector<std::string> components;  // what it registered: "norm: scale", ...
};

// Loads the plugin at `path` once per process (a second call returns the first
// load's record; the file must still have the same content). Throws PluginError
// "<path>: <reason>".
const Plugin& load_plugin(const std::string& path);

// The marker ablate_add_plugin compiles into every plugin, followed by the version.
inline constexpr const char* kPluginMarker = "ablate-plugin-built-for:";

}  // namespace ablate::experiments
