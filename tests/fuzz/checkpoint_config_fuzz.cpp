// Fuzz target: the config inside a checkpoint — what `ablate predict` reads and
// validates before it builds anything (read_trained_trial_config). The input is the
// config's TOML text, embedded as the `config` metadata of an otherwise valid ablate
// checkpoint (the header's own bytes are safetensors_fuzz's), with no --plugin given.
//
// Bad input must be std::invalid_argument or ConfigError naming the checkpoint —
// never a crash, a hang, another exception. The property that matters most: a config
// that names a plugin is never accepted without --plugin (nothing a checkpoint names
// is ever loaded); the plugin pre-check has its own target.
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "experiments/config/config_error.h"
#include "experiments/config/toml_reader.h"
#include "experiments/runner/checkpoint_plugins.h"
#include "experiments/runner/trained_trial.h"
#include "nn/checkpoint.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ablate;
using ablate::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string config(reinterpret_cast<const char*>(data), size);
  // The checkpoint's bytes, built here rather than by write_safetensors, whose fsync
  // would take most of each execution's time.
  const nlohmann::json header = {
      {"__metadata__",
       {{"format", nn::kCheckpointFormat},
        {"format_version", nn::kCheckpointFormatVersion},
        {"config", config}}},
      {"x", {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {0, 4}}}}};
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception&) {
    return 0;  // text JSON cannot hold (not UTF-8): no checkpoint can carry it
  }
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[std::size_t(i)] = char((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
  bytes += text + std::string(4, '\0');
  const std::string path = fuzz::write_scratch_file("input.safetensors", bytes);
  bool accepted = false;
  try {
    experiments::read_trained_trial_config(path, fuzz::scratch_dir().string());
    accepted = true;
  } catch (const std::invalid_argument& e) {
    require(std::string(e.what()).rfind(path, 0) == 0,
            "the error starts with the checkpoint's path");
  } catch (const experiments::ConfigError& e) {
    require(std::string(e.what()).rfind(path, 0) == 0, "the config's problems name the checkpoint");
  }
  if (accepted) {
    // Accepted without --plugin: the config names no plugin.
    const experiments::TomlDocument doc = experiments::parse_toml_text(config, path);
    require(experiments::recorded_plugins(doc.table, path).empty(),
            "a config naming a plugin is refused without --plugin");
  }
  return 0;
}
