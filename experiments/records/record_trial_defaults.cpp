#include "experiments/records/record_trial_defaults.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <utility>

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

constexpr const char* kSharedSummaryParts[] = {"provenance", "files", "code_version",
                                               "computation"};

}  // namespace

json trial_defaults(const std::vector<json>& summaries) {
  json defaults = json::object();
  for (const char* part : kSharedSummaryParts) {
    std::map<std::string, std::pair<int, std::size_t>> seen;  // dump → count, first summary
    for (std::size_t i = 0; i < summaries.size(); ++i)
      if (summaries[i].contains(part))
        seen.try_emplace(summaries[i][part].dump(), 0, i).first->second.first++;
    const std::pair<int, std::size_t>* best = nullptr;
    for (const auto& [text, s] : seen)
      if (!best || s.first > best->first || (s.first == best->first && s.second < best->second))
        best = &s;
    if (best && best->first >= 2) defaults[part] = summaries[best->second][part];
  }
  return defaults;
}

json drop_trial_defaults(json& summary, const json& defaults) {
  json lacks = json::array();
  for (auto it = defaults.begin(); it != defaults.end(); ++it) {
    if (!summary.contains(it.key()))
      lacks.push_back(it.key());
    else if (summary[it.key()] == it.value())
      summary.erase(it.key());
  }
  return lacks;
}

void restore_trial_defaults(json& summary, const json& defaults, const json& lacks) {
  for (auto it = defaults.begin(); it != defaults.end(); ++it)
    if (!summary.contains(it.key()) &&
        std::find(lacks.begin(), lacks.end(), json(it.key())) == lacks.end())
      summary[it.key()] = it.value();
}

}  // namespace ablate::experiments
