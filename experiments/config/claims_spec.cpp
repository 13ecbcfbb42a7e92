#include "experiments/config/claims_spec.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "experiments/config/axis_values.h"
#include "experiments/config/toml_reader.h"
#include "experiments/config/toml_writer.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out.append(out.empty() ? "" : ", ").append(i);
  return out;
}

// The entries of `axis` whose values agree with every (key, value) of `named` that is
// one of the axis's keys (all entries when none is).
std::vector<std::size_t> matching_entries(
    const AxisValues& axis, const std::vector<std::pair<std::string, std::string>>& named) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < axis.values[0].size(); ++i) {
    bool fits = true;
    for (const auto& [key, value] : named)
      for (std::size_t k = 0; k < axis.keys.size(); ++k)
        if (axis.keys[k] == key && axis.values[k][i] != value) fits = false;
    if (fits) out.push_back(i);
  }
  return out;
}

// The point of `claim` read from `c`; problems for keys that are not swept and values
// that are not swept values.
std::vector<std::pair<std::string, std::string>> read_point(TomlReader& c,
                                                            const std::vector<AxisValues>& axes) {
  std::vector<std::pair<std::string, std::string>> point;
  if (!c.raw() || !c.raw()->get("point")) {
    c.problem("",
              "missing required key 'point' (the swept values that pick the point, e.g. point = { "
              "\"model.heads\" = 1 })");
    c.node("point");
    return point;
  }
  const toml::table* table = c.table("point");
  if (!table) return point;
  TomlReader p = c.child(table, "point");
  std::vector<std::string> swept;
  for (const AxisValues& a : axes) swept.insert(swept.end(), a.keys.begin(), a.keys.end());
  if (table->empty())
    c.problem("point", std::string("names no swept key; a claim's point names swept keys: ") +
                           joined(swept));
  for (const auto& [k, v] : *table) {
    const std::string key(k.str());
    p.node(key);
    const std::vector<std::string>* values = swept_values(axes, key);
    if (!values) {
      p.problem(key, swept.empty()
                         ? "the experiment sweeps nothing, so there is no point to compare"
                         : std::string("is not a swept key; a claim's point names swept keys: ") +
                               joined(swept));
      continue;
    }
    const std::string value = display_value(v);
    if (std::find(values->begin(), values->end(), value) == values->end()) {
      p.problem(key, std::string("\"").append(value).append("\" is not one of the swept values: ") +
                         joined(*values));
      continue;
    }
    point.emplace_back(key, value);
  }
  p.finish();
  return point;
}

// A problem when `point` picks no sweep point (values of one [sweep.zip] group that no
// entry has together) or picks a baseline, which is compared with nothing; false then.
bool check_pick(TomlReader& c, const std::vector<std::pair<std::string, std::string>>& point,
                const std::vector<AxisValues>& axes,
                const std::vector<std::pair<std::string, std::string>>& baseline) {
  bool picks_a_baseline = true;
  std::string baseline_picked;  // the values it shares with the baseline, for the message
  for (const AxisValues& a : axes) {
    const std::vector<std::size_t> picked = matching_entries(a, point);
    if (picked.empty()) {
      std::vector<std::string> given;
      for (const auto& [key, value] : point)
        if (std::find(a.keys.begin(), a.keys.end(), key) != a.keys.end())
          given.push_back(key + " = " + value);
      c.problem("point", std::string("picks no point: no entry of its [sweep.zip] group has ") +
                             joined(given) + " together");
      return false;
    }
    const std::vector<std::size_t> as_baseline = matching_entries(a, baseline);
    auto shared =
        std::find_first_of(picked.begin(), picked.end(), as_baseline.begin(), as_baseline.end());
    if (shared == picked.end())
      picks_a_baseline = false;
    else
      for (std::size_t k = 0; k < a.keys.size(); ++k)
        if (std::any_of(baseline.begin(), baseline.end(),
                        [&](const auto& kv) { return kv.first == a.keys[k]; }))
          baseline_picked.append(baseline_picked.empty() ? "" : " ")
              .append(a.keys[k] + "=" + a.values[k][*shared]);
  }
  if (!picks_a_baseline || axes.empty()) return true;
  c.problem(
      "point",
      std::string("picks a baseline point (") + baseline_picked +
          "), which is compared with nothing: name values that differ from [report] baseline");
  return false;
}

// min_effect: on better / worse only, > 0.
void read_min_effect(TomlReader& c, ClaimSpec& claim) {
  if (!c.raw()->contains("min_effect")) return;
  const double v = c.number("min_effect", NAN, -1e300, 1e300);
  if (std::isnan(v)) return;  // not a number: said
  if (expectation_needs_margin(claim.expect)) {
    c.problem("min_effect",
              "is for expect = \"better\" or \"worse\" (better or worse by more "
              "than this much); expect = \"" +
                  claim.expect + "\" is judged against a margin");
  } else if (!(v > 0)) {
    std::ostringstream text;
    text << "= " << v
         << " must be > 0: the gain (or harm) the claim asserts to exceed, in units of its "
            "metric (leave it out for any gain)";
    c.problem("min_effect", text.str());
  } else {
    claim.min_effect = v;
  }
}

// Whether entry i of `axis` has the values of entry j (a zip group's entries may repeat
// a value of one key, never all of them).
bool same_entry(const AxisValues& axis, std::size_t i, std::size_t j) {
  for (const std::vector<std::string>& v : axis.values)
    if (v[i] != v[j]) return false;
  return true;
}

bool names_a_key_of(const std::vector<std::pair<std::string, std::string>>& named,
                    const AxisValues& axis) {
  return std::any_of(named.begin(), named.end(), [&axis](const auto& kv) {
    return std::find(axis.keys.begin(), axis.keys.end(), kv.first) != axis.keys.end();
  });
}

// "k=v k=v" of entry `entry[a]` of every axis, as point labels show a point.
std::string label_of(const std::vector<AxisValues>& axes, const std::vector<std::size_t>& entry) {
  std::string out;
  for (std::size_t a = 0; a < axes.size(); ++a)
    for (std::size_t k = 0; k < axes[a].keys.size(); ++k)
      out.append(out.empty() ? "" : " ")
          .append(axes[a].keys[k] + "=" + axes[a].values[k][entry[a]]);
  return out;
}

// A problem when a point the claim picks differs from its baseline in an axis the claim
// does not name: an axis [report] baseline fixes, whose other entries the claim's point
// leaves free. Its verdict would be about two changes at once, under a one-change claim.
void check_baseline_keys(TomlReader& c, const ClaimSpec& claim, const std::vector<AxisValues>& axes,
                         const std::vector<std::pair<std::string, std::string>>& baseline) {
  std::vector<std::size_t> example(axes.size()), its_baseline(axes.size());
  std::vector<std::string> unnamed;   // the keys of the axes it differs in
  std::size_t picked = 1, alike = 1;  // points picked; of them, equal to their baseline there
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const std::vector<std::size_t> entries = matching_entries(axes[a], claim.point);
    const std::vector<std::size_t> fixed = matching_entries(axes[a], baseline);
    if (entries.empty() || fixed.empty()) return;  // picks nothing: said by check_pick
    picked *= entries.size();
    example[a] = its_baseline[a] = entries.front();
    if (!names_a_key_of(baseline, axes[a])) {  // free: each point keeps its own value
      alike *= entries.size();
      continue;
    }
    its_baseline[a] = fixed.front();
    if (names_a_key_of(claim.point, axes[a])) {
      alike *= entries.size();
      continue;
    }
    auto differs = [&](std::size_t e) { return !same_entry(axes[a], e, fixed.front()); };
    const auto other = std::find_if(entries.begin(), entries.end(), differs);
    alike *= entries.size() - std::size_t(std::count_if(entries.begin(), entries.end(), differs));
    if (other == entries.end()) continue;
    example[a] = *other;
    unnamed.insert(unnamed.end(), axes[a].keys.begin(), axes[a].keys.end());
  }
  if (unnamed.empty()) return;
  const std::size_t more = picked - alike - 1;
  const std::string them = joined(unnamed), it = unnamed.size() == 1 ? "it" : "them";
  c.problem("point",
            "the claim \"" + excerpt(claim.claim, 60) + "\" picks " + label_of(axes, example) +
                (more ? " (and " + std::to_string(more) + " more point" + (more == 1 ? "" : "s") +
                            " like it)"
                      : std::string()) +
                ", compared with its baseline " + label_of(axes, its_baseline) +
                ": they differ also in " + them + ", which the claim's point does not name. Name " +
                it + " in point (a comparison across these keys too), or leave " + it +
                " out of [report] baseline (each point then compared with the baseline "
                "at its own " +
                them + ")");
}

}  // namespace

const std::vector<std::string>& claim_expectations() {
  static const std::vector<std::string> all{"better", "worse", "equivalent", "not_worse",
                                            "not_better"};
  return all;
}

bool expectation_needs_margin(const std::string& expect) {
  return expect == "equivalent" || expect == "not_worse" || expect == "not_better";
}

std::string claim_metric(const ClaimSpec& claim, const std::string& primary) {
  return claim.metric.empty() ? primary : claim.metric;
}

std::optional<double> claim_margin(const ClaimSpec& claim, const std::string& primary,
                                   std::optional<double> equivalence_margin) {
  if (claim.margin) return claim.margin;
  return claim_metric(claim, primary) == primary ? equivalence_margin : std::nullopt;
}

std::vector<ClaimSpec> read_claims(
    TomlReader& report, const std::vector<AxisValues>& axes,
    const std::vector<std::pair<std::string, std::string>>& baseline) {
  std::vector<ClaimSpec> claims;
  const toml::node* node = report.node("claims");
  if (!node) return claims;
  const toml::array* array = node->as_array();
  if (!array || !array->is_array_of_tables()) {
    report.problem("claims", "must be an array of tables: one [[report.claims]] per claim");
    return claims;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    TomlReader c =
        report.child((*array)[i].as_table(), std::string("claims[") + std::to_string(i) + "]");
    ClaimSpec claim;
    claim.claim = c.required_string("claim");
    if (c.raw()->contains("claim") && claim.claim.empty())
      c.problem("claim", "is empty: state the finding");
    claim.expect = c.required_string("expect", claim_expectations());
    claim.metric = c.string("metric", "");
    if (c.raw()->contains("margin")) claim.margin = c.number("margin", 0.0, 1e-300, 1e300);
    read_min_effect(c, claim);
    claim.point = read_point(c, axes);
    if (!claim.point.empty() && check_pick(c, claim.point, axes, baseline))
      check_baseline_keys(c, claim, axes, baseline);
    c.finish();
    claims.push_back(std::move(claim));
  }
  return claims;
}

}  // namespace ablate::experiments
