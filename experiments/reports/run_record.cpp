#include "experiments/reports/run_record.h"

#include <unistd.h>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "experiments/io/atomic_file.h"
#include "experiments/io/csv_cells.h"
#include "experiments/io/json_file.h"
#include "experiments/io/scratch_folder.h"
#include "experiments/records/metrics_log.h"
#include "experiments/records/record_trial_defaults.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/plot_run.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Version 2 keeps the summary parts most trials share once, in the header's
// "trial_defaults" (version 1, still read, repeated them on every line).
constexpr int kVersion = 2;
constexpr int kOldestReadVersion = 1;
constexpr const char* kTrialDefaults = "trial_defaults";
constexpr const char* kSummaryLacks = "summary_lacks";
constexpr const char* kFromRunDirectory = "run directory";
constexpr const char* kFromResultsCsv = RunDir::kResults;

bool is_trial_id(const std::string& id) {
  return id.size() == 16 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The run index as a record keeps it: without the absolute path of the experiment
// file's folder, which says where it was run, not what it found.
json portable_index(json index) {
  index.erase("source_dir");
  return index;
}

// An evaluation of metrics.jsonl with its scalar values only: the per-module
// breakdowns (gradient norms by layer, BatchNorm drift by module) are summary.json's.
json scalar_values(const MetricsLine& m) {
  json out{{"step", m.step}};
  for (const auto& [key, value] : m.values) out[key] = value;
  return out;
}

struct Unpacked {
  std::string source;
  std::string kept_sections;
  bool has_evaluations = false;
};

// A record read and checked, before anything of it is written.
struct ParsedRecord {
  Unpacked meta;
  json index, preregistration;  // preregistration null when none
  std::optional<std::string> experiment_toml;
  std::map<std::string, std::pair<json, std::string>> trials;  // id → summary, metrics.jsonl
  std::map<std::string, json> attention;                       // id → attention.json
  std::map<std::string, std::string> samples;                  // id → samples.txt
};

// The record at `path`; whatever is wrong with it is a std::invalid_argument naming
// the file and line (bad input, exit status 2).
ParsedRecord parse_run_record(const std::string& path) {
  const std::string text = read_file(path);
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto where = [&] { return path + ":" + std::to_string(number); };
  auto next = [&](bool required) -> json {
    while (std::getline(in, line)) {
      ++number;
      if (line.empty()) continue;
      return parse_json(line, where());
    }
    if (required) throw std::runtime_error(path + ": empty (no header line)");
    return json();
  };
  ParsedRecord out;
  try {
    const json header = next(true);
    if (!header.is_object() || header.value("record", json()) != "ablate run record")
      throw std::runtime_error(where() + ": not an ablate run record (its first line names none)");
    const json version = header.value("version", json());
    if (!version.is_number_integer() || version.get<std::int64_t>() < kOldestReadVersion ||
        version.get<std::int64_t>() > kVersion)
      throw std::runtime_error(where() + ": record version " + excerpt(version.dump()) +
                               "; this ablate reads versions " +
                               std::to_string(kOldestReadVersion) + " to " +
                               std::to_string(kVersion));
    const json defaults = header.value(kTrialDefaults, json::object());
    if (!defaults.is_object())
      throw std::runtime_error(where() + ": " + kTrialDefaults + " must be an object");
    out.meta.source = header.value("source", "");
    if (out.meta.source != kFromRunDirectory && out.meta.source != kFromResultsCsv)
      throw std::runtime_error(where() + ": source must be \"run directory\" or \"results.csv\"");
    out.meta.kept_sections = header.value("kept_sections", "");
    out.index = header.at(RunDir::kTrialIndex);
    if (!out.index.is_object())
      throw std::runtime_error(where() + ": trials.json must be an object");
    std::set<std::string> ids;
    for (const json& t : out.index.at("trials")) {
      const std::string id = t.at("id").get<std::string>();
      if (!is_trial_id(id) || !ids.insert(id).second)
        throw std::runtime_error(where() + ": trials.json: trial id \"" + excerpt(id) +
                                 "\" is not 16 hexadecimal digits or is given twice");
    }
    if (header.contains(RunDir::kPreregistration))
      out.preregistration = header[RunDir::kPreregistration];
    if (header.contains(RunDir::kExperiment))
      out.experiment_toml = header[RunDir::kExperiment].get<std::string>();
    for (json t = next(false); !t.is_null(); t = next(false)) {
      const std::string id = t.at("id").get<std::string>();
      if (!ids.count(id))
        throw std::runtime_error(where() + ": trial \"" + excerpt(id) + "\" is not in trials.json");
      if (out.trials.count(id))
        throw std::runtime_error(where() + ": trial " + id + " is given twice");
      json summary = t.at("summary");
      if (!summary.is_object()) throw std::runtime_error(where() + ": summary must be an object");
      const json lacks = t.value(kSummaryLacks, json::array());
      if (!lacks.is_array()) throw std::runtime_error(where() + ": summary_lacks must be an array");
      restore_trial_defaults(summary, defaults, lacks);
      complete_summary(summary, where());
      std::string metrics;
      if (t.contains("evaluations")) {
        out.meta.has_evaluations = true;
        for (const json& e : t.at("evaluations")) metrics += e.dump() + "\n";
      }
      out.trials[id] = {summary, metrics};
      if (t.contains("attention")) out.attention[id] = t.at("attention");
      if (t.contains("samples")) out.samples[id] = t.at("samples").get<std::string>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(where() + ": " + excerpt(e.what()));
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  return out;
}

Unpacked unpack_record(const std::string& path, const std::string& run_dir) {
  const ParsedRecord r = parse_run_record(path);
  const RunDir run(run_dir);
  write_file_atomically(run.trial_index(), r.index.dump(2) + "\n");
  if (!r.preregistration.is_null())
    write_file_atomically(run.preregistration(), r.preregistration.dump(2) + "\n");
  if (r.experiment_toml) write_file_atomically(run.experiment(), *r.experiment_toml);
  for (const auto& [id, trial] : r.trials) {
    const TrialDir dir = run.trial(id);
    fs::create_directories(dir.path());
    write_file_atomically(dir.summary(), trial.first.dump(2) + "\n");
    write_file_atomically(dir.metrics(), trial.second);
  }
  for (const auto& [id, attention] : r.attention)
    write_file_atomically(run.trial(id).attention(), attention.dump() + "\n");
  for (const auto& [id, samples] : r.samples)
    write_file_atomically(run.trial(id).samples(), samples);
  return r.meta;
}

std::string origin_note(const Unpacked& u) {
  if (u.source == kFromRunDirectory)
    return "Rebuilt by `ablate report` from this folder's record.jsonl (the run's trial index and "
           "every trial's "
           "summary and validation curve, at full precision).";
  return "Rebuilt by `ablate report` from this folder's record.jsonl, which was derived from "
         "results.csv when "
         "the run directory was no longer at hand: metrics to six significant digits, and no "
         "test-set standard "
         "errors, validation curves or per-layer values. What needs those is not recomputed: the "
         "sections under "
         "\"Not rebuilt\" are the original report's, made from the run directory.";
}

}  // namespace

std::string record_trial_line(const std::string& id, json summary, const json& defaults,
                              const json* evaluations, const json* attention,
                              const std::string* samples) {
  const json lacks = drop_trial_defaults(summary, defaults);
  json line{{"id", id}, {"summary", summary}};
  if (!lacks.empty()) line[kSummaryLacks] = lacks;
  if (evaluations) line["evaluations"] = *evaluations;
  if (attention) line["attention"] = *attention;
  if (samples) line["samples"] = *samples;
  return line.dump() + "\n";
}

std::string record_header_line(const std::string& source, const json& index,
                               const std::string& run_dir, const std::string& kept_sections,
                               const json& defaults) {
  json header{{"record", "ablate run record"},
              {"version", kVersion},
              {"source", source},
              {RunDir::kTrialIndex, portable_index(index)}};
  if (!defaults.empty()) header[kTrialDefaults] = defaults;
  const RunDir run(run_dir);
  if (fs::exists(run.preregistration()))
    header[RunDir::kPreregistration] = read_json_file(run.preregistration());
  if (fs::exists(run.experiment())) header[RunDir::kExperiment] = read_file(run.experiment());
  if (!kept_sections.empty()) header["kept_sections"] = kept_sections;
  return header.dump() + "\n";
}

void complete_summary(json& s, const std::string& where) {
  for (const char* part : {"final", "best", "test"}) {
    if (!s.contains(part))
      s[part] = json::object();
    else if (!s[part].is_object())
      throw std::runtime_error(where + ": summary." + part + " must be an object");
  }
  for (const char* key : {"steps", "params", "wall_seconds", "steps_per_second"})
    if (!s.contains(key)) s[key] = nullptr;
  for (const char* key : {"train_loss", "val_loss"})
    if (!s["final"].contains(key)) s["final"][key] = nullptr;
  for (const char* key : {"step", "val_loss"})
    if (!s["best"].contains(key)) s["best"][key] = nullptr;
}

std::string folder_name(const std::string& dir) {
  const fs::path p = fs::absolute(dir).lexically_normal();
  return p.filename().empty() ? p.parent_path().filename().string() : p.filename().string();
}

void unpack_run_record(const std::string& path, const std::string& run_dir) {
  (void)unpack_record(path, run_dir);
}

void write_run_record(const std::string& run_dir, const json& plotted_index) {
  const RunDir run(run_dir);
  const json index = read_json_file(run.trial_index());
  const PlotRun plotted = load_plot_run(run_dir, plotted_index);
  const PlotTrial* drawn = attention_trial(plotted);
  const std::string attention_id = drawn ? drawn->id : "";
  struct Line {
    std::string id;
    json summary, evaluations, attention;
    std::optional<std::string> samples;
  };
  std::vector<Line> lines;
  for (const json& t : index.at("trials")) {
    const std::string id = t.at("id").get<std::string>();
    const TrialDir dir = run.trial(id);
    if (!fs::exists(dir.summary())) continue;
    // Copied as it is (not through TrialSummary): the record keeps whatever the
    // trial's summary.json holds, also keys of a newer or older ablate.
    const json summary = parse_json_or_discarded(dir.summary());
    if (summary.is_discarded()) continue;  // unreadable: the reports count it missing too
    json evaluations = json::array();
    for (const MetricsLine& m : read_metrics_log(dir.metrics()).lines)
      evaluations.push_back(scalar_values(m));
    const json attention = id == attention_id ? parse_json_or_discarded(dir.attention()) : json();
    // A language model's samples (summary.md shows them); only valid UTF-8 can be a
    // JSON string, and a trial's samples are its own output, so anything else is left out.
    std::string samples;
    if (fs::exists(dir.samples())) samples = read_file(dir.samples());
    bool keep_samples = !samples.empty();
    try {
      if (keep_samples) (void)json(samples).dump();
    } catch (const json::type_error&) {  // not UTF-8
      keep_samples = false;
    }
    lines.push_back({id, summary, evaluations, attention,
                     keep_samples ? std::optional<std::string>(samples) : std::nullopt});
  }
  std::vector<json> summaries;
  for (const Line& l : lines) summaries.push_back(l.summary);
  const json defaults = trial_defaults(summaries);
  std::string out = record_header_line(kFromRunDirectory, index, run_dir, "", defaults);
  for (const Line& l : lines)
    out += record_trial_line(l.id, l.summary, defaults, &l.evaluations,
                             l.attention.is_object() ? &l.attention : nullptr,
                             l.samples ? &*l.samples : nullptr);
  write_file_atomically(run.record(), out);
}

RunSource::RunSource(const std::string& dir) {
  const RunDir given(dir);
  if (fs::exists(given.trial_index())) {
    run_dir_ = dir;
    return;
  }
  if (!fs::exists(given.record()))
    throw std::runtime_error(
        dir +
        ": neither a run directory (no trials.json; run `ablate run` first) nor a "
        "results folder (no record.jsonl)");
  // Should unpacking throw, the scratch folder (a member already made) goes with it.
  scratch_ = std::make_unique<ScratchFolder>("ablate-record");
  run_dir_ = scratch_->path() + "/" + folder_name(dir);
  fs::create_directories(run_dir_);
  const Unpacked u = unpack_record(given.record(), run_dir_);
  origin_.note = origin_note(u);
  origin_.draw_plots = u.has_evaluations;
  origin_.kept_sections = u.kept_sections;
}

RunSource::~RunSource() = default;

}  // namespace ablate::experiments
