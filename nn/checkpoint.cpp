#include "nn/checkpoint.h"

#include <cstring>
#include <set>
#include <stdexcept>

#include "nn/excerpt.h"

namespace ablate::nn {

namespace {

std::string describe(const Tensor& t) {
  return std::string(safetensors_dtype_name(t.dtype())) + " " + t.shape().str();
}

// The module's state by dotted name. The Tensors alias the module's buffers, so
// copying into them updates the module.
std::vector<std::pair<std::string, Tensor>> module_state(const Module& module) {
  std::vector<std::pair<std::string, Tensor>> state;
  for (const auto& [name, p] : module.named_parameters()) state.emplace_back(name, p->value);
  for (const auto& [name, b] : module.named_buffers()) state.emplace_back(name, *b);
  return state;
}

// The first kListedKeys keys, then a count: the names come from the file, which may
// list tens of thousands of them (a real mismatch, a model one layer deeper, lists ~20).
constexpr std::size_t kListedKeys = 50;

void append_section(std::string& out, const char* title, const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  out += std::string(title) + " (" + std::to_string(keys.size()) + "):\n";
  for (std::size_t i = 0; i < keys.size() && i < kListedKeys; ++i)
    out += "  " + excerpt(keys[i], 160) + "\n";
  if (keys.size() > kListedKeys)
    out += "  ... and " + std::to_string(keys.size() - kListedKeys) + " more\n";
}

}  // namespace

std::string LoadReport::str() const {
  if (ok()) return "every key of the model and the file matches\n";
  std::string out;
  append_section(out, "missing: in the model, not in the file", missing);
  append_section(out, "unexpected: in the file, not in the model", unexpected);
  append_section(out, "mismatched: shape or dtype differ", mismatched);
  return out;
}

void save_checkpoint(const Module& module, const std::string& path,
                     const std::map<std::string, std::string>& metadata,
                     const std::vector<std::pair<std::string, Tensor>>& extra) {
  std::map<std::string, std::string> meta = metadata;
  // Readers rely on these two keys to recognise the file; a caller's value would lie.
  for (const char* reserved : {"format", "format_version"})
    if (meta.count(reserved))
      throw std::runtime_error(path + ": metadata key '" + reserved +
                               "' is reserved for the checkpoint format");
  // (emplace, not operator[]=: GCC 12 warns falsely (-Wrestrict) on assigning a literal.)
  meta.emplace("format", kCheckpointFormat);
  meta.emplace("format_version", kCheckpointFormatVersion);

  std::vector<std::pair<std::string, Tensor>> tensors = module_state(module);
  tensors.insert(tensors.end(), extra.begin(), extra.end());
  write_safetensors(path, tensors, meta);  // rejects an extra name that repeats a module key
}

Checkpoint load_checkpoint(Module& module, const std::string& path, bool strict) {
  Checkpoint ck{read_safetensors(path), {}};
  // A file from another writer (safetensors.torch.save_file) has no version and may
  // still fit; a later ablate format would be misread, so it is refused.
  auto format = ck.file.metadata.find("format");
  auto version = ck.file.metadata.find("format_version");
  if (format != ck.file.metadata.end() && format->second == kCheckpointFormat &&
      (version == ck.file.metadata.end() || version->second != kCheckpointFormatVersion))
    throw std::runtime_error(
        path + ": checkpoint format_version '" +
        (version == ck.file.metadata.end() ? std::string("(none)") : version->second) +
        "' is not the version " + kCheckpointFormatVersion + " this build reads");

  // Check every key before copying any, so that a strict failure changes nothing.
  LoadReport& report = ck.report;
  std::vector<std::pair<Tensor, const Tensor*>> copies;  // (module tensor, file tensor)
  std::set<std::string> module_names;
  for (const auto& [name, dst] : module_state(module)) {
    module_names.insert(name);
    const Tensor* src = ck.file.find(name);
    if (!src)
      report.missing.push_back(name);
    else if (src->dtype() != dst.dtype() || !(src->shape() == dst.shape()))
      report.mismatched.push_back(name + ": file " + describe(*src) + ", model " + describe(dst));
    else
      copies.emplace_back(dst, src);
  }
  for (const auto& [name, t] : ck.file.tensors)
    if (!module_names.count(name) && !name.starts_with(kOptimizerPrefix) &&
        !name.starts_with(kExtraPrefix))
      report.unexpected.push_back(name);

  if (strict && !report.ok())
    throw std::runtime_error(path + ": checkpoint does not fit the model:\n" + report.str());
  for (const auto& [dst, src] : copies)
    if (dst.nbytes() != 0) std::memcpy(dst.raw(), src->raw(), dst.nbytes());
  return ck;
}

std::vector<std::pair<std::string, Tensor>> copy_state(const Module& module) {
  std::vector<std::pair<std::string, Tensor>> copy;
  for (const auto& [name, t] : module_state(module)) copy.emplace_back(name, t.clone());
  return copy;
}

void restore_state(Module& module, const std::vector<std::pair<std::string, Tensor>>& state) {
  std::map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : state) by_name[name] = &t;
  std::vector<std::pair<Tensor, const Tensor*>> copies;  // checked first, then copied
  for (const auto& [name, dst] : module_state(module)) {
    auto it = by_name.find(name);
    if (it == by_name.end())
      throw std::invalid_argument("restore_state: no value for '" + name + "'");
    if (it->second->dtype() != dst.dtype() || !(it->second->shape() == dst.shape()))
      throw std::invalid_argument("restore_state: '" + name + "' is " + describe(*it->second) +
                                  ", the model's " + describe(dst));
    copies.emplace_back(dst, it->second);
  }
  for (const auto& [dst, src] : copies)
    if (dst.nbytes() != 0) std::memcpy(dst.raw(), src->raw(), dst.nbytes());
}

}  // namespace ablate::nn
