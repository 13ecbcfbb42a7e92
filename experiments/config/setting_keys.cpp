#include "experiments/config/setting_keys.h"

#include <type_traits>
#include <variant>

#include "experiments/config/declared_key.h"

namespace ablate::experiments {

namespace {

template <class Settings, class Field>
SettingKey<Settings> key(std::string table, nn::OptionSpec spec, Field field,
                         Presence presence = Presence::defaulted) {
  SettingKey<Settings> k{std::move(table), std::move(spec), presence, {}, {}};
  using T = std::remove_cvref_t<decltype(field(std::declval<Settings&>()))>;
  k.set = [field](Settings& s, const nn::OptionValue& v) {
    if constexpr (std::is_same_v<T, std::optional<double>>)
      field(s) = std::get<double>(v);
    else
      field(s) = std::get<T>(v);
  };
  k.holds_default = [field, fallback = k.spec.default_value, presence](const Settings& s) {
    const T& value = field(const_cast<Settings&>(s));
    if constexpr (std::is_same_v<T, std::optional<double>>)
      return !value.has_value();
    else
      return presence == Presence::required ? value == T{} : value == std::get<T>(fallback);
  };
  return k;
}

#define REPORT_FIELD(member)    \
  [](ReportSpec & s) -> auto& { \
    return s.member;            \
  }
#define STUDY_FIELD(member)        \
  [](StudySettings & s) -> auto& { \
    return s.member;               \
  }

// In the order they are read and listed.
std::vector<SettingKey<ReportSpec>> declare_report_keys() {
  return {
      key<ReportSpec>("report",
                      {"equivalence_margin", 0.0,
                       "δ in units of the primary metric: adds the equivalence verdict "
                       "(two one-sided tests) and is the margin of claims on it",
                       1e-300, 1e300},
                      REPORT_FIELD(equivalence_margin), Presence::optional),
      key<ReportSpec>("report",
                      {"metric", std::string(),
                       "the primary test metric; \"\" = the task's first (its test metrics: "
                       "tasks/README.md)"},
                      REPORT_FIELD(metric)),
      key<ReportSpec>("report",
                      {"threshold", 0.0,
                       "adds the curve metric steps_to_<metric>_<T>: the first evaluation step "
                       "at which validation reached T",
                       -1e300, 1e300},
                      REPORT_FIELD(threshold), Presence::optional),
      key<ReportSpec>("report",
                      {"grad_norms_at_init", false,
                       "adds summary.md's table of gradient norms at initialisation (one "
                       "column per module group)"},
                      REPORT_FIELD(grad_norms_at_init)),
      key<ReportSpec>("report",
                      {"lr_sensitivity", std::string(),
                       "a [tune] key run at every setting on every seed (no tune.seeds): adds "
                       "the test metric lr_sensitivity, Wortsman et al. 2023's LR sensitivity "
                       "over its settings"},
                      REPORT_FIELD(lr_sensitivity)),
  };
}

std::vector<SettingKey<StudySettings>> declare_study_keys() {
  return {
      key<StudySettings>(
          "study",
          {"kind", std::string(), "the study", std::nullopt, std::nullopt, {"scaling_gradient"}},
          STUDY_FIELD(kind), Presence::required),
      key<StudySettings>("study",
                         {"literal", true,
                          "the blog's snippets, exactly as its code computes them (its "
                          "`egrad(…, 0)` differentiates with respect to the label)"},
                         STUDY_FIELD(literal)),
      key<StudySettings>("study",
                         {"corrected", true,
                          "the gradient of cross-entropy of softmax(z/s) with respect to the "
                          "logits z"},
                         STUDY_FIELD(corrected)),
      key<StudySettings>("study",
                         {"training", true,
                          "run the file's sweep (`[task]`, `[model]`, `[train]`, `[sweep]`) as "
                          "the training part"},
                         STUDY_FIELD(training)),
      key<StudySettings>("study.attention",
                         {"enabled", true, "the variance argument at the attention level"},
                         STUDY_FIELD(attention)),
      key<StudySettings>("study.attention",
                         {"length", std::int64_t(32), "positions L", 1.0, 4096.0},
                         STUDY_FIELD(attention_length)),
      key<StudySettings>("study.attention",
                         {"seeds", std::int64_t(20),
                          "independent draws of Q, K, V per (d_k, scale)", 2.0, 10000.0},
                         STUDY_FIELD(attention_seeds)),
  };
}

#define ADAPTIVE_FIELD(member)      \
  [](AdaptiveDesign & s) -> auto& { \
    return s.member;                \
  }

std::vector<SettingKey<AdaptiveDesign>> declare_adaptive_keys() {
  return {
      key<AdaptiveDesign>("sweep.adaptive",
                          {"max_seeds", std::int64_t(0),
                           "the budget: most seeds a point receives (at least sweep.seeds' "
                           "count); a point still open there is inconclusive at the budget",
                           2.0, 1000.0},
                          ADAPTIVE_FIELD(max_seeds), Presence::required),
      key<AdaptiveDesign>("sweep.adaptive",
                          {"block", std::int64_t(5),
                           "seeds added to every point still open, per round", 1.0, 1000.0},
                          ADAPTIVE_FIELD(block)),
      key<AdaptiveDesign>("sweep.adaptive",
                          {"design",
                           std::string("group_sequential"),
                           "how each round decides: group-sequential tests spending α over the "
                           "planned looks, or the anytime-valid confidence sequence (any looks, "
                           "and past the budget)",
                           std::nullopt,
                           std::nullopt,
                           {"group_sequential", "confidence_sequence"}},
                          ADAPTIVE_FIELD(design)),
      key<AdaptiveDesign>("sweep.adaptive",
                          {"spending",
                           std::string("power"),
                           "group_sequential: how α is spent over the looks — α t² (power), "
                           "Lan–DeMets O'Brien–Fleming-type (late) or Pocock-type (even)",
                           std::nullopt,
                           std::nullopt,
                           {"power", "obrien_fleming", "pocock"}},
                          ADAPTIVE_FIELD(spending)),
      key<AdaptiveDesign>("sweep.adaptive",
                          {"futility", true,
                           "group_sequential: a question that can no longer reach a verdict "
                           "within the budget (non-binding β-spending) gets no more seeds"},
                          ADAPTIVE_FIELD(futility)),
  };
}

#undef ADAPTIVE_FIELD

std::vector<SettingKey<HalvingSchedule>> declare_halving_keys() {
  return {key<HalvingSchedule>(
      "tune.halving",
      {"keep", 0.5,
       "the fraction of the settings still running that continues past each rung (rounded "
       "up): 0.5 halves them, 0.6 keeps 3 of 5",
       0.01, 0.99},
      [](HalvingSchedule & s) -> auto& { return s.keep; })};
}
#undef REPORT_FIELD
#undef STUDY_FIELD

template <class Settings>
void read_keys(TomlReader& r, Settings& settings, const std::vector<SettingKey<Settings>>& keys) {
  for (const SettingKey<Settings>& k : keys) {
    if (k.table != r.path()) continue;
    if (k.presence == Presence::required &&
        std::holds_alternative<std::string>(k.spec.default_value)) {
      k.set(settings, r.required_string(k.spec.key, k.spec.choices));
      continue;
    }
    if (k.presence == Presence::required && !(r.raw() && r.raw()->contains(k.spec.key))) {
      r.problem(k.spec.key, "is required");
      continue;
    }
    if (k.presence == Presence::optional && !(r.raw() && r.raw()->contains(k.spec.key))) continue;
    k.set(settings, read_declared(r, k.spec));
  }
}

template <class Settings>
void add_markdown(const std::vector<SettingKey<Settings>>& keys, const std::string& table,
                  std::string& rows) {
  for (const SettingKey<Settings>& k : keys) {
    if (k.table != table) continue;
    const std::string given = k.presence == Presence::required ? "(required)"
                              : k.presence == Presence::optional
                                  ? "(not set)"
                                  : "`" + declared_value_text(k.spec.default_value) + "`";
    rows += "| `" + k.spec.key + "` | " + declared_type_name(k.spec.default_value) + " | " + given +
            " | " + declared_allowed(k.spec) + " | " + k.spec.doc + " |\n";
  }
}

template <class Settings>
void add_lines(const std::vector<SettingKey<Settings>>& keys, std::string& out) {
  for (const SettingKey<Settings>& k : keys) {
    const std::string path = k.path();
    const std::string given = k.presence == Presence::required ? " (required)"
                              : k.presence == Presence::optional
                                  ? " (optional)"
                                  : " = " + declared_value_text(k.spec.default_value);
    out += "  " + path + std::string(path.size() < 34 ? 34 - path.size() : 1, ' ') +
           declared_type_name(k.spec.default_value) + given;
    if (std::string a = declared_allowed(k.spec); !a.empty()) out += "  [" + a + "]";
    out += "  " + k.spec.doc + "\n";
  }
}

}  // namespace

const std::vector<SettingKey<ReportSpec>>& report_keys() {
  static const std::vector<SettingKey<ReportSpec>> keys = declare_report_keys();
  return keys;
}

const std::vector<SettingKey<StudySettings>>& study_keys() {
  static const std::vector<SettingKey<StudySettings>> keys = declare_study_keys();
  return keys;
}

const std::vector<SettingKey<AdaptiveDesign>>& adaptive_keys() {
  static const std::vector<SettingKey<AdaptiveDesign>> keys = declare_adaptive_keys();
  return keys;
}

const std::vector<SettingKey<HalvingSchedule>>& halving_keys() {
  static const std::vector<SettingKey<HalvingSchedule>> keys = declare_halving_keys();
  return keys;
}

void read_setting_keys(TomlReader& r, ReportSpec& settings) {
  read_keys(r, settings, report_keys());
}
void read_setting_keys(TomlReader& r, StudySettings& settings) {
  read_keys(r, settings, study_keys());
}
void read_setting_keys(TomlReader& r, AdaptiveDesign& settings) {
  read_keys(r, settings, adaptive_keys());
}
void read_setting_keys(TomlReader& r, HalvingSchedule& settings) {
  read_keys(r, settings, halving_keys());
}

std::string setting_keys_markdown(const std::string& table) {
  std::string rows;
  add_markdown(report_keys(), table, rows);
  add_markdown(study_keys(), table, rows);
  add_markdown(adaptive_keys(), table, rows);
  if (table == "tune.halving") rows += kHalvingRungsRow;
  add_markdown(halving_keys(), table, rows);
  return rows.empty() ? "" : kKeyTableHeader + rows;
}

std::string format_setting_keys() {
  std::string out;
  add_lines(report_keys(), out);
  add_lines(study_keys(), out);
  add_lines(adaptive_keys(), out);
  out += kHalvingRungsLine;
  add_lines(halving_keys(), out);
  return out;
}

void add_setting_key_words(std::set<std::string>& words) {
  for (const auto& k : report_keys()) add_path_words(k.path(), words);
  for (const auto& k : study_keys()) {
    add_path_words(k.path(), words);
    for (const std::string& c : k.spec.choices) words.insert(c);
  }
  for (const auto& k : adaptive_keys()) add_path_words(k.path(), words);
  for (const auto& k : halving_keys()) add_path_words(k.path(), words);
  for (const char* table_key : {"baseline", "claims", "d_k", "rungs"}) words.insert(table_key);
}

}  // namespace ablate::experiments
