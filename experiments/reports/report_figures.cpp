#include "experiments/reports/report_figures.h"
#include "experiments/records/metrics_log.h"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "experiments/config/report_spec.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/plot_attention_mask.h"
#include "experiments/reports/run_points.h"
#include "experiments/stats/comparison.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The page draws numbers, it does not report them: six significant digits keep a long
// sweep's curves a fraction of the size, and the tables keep their full precision.
json rounded(double x) {
  if (!std::isfinite(x)) return nullptr;
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return std::stod(text);
}

// Evaluation fields that are not curves: the step is the x axis, seconds is wall time.
bool is_curve(const std::string& name) {
  return name != "step" && name != "seconds";
}

struct SeedCurves {
  std::uint64_t seed = 0;
  std::string trial;
  std::vector<std::int64_t> steps;
  std::map<std::string, std::vector<std::optional<double>>> metrics;
};

SeedCurves read_curves(const std::string& metrics_path, const TrialRef& t) {
  SeedCurves c{t.seed, t.id, {}, {}};
  const MetricsLog log = read_metrics_log(metrics_path);
  std::set<std::string> names;
  for (const MetricsLine& m : log.lines)
    for (const auto& [k, v] : m.values)
      if (is_curve(k)) names.insert(k);
  for (const MetricsLine& m : log.lines) {
    c.steps.push_back(m.step);
    for (const std::string& n : names) c.metrics[n].push_back(m.value(n));
  }
  return c;
}

json seeds_json(const std::vector<SeedCurves>& seeds) {
  json out = json::array();
  for (const SeedCurves& c : seeds) {
    json metrics = json::object();
    for (const auto& [name, values] : c.metrics) {
      json v = json::array();
      for (const auto& x : values) v.push_back(x ? rounded(*x) : json(nullptr));
      metrics[name] = v;
    }
    out.push_back({{"seed", c.seed}, {"trial", c.trial}, {"steps", c.steps}, {"metrics", metrics}});
  }
  return out;
}

// Per metric and step, the mean over the seeds that have a finite value there and its
// 95% t interval (none with one seed), clipped to the metric's range (metric_range:
// accuracies [0, 1], losses, learning rate and gradient norm ≥ 0) as comparisons.csv's
// intervals are: the band the page draws under the seeds' lines.
json bands_json(const std::vector<SeedCurves>& seeds) {
  std::map<std::string, std::map<std::int64_t, std::vector<double>>> at;
  for (const SeedCurves& c : seeds)
    for (const auto& [name, values] : c.metrics)
      for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i]) at[name][c.steps[i]].push_back(*values[i]);
  json out = json::object();
  for (const auto& [name, by_step] : at) {
    const MetricRange range = metric_range(name);
    json steps = json::array(), n = json::array(), mean = json::array(), low = json::array(),
         high = json::array();
    for (const auto& [step, values] : by_step) {
      const stats::MeanSummary s = stats::summarize(values);
      steps.push_back(step);
      n.push_back(s.n);
      mean.push_back(rounded(s.mean));
      low.push_back(s.n > 1 ? rounded(std::clamp(s.ci_low, range.low, range.high)) : json(nullptr));
      high.push_back(s.n > 1 ? rounded(std::clamp(s.ci_high, range.low, range.high))
                             : json(nullptr));
    }
    out[name] = {{"steps", steps}, {"n", n}, {"mean", mean}, {"low", low}, {"high", high}};
  }
  return out;
}

// The first seed's attention maps (attention.json, written by sequence tasks; a results
// folder keeps one trial's).
json attention_json(const RunDir& run, const std::vector<TrialRef>& trials) {
  for (const TrialRef& t : trials) {
    const std::string path = run.trial(t.id).attention();
    if (!fs::exists(path)) continue;
    json a = read_json_file(path);
    if (!a.is_object() || !a.contains("modules") || !a["modules"].is_array()) continue;
    // The cells the model's rules masked, rebuilt as the static heatmaps rebuild them,
    // so the page and plots/ cross out the same cells.
    for (json& m : a["modules"]) {
      const AttentionMask mask = attention_mask(m, a);
      m["masked"] = mask.masked;
      m["mask_reasons"] = mask.reasons;
    }
    a["trial"] = t.id;
    a["seed"] = t.seed;
    return a;
  }
  return nullptr;
}

// A tab-separated predictions.tsv field, with its escapes (\t \n \\) undone.
std::string unescape_field(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c;
  }
  return out;
}

constexpr std::size_t kSampleRows = 12;

// The first seed's forecasts.json (forecasting), the first rows of its predictions.tsv
// (sequence tasks), or a language model's samples.txt.
json samples_json(const RunDir& run, const std::vector<TrialRef>& trials) {
  for (const TrialRef& t : trials) {
    const TrialDir dir = run.trial(t.id);
    if (fs::exists(dir.forecasts())) {
      const json f = read_json_file(dir.forecasts());
      if (f.is_object() && f.contains("windows") && f["windows"].is_array())
        return {{"trial", t.id}, {"seed", t.seed}, {"kind", "forecast"}, {"windows", f["windows"]}};
    }
    if (fs::exists(dir.predictions())) {
      std::istringstream in(read_file(dir.predictions()));
      std::string line;
      json columns = json::array(), rows = json::array();
      for (bool header = true; std::getline(in, line) && rows.size() < kSampleRows;
           header = false) {
        json cells = json::array();
        std::istringstream fields(line);
        for (std::string f; std::getline(fields, f, '\t');) cells.push_back(unescape_field(f));
        (header ? columns : rows).push_back(cells);
      }
      return {{"trial", t.id},
              {"seed", t.seed},
              {"kind", "predictions"},
              {"columns", columns.empty() ? json::array() : columns[0]},
              {"rows", rows}};
    }
    if (fs::exists(dir.samples()))
      return {
          {"trial", t.id}, {"seed", t.seed}, {"kind", "text"}, {"text", read_file(dir.samples())}};
  }
  return nullptr;
}

void flatten(const toml::table& table, const std::string& prefix, json& out) {
  for (const auto& [key, node] : table) {
    const std::string path =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (const toml::table* t = node.as_table()) {
      flatten(*t, path, out);
      continue;
    }
    std::ostringstream text;
    if (const auto* s = node.as_string())
      text << s->get();
    else
      node.visit([&](const auto& v) { text << v; });
    out[path] = text.str();
  }
}

// The point's resolved configuration, flattened to dotted keys: its first trial's
// config.toml (every default explicit); a results folder keeps none, so there the
// experiment file's settings with the point's swept and tuned values over them.
json config_json(const RunDir& run, const std::vector<TrialRef>& trials, const PointResults& p) {
  json values = json::object();
  for (const TrialRef& t : trials) {
    const std::string path = run.trial(t.id).config();
    if (!fs::exists(path)) continue;
    toml::table parsed;
    try {
      parsed = toml::parse(read_file(path), path);
    } catch (const toml::parse_error&) {
      continue;  // another trial's may read; the page is no place to report it
    }
    flatten(parsed, "", values);
    values.erase("seed");  // seeds differ within a point; the page compares points
    return {{"source", "config.toml of trial " + t.id}, {"values", values}};
  }
  if (fs::exists(run.experiment())) {
    try {
      toml::table t = toml::parse(read_file(run.experiment()), run.experiment());
      for (const char* section : {"sweep", "report", "tune", "name", "description", "seed"})
        t.erase(section);
      flatten(t, "", values);
    } catch (const toml::parse_error&) {
      // The run was made from it, so it read then; the swept values below still differ.
    }
  }
  for (const auto& [k, v] : p.values) values[k] = v;
  return {{"source",
           "the experiment file with the point's swept values (no trial's config.toml was kept)"},
          {"values", values}};
}

}  // namespace

json report_figures(const std::string& run_dir, const RunPoints& run) {
  const RunDir dir(run_dir);
  const json index = read_json_file(dir.trial_index());
  json out = json::array();
  for (const PointResults& p : run.points) {
    std::vector<TrialRef> trials;
    std::vector<SeedCurves> seeds;
    for (const TrialRef& t : chosen_trials(index, p)) {
      // The trials the tables count: finished, not diverged or failed.
      if (!p.test.count(t.seed)) continue;
      trials.push_back(t);
      const std::string metrics = dir.trial(t.id).metrics();
      if (!fs::exists(metrics)) continue;
      SeedCurves c = read_curves(metrics, t);
      // A record derived from results.csv keeps no evaluations: no curve to draw.
      if (!c.steps.empty()) seeds.push_back(std::move(c));
    }
    json test = json::object();  // seed -> test metric -> value: the dots of metric vs axis
    for (const auto& [seed, values] : p.test) test[std::to_string(seed)] = values;
    out.push_back({{"run", p.run},
                   {"point_id", p.point_id},
                   {"label", p.label},
                   {"values", p.values},
                   {"test", test},
                   {"seeds", seeds_json(seeds)},
                   {"bands", bands_json(seeds)},
                   {"attention", attention_json(dir, trials)},
                   {"samples", samples_json(dir, trials)},
                   {"config", config_json(dir, trials, p)}});
  }
  return out;
}

json provenance_groups(const std::string& run_dir, const std::string& run_name) {
  const RunDir dir(run_dir);
  const json index = read_json_file(dir.trial_index());
  std::map<std::string, json> groups;  // by the group's own text: a stable order
  for (const json& t : index["trials"]) {
    const std::string path = dir.trial(t["id"].get<std::string>()).summary();
    if (!fs::exists(path)) continue;
    const json s = read_json_file(path);
    json key = {{"code_version", s.value("code_version", json())},
                {"computation", s.value("computation", json())},
                {"provenance", s.value("provenance", json())}};
    json& g = groups[key.dump()];
    if (g.is_null()) g = key, g["run"] = run_name, g["trials"] = 0;
    g["trials"] = g["trials"].get<int>() + 1;
  }
  json out = json::array();
  for (auto& [text, g] : groups) out.push_back(std::move(g));
  return out;
}

}  // namespace ablate::experiments
