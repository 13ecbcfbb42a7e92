#include "experiments/plugins/plugin.h"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "experiments/io/atomic_file.h"
#include "experiments/io/file_digest.h"
#include "experiments/plugins/elf_precheck.h"
#include "experiments/records/code_version.h"
#include "experiments/tasks/task.h"
#include "nn/registry.h"
#include "nn/registry_listing.h"

namespace ablate::experiments {

namespace {

// The version string after the marker ("" when the file has no marker).
std::string built_for(const std::string& bytes) {
  const std::string marker = kPluginMarker;
  std::size_t at = bytes.find(marker);
  if (at == std::string::npos) return "";
  std::size_t begin = at + marker.size(), end = bytes.find('\0', begin);
  return bytes.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

const Plugin& load_plugin(const std::string& given) {
  namespace fs = std::filesystem;
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Plugin>> loaded;  // by resolved path
  std::lock_guard<std::mutex> lock(mutex);
  const std::string path = fs::absolute(given).lexically_normal().string();
  std::error_code error;
  if (!fs::exists(path, error)) throw PluginError(given + ": no such plugin file");
  // A FIFO or a device would block the read below, or never end.
  if (!fs::is_regular_file(path, error))
    throw PluginError(given + ": is not a regular file (a plugin is a shared library)");
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const std::exception& e) {
    throw PluginError(e.what());
  }
  const std::string sha256 = sha256_of_bytes(bytes);
  if (auto it = loaded.find(path); it != loaded.end()) {
    if (it->second->sha256 != sha256)
      throw PluginError(given +
                        ": the plugin file changed after it was loaded (rebuilt during the run?)");
    return *it->second;
  }
  auto plugin = std::make_unique<Plugin>();
  plugin->path = path;
  plugin->sha256 = sha256;
  plugin->built_for = built_for(bytes);
  // Checked before dlopen runs any of the plugin's code.
  if (plugin->built_for.empty())
    throw PluginError(given +
                      ": not an ablate plugin (no ablate_add_plugin marker; build it with "
                      "ablate_add_plugin from the installed CMake package)");
  if (plugin->built_for != code_version())
    throw PluginError(given + ": built against ablate " + plugin->built_for +
                      ", but this is ablate " + code_version() +
                      "; rebuild the plugin against this installation");
  // A truncated or foreign library would crash dlopen (SIGBUS) or fail obscurely in it.
  if (const std::string problem = elf_precheck_problem(bytes); !problem.empty())
    throw PluginError(given + ": " + problem);
  // Every registry fills itself with the built-in components on first use: fill them
  // now, so that only the plugin's own registrations are counted as its.
  nn::registry_listing();
  task_registry();
  nn::PluginRegistrations registrations;
  nn::plugin_registrations() = &registrations;
  // RTLD_NOW: a symbol this ablate does not have is an error now, not a crash later.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  nn::plugin_registrations() = nullptr;
  if (!handle) {
    const char* why = dlerror();
    throw PluginError(given + ": cannot be loaded: " + std::string(why ? why : "unknown error"));
  }
  if (!registrations.clashes.empty())
    throw PluginError(given + ": registers names that already exist (" +
                      joined(registrations.clashes) +
                      "); rename them in its ABLATE_REGISTER lines");
  if (registrations.added.empty())
    throw PluginError(given + ": registers no component (no ABLATE_REGISTER line ran)");
  plugin->components = std::move(registrations.added);
  return *loaded.emplace(path, std::move(plugin)).first->second;
}

}  // namespace ablate::experiments
