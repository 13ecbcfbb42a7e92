#include "experiments/cli/data_command.h"

#include <stdexcept>

#include "experiments/data/data_cache.h"
#include "experiments/data/datasets.h"

namespace ablate::experiments {

namespace {

constexpr const char* kDataUsage =
    "usage: ablate data list            the datasets, whether each is in the cache, and their "
    "files\n"
    "       ablate data get NAME...     fetch (pinned version, checked SHA-256), convert, keep in "
    "the cache\n"
    "       ablate data get all\n"
    "       ablate data path NAME       the dataset's directory (its files are data:NAME/<file> in "
    "experiments)\n"
    "The cache is $ABLATE_DATA, else $XDG_CACHE_HOME/ablate/data, else ~/.cache/ablate/data.\n";

std::string known_names() {
  std::string names;
  for (const Dataset& d : datasets()) names += (names.empty() ? "" : ", ") + d.name;
  return names;
}

const Dataset* named(const std::string& name, std::ostream& err) {
  const Dataset* d = find_dataset(name);
  if (!d) err << "ablate data: unknown dataset '" << name << "' (known: " << known_names() << ")\n";
  return d;
}

int list(std::ostream& out) {
  out << "datasets (cache: " << data_cache_dir() << ")\n";
  for (const Dataset& d : datasets()) {
    const DatasetState s = dataset_state(d);
    out << "  " << d.name << std::string(d.name.size() < 13 ? 13 - d.name.size() : 1, ' ')
        << s.status;
    if (s.status == "stale") out << " (" << s.detail << ")";
    out << "\n      " << d.summary << "\n      " << d.source.package << " " << d.source.version
        << " (" << (d.source.kind == PackageSource::Kind::npm ? "npm" : "Debian") << "), SHA-256 "
        << d.source.sha256.substr(0, 16) << "…; licence: " << d.licence << "\n";
    if (s.status == "ok") {
      out << "      files:";
      for (const std::string& f : s.conversion.files) out << " data:" << d.name << "/" << f;
      out << "\n      counts:";
      for (const auto& [k, v] : s.conversion.counts) out << " " << k << "=" << v;
      out << "\n";
    }
  }
  return 0;
}

}  // namespace

int data_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << kDataUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string& what = args[0];
  if (what == "list" && args.size() == 1) return list(out);
  if (what == "path" && args.size() == 2) {
    const Dataset* d = named(args[1], err);
    if (!d) return 2;
    out << data_cache_dir() << "/" << d->name << "\n";
    return 0;
  }
  if (what == "get" && args.size() >= 2) {
    std::vector<const Dataset*> wanted;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "all") {
        for (const Dataset& d : datasets()) wanted.push_back(&d);
        continue;
      }
      const Dataset* d = named(args[i], err);
      if (!d) return 2;
      wanted.push_back(d);
    }
    int status = 0;
    for (const Dataset* d : wanted) {
      try {
        get_dataset(*d, out);
      } catch (const std::exception& e) {
        err << "ablate data get " << d->name << ": " << e.what() << "\n";
        status = 1;
      }
    }
    return status;
  }
  err << "ablate data: unexpected arguments\n\n" << kDataUsage;
  return 2;
}

}  // namespace ablate::experiments
