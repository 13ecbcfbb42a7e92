#include "experiments/reports/provenance_note.h"

#include <set>

#include "experiments/reports/computation_note.h"

namespace ablate::experiments {

using json = nlohmann::json;

const std::vector<ProvenanceFact> kProvenanceFacts = {
    {"commit", true}, {"ablate version", true}, {"compiler", false},
    {"flags", false}, {"libraries", false},     {"CPU", false}};

namespace {

constexpr std::size_t kShortId = 12;  // hex digits of an id kept in the reports' text

// j[key], or null when j is not an object or lacks it: a summary may come from a
// record made elsewhere, and a report must not fail on an odd provenance.
json member(const json& j, const char* key) {
  return j.is_object() && j.contains(key) ? j[key] : json();
}

std::string text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.is_null() ? "unknown" : v.dump();
}

std::string text_at(const json& j, const char* part, const char* key) {
  return text(member(member(j, part), key));
}

// The commit, and the difference of the working tree from it when there was one.
std::string commit_text(const json& p) {
  std::string commit = text_at(p, "code", "commit").substr(0, kShortId);
  const json dirty = member(member(p, "code"), "dirty");
  if (dirty == true)
    commit += " with uncommitted changes, diff sha256 " +
              text_at(p, "code", "diff_sha256").substr(0, 2 * kShortId);
  else if (dirty != false)
    commit += " (whether it had uncommitted changes is unknown)";
  return commit;
}

std::string libraries_text(const json& p) {
  const json libraries = member(p, "libraries");
  std::string out;
  if (libraries.is_object())
    for (const auto& [name, version] : libraries.items())
      out += (out.empty() ? "" : ", ") + name + " " + text(version);
  return out.empty() ? "unknown" : out;
}

}  // namespace

std::optional<std::map<std::string, std::string>> provenance_facts(const json& summary) {
  if (!summary.is_object() || !summary.contains("provenance") || !summary["provenance"].is_object())
    return std::nullopt;
  const json& p = summary["provenance"];
  return std::map<std::string, std::string>{
      {"commit", commit_text(p)},
      {"ablate version", text_at(p, "code", "version")},
      {"compiler", text_at(p, "build", "compiler") + " " + text_at(p, "build", "build_type")},
      {"flags", text_at(p, "build", "cxx_flags")},
      {"libraries", libraries_text(p)},
      {"CPU", text_at(p, "machine", "cpu")}};
}

ProvenanceCounts provenance_counts(const RunRows& run) {
  ProvenanceCounts counts;
  for (const TrialRow& r : run.rows)
    if (const auto facts = provenance_facts(r.summary))
      for (const auto& [fact, value] : *facts) ++counts[fact][value];
  return counts;
}

std::string provenance_note(const RunRows& run) {
  const ProvenanceCounts counts = provenance_counts(run);
  if (counts.empty()) return "";
  std::string note = "\nMade by (summary.json's `provenance`):";
  for (const ProvenanceFact& fact : kProvenanceFacts)
    note += std::string(&fact == &kProvenanceFacts.front() ? " " : "; ") + fact.name + " " +
            counted_values(counts.at(fact.name));
  return note + ".\n";
}

std::vector<std::string> provenance_differences(
    const std::vector<std::pair<std::string, ProvenanceCounts>>& runs) {
  std::vector<std::string> lines;
  for (const ProvenanceFact& fact : kProvenanceFacts) {
    std::set<std::set<std::string>> per_run;
    for (const auto& [name, counts] : runs) {
      if (!counts.count(fact.name)) continue;
      std::set<std::string> values;
      for (const auto& [value, n] : counts.at(fact.name)) values.insert(value);
      per_run.insert(values);
    }
    if (per_run.size() < 2) continue;
    std::string line =
        std::string(fact.code ? "made by different code" : "built or run differently") + ", " +
        fact.name + ":";
    for (const auto& [name, counts] : runs)
      line += (&name == &runs.front().first ? " " : "; ") + name + " " +
              (counts.count(fact.name) ? counted_values(counts.at(fact.name)) : "not recorded");
    lines.push_back(line);
  }
  return lines;
}

}  // namespace ablate::experiments
