#include "experiments/reports/preregistration.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "experiments/analysis/successive_halving.h"
#include "experiments/config/experiment.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/code_version.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/claims_report.h"
#include "experiments/stats/verdicts.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

bool any_trial_finished(const std::string& run_dir) {
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(RunDir(run_dir).trials(), ec))
    if (fs::exists(TrialDir(d.path().string()).summary())) return true;
  return false;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

namespace {

json baseline_json(const std::vector<std::pair<std::string, std::string>>& baseline) {
  json out = json::object();
  for (const auto& [k, v] : baseline) out[k] = v;
  return out;
}

std::string listed(const std::set<std::uint64_t>& seeds) {
  std::string out;
  for (std::uint64_t s : seeds) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

}  // namespace

std::string seeds_text(const json& index) {
  // A two-stage [tune] (tune.seeds): the same text in either stage, whichever trials
  // the index lists yet.
  const json tuning = index.value("tuning", json::object());
  const std::string tuned_on =
      tuning.contains("seeds")
          ? "; tuned on " + listed(tuning["seeds"].get<std::set<std::uint64_t>>())
          : "";
  if (std::optional<AdaptiveIndex> adaptive = adaptive_of_index(index)) {
    std::string out = "first block";
    for (std::uint64_t s : adaptive->first_seeds)
      out += (out.back() == 'k' ? " " : ", ") + std::to_string(s);
    return out + "; " + adaptive_design_text(adaptive->design) + tuned_on;
  }
  if (tuning.contains("sweep_seeds"))
    return listed(tuning["sweep_seeds"].get<std::set<std::uint64_t>>()) + tuned_on;
  std::set<std::uint64_t> seeds;
  for (const json& t : index.value("trials", json::array()))
    seeds.insert(t.value("seed", std::uint64_t(0)));
  return listed(seeds);
}

std::string family_text(const json& index) {
  // An adaptive design's rounds share α by the rule of its method (stats/sequential_family.h).
  if (std::optional<AdaptiveIndex> adaptive = adaptive_of_index(index))
    return adaptive->design.design == "confidence_sequence"
               ? "Bonferroni over the file's questions and their points"
               : "graphical procedure over the file's questions (Maurer and Bretz 2013: equal "
                 "weights and transitions, sequential Holm; per direction for claims), a claim "
                 "over k points agreeing at its level in all, disagreeing at its level / k in one";
  return "Holm over the file's claims, per direction";
}

std::string tune_grid_text(const json& index) {
  std::map<std::string, std::set<std::string>> grid;
  for (const json& t : index.value("trials", json::array())) {
    const json tune = t.value("tune", json::object());  // kept: items() refers into it
    for (const auto& [k, v] : tune.items()) grid[k].insert(v.get<std::string>());
  }
  std::string out;
  for (const auto& [key, values] : grid) {
    out += (out.empty() ? "" : "; ") + key + " =";
    for (const std::string& v : values) out += " " + v;
  }
  // Which settings train to the end depends on the halving schedule: frozen with the grid.
  if (const std::optional<HalvingSchedule> halving = halving_of_index(index))
    out += "; halving: " + halving_text(*halving);
  return out;
}

void freeze_preregistration(const std::string& run_dir, const Experiment& e) {
  const std::string path = RunDir(run_dir).preregistration();
  if (fs::exists(path) || any_trial_finished(run_dir)) return;
  // Just written: the run's seeds and grid.
  const json index = read_json_file(RunDir(run_dir).trial_index());
  const json record{{"frozen_at", utc_now()},
                    {"code_version", code_version()},
                    {"alpha", stats::kAlpha},
                    {"claims", claims_json(e.report.claims)},
                    {"metric", e.report.metric},
                    {"equivalence_margin",
                     e.report.equivalence_margin ? json(*e.report.equivalence_margin) : json()},
                    {"seeds", seeds_text(index)},
                    {"tune_grid", tune_grid_text(index)},
                    {"baseline", baseline_json(e.report.baseline)},
                    {"split", kClaimsSplit},
                    {"family", family_text(index)}};
  // Written whole beside its name, then linked to it: link() fails if another process
  // (a shard starting the same run) froze it first, and theirs stands.
  const std::string draft = path + ".draft-" + std::to_string(::getpid());
  write_file_atomically(draft, record.dump(2) + "\n");
  ::link(draft.c_str(), path.c_str());
  fs::remove(draft);
}

std::optional<AdaptiveIndex> adaptive_of_index(const json& index) {
  if (!index.contains("adaptive")) return std::nullopt;
  const json& a = index["adaptive"];
  AdaptiveIndex out;
  out.first_seeds = a.at("first_seeds").get<std::vector<std::uint64_t>>();
  out.design.max_seeds = a.at("max_seeds").get<std::int64_t>();
  out.design.block = a.at("block").get<std::int64_t>();
  // An index without the key predates the choice: its rounds were the confidence sequence's.
  out.design.design = a.value("design", std::string("confidence_sequence"));
  out.design.spending = a.value("spending", std::string("power"));
  out.design.futility = a.value("futility", true);
  // From another machine: what the design may be is what the file may say.
  const bool sequential = out.design.design == "group_sequential";
  if (out.first_seeds.size() < 2 || out.design.block < 1 || out.design.block > 1000 ||
      out.design.max_seeds < std::int64_t(out.first_seeds.size()) || out.design.max_seeds > 1000 ||
      (!sequential && out.design.design != "confidence_sequence") ||
      (out.design.spending != "power" && out.design.spending != "obrien_fleming" &&
       out.design.spending != "pocock") ||
      (sequential && planned_look_count(std::int64_t(out.first_seeds.size()), out.design) >
                         kMaxGroupSequentialLooks))
    throw std::runtime_error("trials.json: \"adaptive\" is not a design ablate writes");
  return out;
}

std::optional<Preregistration> read_preregistration(const std::string& run_dir) {
  const std::string path = RunDir(run_dir).preregistration();
  if (!fs::exists(path)) return std::nullopt;
  const json record = read_json_file(path);
  try {
    Preregistration p;
    p.frozen_at = record.at("frozen_at").get<std::string>();
    p.code_version = record.at("code_version").get<std::string>();
    p.claims = claims_from_json(record.at("claims"));
    p.metric = record.value("metric", "");
    if (record.contains("equivalence_margin") && !record["equivalence_margin"].is_null())
      p.equivalence_margin = record["equivalence_margin"].get<double>();
    p.seeds = record.at("seeds").get<std::string>();
    p.tune_grid = record.at("tune_grid").get<std::string>();
    if (record.contains("baseline")) {  // an object: sorted by key, as trials.json has it
      p.baseline.emplace();
      for (const auto& [k, v] : record["baseline"].items())
        p.baseline->emplace_back(k, v.get<std::string>());
    }
    if (record.contains("split")) p.split = record["split"].get<std::string>();
    if (record.contains("family")) p.family = record["family"].get<std::string>();
    for (const ClaimSpec& c : p.claims) {
      stats::expectation_from(c.expect);  // a word the rules know
      if (c.min_effect && (!(*c.min_effect > 0) || expectation_needs_margin(c.expect)))
        throw std::runtime_error("a min_effect that is not > 0 or not on better / worse");
    }
    return p;
  } catch (
      const std::exception& e) {  // a value of another type, a key missing, an unknown expectation
    throw std::runtime_error(path + ": not a pre-registration record (" + e.what() + ")");
  }
}

}  // namespace ablate::experiments
