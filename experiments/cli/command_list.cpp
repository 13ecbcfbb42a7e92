// `ablate list [AXIS]`: every registered component and key, or one axis's.
#include <iostream>
#include <sstream>
#include <string>

#include "experiments/config/plain_keys.h"
#include "experiments/config/setting_keys.h"
#include "experiments/plugins/plugin.h"
#include "experiments/tasks/task.h"
#include "nn/registry_listing.h"

#include "experiments/cli/commands.h"

namespace ablate::experiments::cli {

namespace {

// The listing's sections: a header line (not indented) and the indented lines after it;
// an axis's header is its one name, the key tables' headers (named "") are sentences.
std::vector<std::pair<std::string, std::string>> sections(const std::string& listing) {
  std::vector<std::pair<std::string, std::string>> out;  // {first word of header, text}
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != ' ')
      out.push_back({line.find(' ') == std::string::npos ? line : "", ""});
    if (!out.empty()) out.back().second += line + "\n";
  }
  return out;
}

// The sections of `axis` ("norm"; "attention" is attention.qk, .v and .scale).
std::string sections_of(const std::string& listing, const std::string& axis) {
  std::string out;
  for (const auto& [name, text] : sections(listing))
    if (!name.empty() && (name == axis || name.rfind(axis + ".", 0) == 0)) out += text;
  return out;
}

std::string section_names(const std::string& listing) {
  std::string out;
  for (const auto& [name, text] : sections(listing))
    if (!name.empty()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

int list(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  po::options_description desc;
  std::string markdown_table, axis;
  desc.add_options()("axis", po::value(&axis))("plugin",
                                               po::value(&plugins)->composing()->value_name("PATH"),
                                               "also list what this plugin adds (repeatable)")(
      "keys-markdown", po::value(&markdown_table)->value_name("TABLE"),
      "print the Markdown table of the keys of TABLE (\"\", model, model.layers, model.attention, "
      "model.norm, train, report, study, study.attention), as docs/reference/ holds it")(
      "fuzz-dictionary",
      "print the experiment-file fuzzer's dictionary of keys and names (tests/fuzz/)");
  po::variables_map vm;
  if (!parse(args, desc, vm, "list", nullptr, "axis")) return 0;
  if (vm.count("fuzz-dictionary")) {
    std::cout << fuzz_dictionary();
    return 0;
  }
  if (vm.count("keys-markdown")) {
    const std::string settings = setting_keys_markdown(markdown_table);
    std::cout << (settings.empty() ? plain_keys_markdown(markdown_table) : settings);
    return 0;
  }
  std::vector<const Plugin*> loaded;
  for (const std::string& path : plugins) {
    try {
      loaded.push_back(&load_plugin(path));
    } catch (const PluginError& e) {
      std::cerr << "ablate list: --plugin " << e.what() << "\n";
      return 2;
    }
  }
  std::ostringstream listing;
  listing << ablate::nn::format_registry_listing() << "task\n";
  for (const auto& entry : task_registry().entries()) {
    listing << "  " << entry.name
            << std::string(entry.name.size() < 16 ? 16 - entry.name.size() : 1, ' ')
            << entry.description << "\n";
    for (const auto& o : entry.options)
      listing << "      " << o.key << " = " << ablate::nn::option_to_string(o.default_value)
              << "  (" << o.doc << ")\n";
  }
  listing << "plain keys (every other sweepable value: dotted path, type = default, [allowed])\n"
          << format_plain_keys()
          << "run settings ([report], [study]: dotted path, type = default, [allowed]; in no "
             "trial's id)\n"
          << format_setting_keys();
  if (axis.empty()) {
    std::cout << listing.str();
  } else {
    const std::string section = sections_of(listing.str(), axis);
    if (section.empty())
      throw po::error("'" + axis + "' is not an axis; the axes: " + section_names(listing.str()));
    std::cout << section;
  }
  for (const Plugin* p : loaded) {
    std::cout << "\nplugin " << p->path << " (built for ablate " << p->built_for << ", SHA-256 "
              << p->sha256.substr(0, 16) << "…) adds:\n";
    for (const std::string& c : p->components) std::cout << "  " << c << "\n";
  }
  return 0;
}

}  // namespace ablate::experiments::cli
