#include "experiments/data/data_cache.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace ablate::experiments {

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}
}  // namespace

std::string data_cache_dir() {
  if (std::string d = env("ABLATE_DATA"); !d.empty()) return d;
  if (std::string x = env("XDG_CACHE_HOME"); !x.empty()) return x + "/ablate/data";
  std::string home = env("HOME");
  return (home.empty() ? std::string("/root") : home) + "/.cache/ablate/data";
}

bool is_dataset_reference(const std::string& path) {
  return path.rfind(kDataPrefix, 0) == 0;
}

std::string resolve_dataset_reference(const std::string& reference) {
  const std::string rest = reference.substr(std::string(kDataPrefix).size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == rest.size())
    throw std::runtime_error(reference +
                             ": expected data:<dataset>/<file>, e.g. data:cmudict/train.tsv");
  for (const auto& part : std::filesystem::path(rest))
    if (part == "..")
      throw std::runtime_error(reference + ": '..' is not allowed in a dataset reference");
  const std::string dataset = rest.substr(0, slash);
  const std::filesystem::path dir = std::filesystem::path(data_cache_dir()) / dataset;
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error(reference + ": dataset '" + dataset + "' is not in the data cache (" +
                             dir.string() + "); fetch it with: ablate data get " + dataset);
  return (dir / rest.substr(slash + 1)).string();
}

}  // namespace ablate::experiments
