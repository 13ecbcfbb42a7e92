// Every plain key is declared once (experiments/config/plain_keys.h) and the
// declaration drives everything else: each key set to a value other than its default
// is read, written into the resolved config.toml (per its identity policy) and changes
// the trial id; docs/reference/'s key tables are the generated ones; a swept key
// whose values resolve to the same trial is an error naming it.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>

#include "experiments/config/experiment.h"
#include "experiments/config/plain_keys.h"
#include "experiments/config/setting_keys.h"
#include "experiments/config/toml_writer.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

// A valid experiment that leaves every plain key at its default (no `layers = N`
// shorthand, so model.layers.* can be set).
const std::string kBase =
    "name = \"keys\"\n[task]\nkind = \"reverse\"\nvocab = 6\nmin_length = 2\nmax_length = "
    "5\nvalidation_size = 16\n"
    "[model]\nd_model = 8\nheads = 2\nd_ff = 16\n";
// The same for the keys that only forecasting models have (model.readout).
const std::string kForecastBase =
    "name = \"keys\"\n[task]\nkind = \"forecast\"\nlength = 200\n[model]\nd_model = 8\nheads = "
    "2\nd_ff = 16\n";
bool forecasting_only(const PlainKey& k) {
  return k.path() == "model.readout";
}

// A value other than the key's default that the tiny experiment accepts.
nn::OptionValue other_value(const PlainKey& k) {
  const std::string path = k.path();
  if (path == "model.d_model") return std::int64_t(16);
  if (path == "model.heads") return std::int64_t(1);
  if (path == "model.d_ff") return std::int64_t(12);
  if (path == "model.max_len") return std::int64_t(64);
  if (path == "model.kind") return std::string("seq2seq");  // auto resolves to it: the same trial
  if (path == "model.attention.d_k" || path == "model.attention.d_v") return std::int64_t(2);
  const nn::OptionSpec& s = k.spec;
  return std::visit(
      [&](const auto& d) -> nn::OptionValue {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, bool>)
          return !d;
        else if constexpr (std::is_same_v<T, std::int64_t>)
          return s.max && double(d) + 1 > *s.max ? d - 1 : d + 1;
        else if constexpr (std::is_same_v<T, double>)
          return s.max ? (d + *s.max) / 2 : d + 1;
        else {
          for (const std::string& c : s.choices)
            if (c != d) return c;
          return d + "x";
        }
      },
      s.default_value);
}

std::string toml_text(const nn::OptionValue& v) {
  if (const std::string* s = std::get_if<std::string>(&v)) return "\"" + *s + "\"";
  if (const double* d = std::get_if<double>(&v)) return shortest_float_text(*d);
  return nn::option_to_string(v);
}

// The value at a dotted path of a TOML document (null if absent).
const toml::node* at(const toml::table& doc, const std::string& path) {
  return doc.at_path(path).node();
}

}  // namespace

TEST_CASE(
    "every plain key set to another value is read, written by its identity policy and in the id",
    "[keys]") {
  ScratchDir dir("plain_keys");
  const std::string sequence_file = dir.file("exp.toml", kBase),
                    forecast_file = dir.file("forecast.toml", kForecastBase);
  const Experiment sequence_base = load_experiment(sequence_file),
                   forecast_base = load_experiment(forecast_file);
  REQUIRE(sequence_base.trials.size() == 1);
  int checked = 0;
  for (const PlainKey& k : plain_keys()) {
    INFO(k.path());
    const std::string& file = forecasting_only(k) ? forecast_file : sequence_file;
    const Experiment& base = forecasting_only(k) ? forecast_base : sequence_base;
    const nn::OptionValue value = other_value(k);
    REQUIRE(value != k.spec.default_value);
    LoadOptions options;
    options.overrides = {k.path() + "=" + toml_text(value)};
    Experiment e;
    REQUIRE_NOTHROW(e = load_experiment(file, options));
    const Trial& t = e.trials.at(0);
    CHECK(k.get(t.config) == value);  // read into its field
    const toml::table written = toml::parse(t.config_toml);
    const toml::node* node = at(written, k.path());
    if (k.identity == InIdentity::never) {
      CHECK(node == nullptr);
      CHECK(t.id == base.trials[0].id);
    } else {
      REQUIRE(node != nullptr);
      CHECK(toml_value_text(*node) == toml_text(value));
      // train.checkpoint is written but not hashed (config/trial_grid.cpp): asking for
      // checkpoints of a finished sweep keeps its trials.
      if (k.path() == "train.checkpoint")
        CHECK(t.id == base.trials[0].id);
      else if (k.path() != "model.kind")
        CHECK(t.id != base.trials[0].id);
      // The default is written as the key's declaration says.
      const toml::node* default_node = at(toml::parse(base.trials[0].config_toml), k.path());
      CHECK((default_node != nullptr) == (k.identity == InIdentity::always));
    }
    ++checked;
  }
  CHECK(checked == int(plain_keys().size()));
}

TEST_CASE("docs/reference/ holds the generated key table of every table with declared keys",
          "[keys][docs]") {
  const auto pages = reference_pages();
  std::set<std::string> tables;
  for (const PlainKey& k : plain_keys()) tables.insert(k.table);
  for (const auto& k : report_keys()) tables.insert(k.table);
  for (const auto& k : study_keys()) tables.insert(k.table);
  for (const auto& k : adaptive_keys()) tables.insert(k.table);
  for (const auto& k : halving_keys()) tables.insert(k.table);
  for (const std::string& table : tables) {
    INFO("table '" << table << "' (regenerate with: ablate list --keys-markdown '" << table
                   << "')");
    const std::string start =
        "<!-- keys: " + (table.empty() ? std::string("(top level)") : table) + " -->\n";
    // Exactly one page holds the table, once.
    int held = 0;
    for (const auto& [name, page] : pages) {
      std::size_t begin = page.find(start);
      if (begin == std::string::npos) continue;
      INFO("docs/reference/" << name << ".md");
      ++held;
      CHECK(page.find(start, begin + 1) == std::string::npos);
      begin += start.size();
      std::size_t end = page.find("<!-- /keys -->", begin);
      REQUIRE(end != std::string::npos);
      const std::string settings = setting_keys_markdown(table);
      CHECK(page.substr(begin, end - begin) ==
            (settings.empty() ? plain_keys_markdown(table) : settings));
    }
    CHECK(held == 1);
  }
  // And no page holds a table of keys that are not declared (a stale marker: one that
  // starts a line; prose may name the marker's form).
  const std::string marker = "\n<!-- keys: ";
  for (const auto& [name, page] : pages)
    for (std::size_t at = page.find(marker); at != std::string::npos;
         at = page.find(marker, at + 1)) {
      const std::size_t from = at + marker.size();
      const std::string table = page.substr(from, page.find(" -->", from) - from);
      INFO("docs/reference/" << name << ".md: <!-- keys: " << table << " -->");
      CHECK(tables.count(table == "(top level)" ? std::string() : table) == 1);
    }
}

TEST_CASE("a swept key whose values give the same trial is an error naming it", "[keys][e2e]") {
  ScratchDir dir("plain_keys_sweep");
  for (const std::string& sweep : {std::string("\"train.resume_every\" = [10, 20]"),
                                   std::string("\"model.kind\" = [\"auto\", \"seq2seq\"]")}) {
    INFO(sweep);
    const std::string file = dir.file("exp.toml", kBase + "[sweep]\n" + sweep + "\n");
    CommandResult r = run_command(std::string(ABLATE_CLI) + " check " + file);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("give the same trial"));
    CHECK_THAT(r.output,
               Catch::Contains("sweep." + sweep.substr(1, sweep.find('"', 1) - 1) + ": "));
  }
  CommandResult seeds = run_command(std::string(ABLATE_CLI) + " check " +
                                    dir.file("seeds.toml", kBase + "[sweep]\nseeds = [0, 0]\n"));
  CHECK(seeds.status == 2);
  // A seed listed twice is named at sweep.seeds (before any trial is expanded).
  CHECK_THAT(seeds.output, Catch::Contains("sweep.seeds: lists seed 0 twice"));
}

TEST_CASE("model.readout is the forecasting head's: a sequence task refuses it at the key",
          "[keys]") {
  ScratchDir dir("plain_keys_readout");
  LoadOptions options;
  options.overrides = {"model.readout=\"flatten\""};
  const std::string file = dir.file("exp.toml", kBase);
  CHECK_THROWS_WITH(load_experiment(file, options),
                    Catch::Contains("model.readout") && Catch::Contains("forecasting head"));
}

TEST_CASE("every plain key's declared default is the value a default-built TrialConfig holds",
          "[keys]") {
  // Code that builds a TrialConfig without reading a file (tests, the study, a plugin's
  // helper) must get the same trial as a file that leaves every key out.
  const TrialConfig fresh;
  for (const PlainKey& k : plain_keys()) {
    INFO(k.path() << ": declared " << nn::option_to_string(k.spec.default_value)
                  << ", struct holds " << nn::option_to_string(k.get(fresh)));
    CHECK(k.get(fresh) == k.spec.default_value);
  }
}

TEST_CASE("every [report] and [study] key's declared default is what a default-built struct holds",
          "[keys]") {
  // The readers start from a default-built ReportSpec / StudySettings: a key whose
  // declared default differed would read one way when absent and another when written
  // with its documented default.
  const ReportSpec report;
  for (const auto& k : report_keys()) {
    INFO(k.path());
    CHECK(k.holds_default(report));
  }
  const StudySettings study;
  for (const auto& k : study_keys()) {
    INFO(k.path());
    CHECK(k.holds_default(study));
  }
}
