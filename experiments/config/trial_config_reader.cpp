// TOML → TrialConfig, validating as it reads (see trial_config.h and
// docs/reference/ for the schema).
#include <algorithm>
#include <limits>
#include <regex>

#include "experiments/config/model_construction_check.h"
#include "experiments/config/plain_keys.h"
#include "experiments/config/suggestions.h"
#include "experiments/config/task_cache.h"
#include "experiments/config/toml_reader.h"
#include "experiments/config/trial_config.h"
#include "experiments/models/model_factory.h"
#include "experiments/tasks/task.h"
#include "nn/attention/query_key.h"
#include "nn/attention/score_scale.h"
#include "nn/attention/value.h"
#include "nn/feed_forward.h"
#include "nn/norms/norm.h"
#include "nn/optim/optimizer.h"
#include "nn/optim/schedule.h"
#include "nn/positions/position_encoding.h"

namespace ablate::experiments {

namespace {

// A run's name is its directory's: ASCII letters, digits, '_', '-', '.' and any
// non-ASCII character (a Chinese or accented name is fine; the file is valid UTF-8 by
// now) except the invisible ones — C1 controls, no-break and other Unicode spaces,
// zero-width and direction marks, the byte order mark — and never "." or "..".
// The SHA-256 of every file the task's options name. A digest recorded in the file (a
// trial's config.toml) that no longer matches means the data changed since that trial
// ran: an error, since running it would not reproduce it. A file that cannot be read
// is left to the task, whose own error names it.
void read_file_digests(TomlReader& task, const TaskRegistry::Entry& entry,
                       const std::string& base_dir,
                       const std::map<std::string, std::string>& recorded, FileDigests& digests,
                       TaskSpec& spec) {
  for (const nn::OptionSpec& o : entry.options) {
    if (!o.names_file || !spec.options.has(o.key) || spec.options.get_string(o.key).empty())
      continue;
    std::string path;
    try {
      path = resolve_data_path(base_dir, spec.options.get_string(o.key));
    } catch (const std::runtime_error& e) {  // a data: reference to a dataset not fetched
      task.problem(o.key, e.what());
      continue;
    }
    std::string digest;
    try {
      digest = digests.sha256(path);
    } catch (const std::runtime_error&) {
      continue;
    }
    if (auto r = recorded.find(o.key); r != recorded.end() && r->second != digest)
      task.problem(o.key + "_sha256",
                   path + " has changed since this config was resolved (SHA-256 " +
                       r->second.substr(0, 12) + "… recorded, " + digest.substr(0, 12) +
                       "… now); delete this key to run on the new content");
    spec.file_sha256[o.key] = digest;
  }
}

bool is_run_name(const std::string& name) {
  static const std::regex allowed("([A-Za-z0-9_.-]|[\x80-\xFF])+");
  static const std::regex invisible(
      "\xC2[\x80-\xA0\xAD]|\xE1\x9A\x80|\xE1\xA0\x8E|\xE2\x80[\x80-\x8F\xA8-\xAF]|"
      "\xE2\x81[\x9F-\xAF]|\xE3\x80\x80|\xEF\xBB\xBF");
  return std::regex_match(name, allowed) && !std::regex_search(name, invisible) &&
         name.find_first_not_of('.') != std::string::npos;
}

// Checks kind and options against the registry; problems go to `r` at `kind_key` (the
// kind) and at each option's own key. An unknown option is listed with every key
// allowed there: the kind's options and the table's other keys (`table_keys`, e.g.
// model.norm's placement and final).
template <class Registry>
nn::Component resolve(TomlReader& r, const std::string& kind_key, const Registry& registry,
                      const std::string& kind, const nn::Options& given,
                      const std::vector<std::string>& table_keys = {}) {
  const auto* entry = registry.find(kind);
  if (!entry) {
    std::vector<std::string> descriptions;
    for (const auto& e : registry.entries()) descriptions.push_back(e.description);
    std::string msg = "unknown " + registry.axis() + " '" + kind + "'";
    if (auto m = closest_name(kind, registry.names(), descriptions))
      msg += " (did you mean '" + *m + "'?)";
    msg += "; allowed:";
    for (const std::string& n : registry.names()) msg += " " + n;
    r.problem(kind_key, msg);
    return {kind, given};
  }
  std::vector<std::string> allowed = table_keys;
  for (const nn::OptionSpec& o : entry->options) allowed.push_back(o.key);
  std::vector<nn::OptionIssue> issues;
  nn::Options resolved = nn::resolve_options(entry->options, given, issues);
  for (const nn::OptionIssue& issue : issues)
    if (std::any_of(entry->options.begin(), entry->options.end(),
                    [&](const nn::OptionSpec& o) { return o.key == issue.key; }))
      r.problem(issue.key, issue.message);
    else
      r.unknown_name(issue.key, "unknown option '" + issue.key + "'", allowed);
  return {kind, resolved};
}

// The rest of a component table: "kind" plus options (other keys already read).
template <class Registry>
nn::Component component_from_table(TomlReader& r, const Registry& registry,
                                   const std::string& fallback) {
  std::string kind = r.string("kind", fallback);
  const std::vector<std::string> table_keys = r.known_keys();
  return resolve(r, "kind", registry, kind, r.remaining_as_options(), table_keys);
}

// A component written as its name ("rotary") or as a table ({ kind = "rotary", base = 500.0 }).
template <class Registry>
nn::Component component_at(TomlReader& parent, const std::string& key, const Registry& registry,
                           const std::string& fallback) {
  const toml::node* n = parent.node(key);
  if (!n) return resolve(parent, key, registry, fallback, {});
  if (n->is_string()) return resolve(parent, key, registry, *n->value<std::string>(), {});
  if (n->is_table()) {
    TomlReader sub = parent.child(n->as_table(), key);
    nn::Component c = component_from_table(sub, registry, fallback);
    sub.finish();
    return c;
  }
  parent.problem(key, "must be a name (string) or a table with a 'kind'");
  return {fallback, {}};
}

void read_attention(TomlReader& model, TrialConfig& c) {
  nn::AttentionConfig& a = c.model.transformer.attention;
  TomlReader r = model.child(model.table("attention"), "attention");
  a.qk = component_at(r, "qk", nn::query_key_registry(), "separate");
  a.v = component_at(r, "v", nn::value_registry(), "projected");
  const toml::node* scale = r.node("scale");
  if (scale && scale->is_number())  // scale = 0.5 is shorthand for a constant factor
    a.scale = resolve(r, "scale", nn::score_scale_registry(), "constant",
                      {{"value", *scale->value<double>()}});
  else
    a.scale = component_at(r, "scale", nn::score_scale_registry(), "sqrt_dk");
  read_plain_keys(r, c);
  r.finish();
}

void read_model(TomlReader& top, TrialConfig& c) {
  TomlReader r = top.child(top.table("model"), "model");
  nn::TransformerConfig& t = c.model.transformer;
  read_plain_keys(r, c);
  if (t.d_ff == 0) t.d_ff = 4 * t.d_model;
  if (const toml::node* layers = r.node("layers"); layers && layers->is_integer()) {
    t.encoder_layers = t.decoder_layers = r.integer("layers", 2, 0, 64);  // layers = N: both stacks
  } else {
    TomlReader l = r.child(r.table("layers"), "layers");
    read_plain_keys(l, c);
    l.finish();
  }
  read_attention(r, c);
  t.positions = component_at(r, "positions", nn::position_registry(), "sinusoidal");
  t.ffn = component_at(r, "ffn", nn::feed_forward_registry(), "relu");
  if (const toml::node* norm = r.node("norm"); norm && norm->is_table()) {
    TomlReader n = r.child(norm->as_table(), "norm");
    read_plain_keys(n, c);
    t.norm = component_from_table(n, nn::norm_registry(), "layer");
    n.finish();
  } else {
    TomlReader defaults =
        r.child(nullptr, "norm");  // norm = "rms": placement and final keep their defaults
    read_plain_keys(defaults, c);
    t.norm = component_at(r, "norm", nn::norm_registry(), "layer");
  }
  r.finish();
}

void read_train(TomlReader& top, TrialConfig& c) {
  TrainSpec& s = c.train;
  TomlReader r = top.child(top.table("train"), "train");
  read_plain_keys(r, c);
  if (const toml::node* opt = r.node("optimizer"); opt && opt->is_table()) {
    TomlReader o = r.child(opt->as_table(), "optimizer");
    if (o.raw()->get("lr")) {  // optimizer = { kind = "adam", lr = 1e-3 } is accepted too
      if (r.raw() && r.raw()->get("lr"))
        o.problem("lr", "the learning rate is given twice (train.lr and train.optimizer.lr)");
      s.lr = o.number("lr", s.lr, 1e-12, 100.0);
    }
    s.optimizer = component_from_table(o, nn::optimizer_registry(), "adam");
    o.finish();
  } else {
    s.optimizer = component_at(r, "optimizer", nn::optimizer_registry(), "adam");
  }
  s.schedule = component_at(r, "schedule", nn::schedule_registry(), "constant");
  r.finish();
}

}  // namespace

TrialConfig read_trial_config(const toml::table& doc, const std::string& file,
                              const std::string& base_dir, const PositionIndex& positions,
                              std::vector<ConfigProblem>& problems, FileDigests& digests,
                              TaskCache* tasks) {
  TrialConfig c;
  std::size_t before = problems.size();
  TomlReader top(&doc, "", file, problems, positions);
  c.name = top.required_string("name");
  if (!c.name.empty() && !is_run_name(c.name))
    top.problem("name",
                "\"" + c.name +
                    "\" may only contain letters (of any script), digits, '_', '-' and '.', "
                    "and not only dots (it names the run directory)");
  // description, seed and trial_seed: a single trial's own seed, as its resolved
  // config.toml records it (so that file runs exactly that trial again); sweeps set it
  // from sweep.seeds instead.
  read_plain_keys(top, c);
  top.node("sweep");    // expanded by the sweep, not part of a trial
  top.node("plugins");  // loaded (and recorded in c.plugins) by load_experiment, before any trial
                        // is read
  top.node("plugins_sha256");
  top.node("study");   // a study file's analytic parts (experiments/study/), not part of a trial
  top.node("tune");    // expanded by load_experiment, like the sweep
  top.node("quick");   // the reduced variant's overrides (quick_variant.h), applied by
                       // load_experiment under --quick
  top.node("report");  // how reports compare the points (report_spec.h), read by load_experiment

  const toml::table* task_table = top.table("task");
  if (!task_table && !doc.get("task")) top.problem("", "missing required table [task]");
  TomlReader task = top.child(task_table, "task");
  std::string kind = task.required_string("kind");
  const auto* task_entry = task_registry().find(kind);
  // A resolved config.toml records the digest of each file next to its path; they are
  // not options, so they are read first.
  std::map<std::string, std::string> recorded;
  if (task_entry)
    for (const nn::OptionSpec& o : task_entry->options)
      if (o.names_file)
        if (std::string r = task.string(o.key + "_sha256", ""); !r.empty()) recorded[o.key] = r;
  const std::vector<std::string> task_keys = task.known_keys();
  nn::Component t =
      resolve(task, "kind", task_registry(), kind, task.remaining_as_options(), task_keys);
  c.task = {t.kind, t.options, {}};
  if (task_entry && problems.size() == before)
    read_file_digests(task, *task_entry, base_dir, recorded, digests, c.task);
  task.finish();

  read_model(top, c);
  read_train(top, c);
  top.finish();
  if (problems.size() > before) return c;  // combinations only make sense on valid values

  // Combinations: build the task (reads user data) and the model once.
  std::shared_ptr<const Task> instance;
  try {
    instance = tasks ? tasks->get(c.task, c.data_seed, base_dir)
                     : task_registry().create(c.task.kind, c.task.options, c.data_seed, base_dir);
  } catch (const nn::OptionError& e) {  // e.g. min_length > max_length: point at the option
    for (const nn::OptionIssue& issue : e.issues()) task.problem(issue.key, issue.message);
    return c;
  } catch (const std::exception& e) {  // user data files: the message names file and line
    task.problem("", e.what());
    return c;
  }
  std::string problem_key;
  std::string message = check_model_fits_task(c, *instance, &problem_key);
  if (message.empty()) {  // the remaining constraints live in the modules' constructors
    message = model_construction_problem(c, instance);
    problem_key = "model";
  }
  if (!message.empty()) top.problem(problem_key, message);
  return c;
}

}  // namespace ablate::experiments
