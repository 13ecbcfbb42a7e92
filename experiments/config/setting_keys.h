#pragma once
// The keys of the tables that configure a run rather than a trial — [report] and
// [study] — declared once, as the trial's plain keys are (plain_keys.h): the
// declaration drives reading them, `ablate list`, their key tables in
// docs/reference/ (a test compares them) and the fuzz dictionary. None is part of
// a trial's identity. Tables inside them that are not scalar keys ([report.baseline],
// [[report.claims]], study.attention.d_k's list) are read by their own code.
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "experiments/config/adaptive_design.h"
#include "experiments/config/halving_schedule.h"
#include "experiments/config/report_spec.h"
#include "experiments/config/toml_reader.h"
#include "nn/options.h"

namespace ablate::experiments {

// [study] (the scaling-gradient study, experiments/study/): what it runs.
struct StudySettings {
  std::string kind;  // required: scaling_gradient
  bool literal = true, corrected = true, training = true;
  bool attention = true;  // study.attention.enabled
  std::int64_t attention_length = 32, attention_seeds = 20;
};

// How a key is given: with a default, optionally (absent = not set: the setter is not
// called), or necessarily (absent = a problem).
enum class Presence { defaulted, optional, required };

template <class Settings>
struct SettingKey {
  std::string table;    // "report", "study", "study.attention"
  nn::OptionSpec spec;  // key, default (its type is the key's type), doc, range, choices
  Presence presence = Presence::defaulted;
  std::function<void(Settings&, const nn::OptionValue&)> set;
  // Whether `settings` holds what an absent key leaves: the default (unset, for an
  // optional key). A test checks it of a default-built struct, so the two agree.
  std::function<bool(const Settings&)> holds_default;
  std::string path() const { return table + "." + spec.key; }
};

const std::vector<SettingKey<ReportSpec>>& report_keys();
const std::vector<SettingKey<StudySettings>>& study_keys();
const std::vector<SettingKey<AdaptiveDesign>>& adaptive_keys();
// [tune.halving]'s scalar keys (its list `rungs` is read by halving_reader.cpp).
const std::vector<SettingKey<HalvingSchedule>>& halving_keys();

// Read every declared key of the reader's table into `settings`.
void read_setting_keys(TomlReader& r, ReportSpec& settings);
void read_setting_keys(TomlReader& r, StudySettings& settings);
void read_setting_keys(TomlReader& r, AdaptiveDesign& settings);
void read_setting_keys(TomlReader& r, HalvingSchedule& settings);

// The Markdown key table of `table` ("report", "study", "study.attention",
// "sweep.adaptive", "tune.halving"), as
// a page of docs/reference/ holds it between <!-- keys: TABLE --> and <!-- /keys -->; "" for
// a table that has none.
std::string setting_keys_markdown(const std::string& table);
// One line per key, for `ablate list`.
std::string format_setting_keys();
// The tables and keys, for the fuzz dictionary.
void add_setting_key_words(std::set<std::string>& words);

}  // namespace ablate::experiments
