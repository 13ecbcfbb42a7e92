// The report's gnuplot plots, from fake run directories: the files exist and are real
// SVG/PNG, the metric plots hold comparisons.csv's own means and intervals, the loss
// curves every seed, heatmaps a colour scale and their masks, legends short labels with
// their key; user text cannot break a script, the output is deterministic, and gnuplot
// failures are reported with the script's name and gnuplot's own message.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/io/atomic_file.h"
#include "experiments/reports/plot_gnuplot.h"
#include "experiments/reports/plots.h"
#include "experiments/reports/run_points.h"
#include "experiments/reports/run_rows.h"
#include "tests/scratch_dir.h"

using namespace ablate::experiments;
namespace fs = std::filesystem;
using json = nlohmann::json;
using ablate_tests::ScratchDir;

namespace {

std::string slurp(const fs::path& p) {
  return read_file(p.string());
}

struct FakeTrial {
  std::string id;
  json point;  // key -> value
  std::string label;
  std::string status;             // "" = not run (no files)
  std::vector<json> evaluations;  // metrics.jsonl lines
  json final;                     // also the validation-selected ("best") metrics
  json test = json::object();     // the test metrics
};

// Writes trials.json and each trial's files; returns the index as report.cpp passes it.
json make_run(const std::string& dir, const std::string& family,
              const std::vector<std::string>& keys, const std::vector<FakeTrial>& trials) {
  json index{{"name", "fake"},
             {"description", "a fake run"},
             {"swept_keys", keys},
             {"family", family},
             {"trials", json::array()}};
  std::uint64_t seed = 0;
  for (const FakeTrial& t : trials) {
    index["trials"].push_back({{"id", t.id},
                               {"seed", seed++},
                               {"point", t.point},
                               {"point_id", t.label},
                               {"label", t.label}});
    if (t.status.empty()) continue;
    fs::create_directories(dir + "/trials/" + t.id);
    std::string lines;
    for (const json& e : t.evaluations) lines += e.dump() + "\n";
    write_file_atomically(dir + "/trials/" + t.id + "/metrics.jsonl", lines);
    json summary{{"id", t.id},
                 {"status", t.status},
                 {"final", t.final},
                 {"best", t.final},
                 {"test", t.test}};
    write_file_atomically(dir + "/trials/" + t.id + "/summary.json", summary.dump(2));
  }
  write_file_atomically(dir + "/trials.json", index.dump(2));
  return index;
}

json eval(std::int64_t step, double val_loss, json metrics = json::object()) {
  metrics["step"] = step;
  metrics["train_loss"] = val_loss;
  metrics["val_loss"] = val_loss;
  metrics["lr"] = 1e-3;
  metrics["grad_norm"] = 1.0;
  metrics["seconds"] = 0.1;
  return metrics;
}

// A label with every character that could end or bend a gnuplot string.
const std::string kAwkwardValue = "it's \"shared\"\\_x";

// Three points: two of three seeds and one of one, plus a trial that never ran and one
// that failed. Values are exact in binary so the expected means print exactly; point b's
// test interval reaches past 1 and is clipped by the table.
json seq2seq_run(const std::string& dir) {
  json a{{"model.attention.qk", "separate"}, {"model.attention.scale", "sqrt_dk"}};
  json b{{"model.attention.qk", kAwkwardValue}, {"model.attention.scale", "0.5"}};
  json d{{"model.attention.qk", "separate"}, {"model.attention.scale", "0.5"}};
  json c{{"model.attention.qk", "identity"}, {"model.attention.scale", "none"}};
  std::string la = "model.attention.qk=separate model.attention.scale=sqrt_dk";
  std::string lb = "model.attention.qk=" + kAwkwardValue + " model.attention.scale=0.5";
  std::string ld = "model.attention.qk=separate model.attention.scale=0.5";
  auto acc = [](double s) { return json{{"token_accuracy", s}, {"sequence_accuracy", s}}; };
  auto fin = [&](double loss, double s) {
    json f = acc(s);
    f["val_loss"] = loss;
    return f;
  };
  auto evals = [&](double l10, double l20, double s) {
    return std::vector<json>{eval(10, l10, acc(s / 2)), eval(20, l20, acc(s))};
  };
  std::vector<FakeTrial> trials{
      {"a0", a, la, "ok", evals(2.0, 1.0, 0.5), fin(1.0, 0.5), acc(0.5)},
      {"a1", a, la, "ok", evals(4.0, 3.0, 0.75), fin(3.0, 0.75), acc(0.75)},
      {"a2", a, la, "ok", evals(3.0, 2.0, 0.625), fin(2.0, 0.625), acc(0.625)},
      {"b0", b, lb, "ok", evals(1.0, 0.5, 0.875), fin(0.5, 0.875), acc(0.875)},
      {"b1", b, lb, "ok", evals(1.0, 0.25, 1.0), fin(0.25, 1.0), acc(1.0)},
      {"b2", b, lb, "ok", evals(1.0, 0.25, 1.0), fin(0.25, 1.0), acc(1.0)},
      {"d0", d, ld, "ok", evals(2.0, 1.5, 0.25), fin(1.5, 0.25), acc(0.25)},
      {"c0", c, "c", "", {}, {}},
      {"c1", c, "c", "failed", {}, {}},
  };
  return make_run(dir, "seq2seq", {"model.attention.qk", "model.attention.scale"}, trials);
}

// What report.cpp gives the plots: the run's points and the comparison rows that
// comparisons.csv and summary.md's headline table are written from.
struct Table {
  RunPoints points;
  ComparisonReport report;
};

Table table_of(const std::string& dir) {
  Table t;
  t.points = points_of(read_run(dir), "fake");
  t.report = comparison_report(t.points, find_baselines(t.points.points, t.points.baseline), "");
  return t;
}

std::vector<std::string> plots_of(const std::string& dir, const json& index) {
  const Table t = table_of(dir);
  return write_plots(dir, index, t.points, t.report);
}

// The lines of gnuplot block `index` (blocks are separated by two blank lines), comments
// and the single blank lines inside a block left out.
std::vector<std::vector<std::string>> block(const std::string& data, std::size_t index) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(data);
  std::size_t at = 0, blanks = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      if (++blanks == 2) ++at;
      continue;
    }
    blanks = 0;
    if (line[0] == '#' || at != index) continue;
    std::istringstream fields(line);
    rows.emplace_back();
    for (std::string f; fields >> f;) rows.back().push_back(f);
  }
  return rows;
}

bool has_line(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l == line) return true;
  return false;
}

// Every figure is drawn both ways; summary.md links the SVG, or a heatmap's PNG.
void check_images(const std::string& run_dir, const std::vector<std::string>& images) {
  for (const std::string& image : images) {
    INFO(image);
    REQUIRE(image.size() > 4);
    const std::string ext = image.substr(image.size() - 4);
    REQUIRE((ext == ".svg" || ext == ".png"));
    CHECK((ext == ".png") == (image.find("plots/attention_") == 0));
    const std::string stem = image.substr(0, image.size() - 4);
    std::string p = slurp(run_dir + "/" + stem + ".png");
    REQUIRE(p.size() > 8);
    CHECK(p.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    std::string svg = slurp(run_dir + "/" + stem + ".svg");
    CHECK(svg.find("<svg") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("plots of a seq2seq sweep: loss curves and the primary metric per swept key", "[plots]") {
  ScratchDir dir("plots");
  json index = seq2seq_run(dir.str());
  std::vector<std::string> pngs = plots_of(dir.str(), index);
  REQUIRE(pngs == std::vector<std::string>{"plots/val_loss.svg", "plots/train_loss.svg",
                                           "plots/sequence_accuracy_vs_model.attention.qk.svg",
                                           "plots/sequence_accuracy_vs_model.attention.scale.svg"});
  check_images(dir.str(), pngs);
  std::string qk = slurp(dir.path() / "plots/data/sequence_accuracy_vs_model.attention.qk.dat");
  std::string script = slurp(dir.path() / "plots/sequence_accuracy_vs_model.attention.qk.gp");
  CHECK(script.find("higher is better") != std::string::npos);
  CHECK(script.find("noenhanced") != std::string::npos);
  // The awkward value reaches gnuplot as one intact single-quoted string ...
  CHECK(script.find("'it''s \"shared\"\\_x' 1") != std::string::npos);
  // ... and comes out as written: not escaped away, no subscript from the underscore.
  std::string svg = slurp(dir.path() / "plots/sequence_accuracy_vs_model.attention.qk.svg");
  CHECK(svg.find("\\_x") != std::string::npos);
}

// Protects "the plots agree with the table": each marker of a metric-vs-key plot is a
// point's comparisons.csv row (mean, clipped 95% interval, seeds) to the last bit, the
// points sharing the other keys' values are one series (not pooled across them), every
// seed's value is a dot, and the title says which split and step.
TEST_CASE("metric-vs-key plots draw the comparison rows' means and intervals exactly", "[plots]") {
  ScratchDir dir("plots");
  json index = seq2seq_run(dir.str());
  const Table t = table_of(dir.str());
  REQUIRE(t.report.metric == "sequence_accuracy");
  write_plots(dir.str(), index, t.points, t.report);
  auto row_of = [&](const std::string& label) -> const ComparisonRow& {
    for (const ComparisonRow& r : t.report.rows)
      if (r.metric == t.report.metric && t.points.points[r.point].label == label) return r;
    FAIL("no row for " << label);
    return t.report.rows.front();
  };
  const std::string la = "model.attention.qk=separate model.attention.scale=sqrt_dk";
  const std::string lb = "model.attention.qk=" + kAwkwardValue + " model.attention.scale=0.5";
  const std::string ld = "model.attention.qk=separate model.attention.scale=0.5";
  // The table clips b's interval (0.875, 1, 1) at 1: the plot has the clipped bound.
  REQUIRE(row_of(lb).summary.ci_high == 1.0);

  std::string qk = slurp(dir.path() / "plots/data/sequence_accuracy_vs_model.attention.qk.dat");
  // Series by the other key (scale): sqrt_dk holds a; 0.5 holds d then b, along the axis.
  const std::vector<std::vector<std::string>> sqrt_dk = block(qk, 0), half = block(qk, 2);
  REQUIRE(sqrt_dk.size() == 1);
  REQUIRE(half.size() == 2);
  auto check_marker = [](const std::vector<std::string>& line, const ComparisonRow& row) {
    REQUIRE(line.size() == 5);
    CHECK(std::stod(line[1]) == row.summary.mean);
    CHECK(std::stod(line[2]) == row.summary.ci_low);
    CHECK(std::stod(line[3]) == row.summary.ci_high);
    CHECK(std::stoul(line[4]) == row.summary.n);
  };
  check_marker(sqrt_dk[0], row_of(la));
  check_marker(half[0], row_of(ld));
  check_marker(half[1], row_of(lb));
  CHECK(std::stod(half[0][0]) < 0.5);  // separate, the first value on the axis
  CHECK(std::stod(half[1][0]) > 0.5);  // the awkward value, the second
  // Every seed's test value, one dot each.
  CHECK(block(qk, 1).size() == 3);
  CHECK(block(qk, 3).size() == 4);
  CHECK(block(qk, 4).empty());  // the failed and unrun point has no series
  std::string script = slurp(dir.path() / "plots/sequence_accuracy_vs_model.attention.qk.gp");
  CHECK(script.find("test split, validation-selected step") != std::string::npos);
  CHECK(script.find("as in comparisons.csv") != std::string::npos);
  CHECK(script.find("title 'scale=0.5'") != std::string::npos);              // the series, short
  CHECK(script.find("scale = model.attention.scale") != std::string::npos);  // the key
}

// Protects "seeds are visible": the loss curves' data holds each point's mean and every
// seed's own curve, and the script draws the seeds as thin lines under the mean.
TEST_CASE("loss curves draw every seed beside the mean, with short labels", "[plots]") {
  ScratchDir dir("plots");
  json index = seq2seq_run(dir.str());
  plots_of(dir.str(), index);
  std::string loss = slurp(dir.path() / "plots/data/val_loss.dat");
  // Point a: the mean over its three seeds (step mean seeds) ...
  CHECK(block(loss, 0) ==
        std::vector<std::vector<std::string>>{{"10", "3", "3"}, {"20", "2", "3"}});
  // ... and each seed's curve, marked with its seed and trial.
  CHECK(block(loss, 1) ==
        std::vector<std::vector<std::string>>{
            {"10", "2"}, {"20", "1"}, {"10", "4"}, {"20", "3"}, {"10", "3"}, {"20", "2"}});
  CHECK(has_line(loss, "# seed 0 (trial a0)"));
  CHECK(has_line(loss, "# seed 2 (trial a2)"));
  CHECK(loss.find("identity") == std::string::npos);  // the failed and unrun point
  CHECK(block(loss, 6).empty());
  std::string script = slurp(dir.path() / "plots/val_loss.gp");
  CHECK(script.find("band") == std::string::npos);
  CHECK(script.find("index 1 using 1:2 with lines lw 1") != std::string::npos);
  CHECK(script.find("title 'qk=separate scale=sqrt_dk'") != std::string::npos);
  CHECK(script.find("title \"qk = model.attention.qk, scale = model.attention.scale\"") !=
        std::string::npos);
  CHECK(slurp(dir.path() / "plots/train_loss.gp").find("Training loss") != std::string::npos);
}

TEST_CASE("plots are deterministic and rerunnable from their scripts", "[plots]") {
  ScratchDir dir("plots");
  json index = seq2seq_run(dir.str());
  plots_of(dir.str(), index);
  std::vector<std::string> names{"data/val_loss.dat", "val_loss.gp",
                                 "data/sequence_accuracy_vs_model.attention.qk.dat",
                                 "sequence_accuracy_vs_model.attention.qk.gp"};
  std::vector<std::string> first;
  for (const std::string& n : names) first.push_back(slurp(dir.path() / "plots" / n));
  fs::remove(dir.path() / "plots/val_loss.png");
  plots_of(dir.str(), index);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(slurp(dir.path() / "plots" / names[i]) == first[i]);
  }
  // What a user does after editing a script.
  fs::remove(dir.path() / "plots/val_loss.png");
  REQUIRE_NOTHROW(run_gnuplot((dir.path() / "plots").string(), "val_loss.gp"));
  CHECK(fs::file_size(dir.path() / "plots/val_loss.png") > 0);
}

// Protects the forecast plots' rules: the test mse per key is a series per value of the
// other key (not pooled), and MAE by horizon is the validation-selected step's, split
// and step named in the title, with each seed's line.
TEST_CASE("a forecast sweep plots test mse per key and validation mae by horizon", "[plots]") {
  ScratchDir dir("plots");
  auto fin = [](double mse, double h1, double h2, double h3) {
    return json{{"val_loss", mse}, {"mse", mse},   {"mae", (h1 + h2 + h3) / 3},
                {"mae_h1", h1},    {"mae_h2", h2}, {"mae_h3", h3},
                {"mse_h1", h1}};
  };
  auto test = [](double mse) { return json{{"mse", mse}, {"mae", mse}, {"loss", mse}}; };
  auto point = [](const char* pos, const char* norm) {
    return json{{"positions", pos}, {"norm", norm}};
  };
  std::vector<FakeTrial> trials{
      {"ax",
       point("rope", "pre"),
       "positions=rope norm=pre",
       "ok",
       {eval(5, 0.5), eval(10, 0.25)},
       fin(0.25, 0.5, 1, 2),
       test(0.375)},
      {"ay",
       point("rope", "post"),
       "positions=rope norm=post",
       "ok",
       {eval(5, 0.5), eval(10, 0.5)},
       fin(0.5, 1, 2, 4),
       test(0.5)},
      {"bx",
       point("none", "pre"),
       "positions=none norm=pre",
       "ok",
       {eval(5, 1.0), eval(10, 1.0)},
       fin(1.0, 2, 2, 2),
       test(1.25)},
  };
  json index = make_run(dir.str(), "forecast", {"positions", "norm"}, trials);
  std::vector<std::string> pngs = plots_of(dir.str(), index);
  REQUIRE(pngs == std::vector<std::string>{"plots/val_loss.svg", "plots/train_loss.svg",
                                           "plots/mse_vs_positions.svg", "plots/mse_vs_norm.svg",
                                           "plots/mae_by_horizon.svg"});
  check_images(dir.str(), pngs);
  // Series norm=pre: rope then none; series norm=post: rope. One seed: the interval is
  // the point itself, as in the table.
  std::string positions = slurp(dir.path() / "plots/data/mse_vs_positions.dat");
  const auto pre = block(positions, 0), post = block(positions, 2);
  REQUIRE(pre.size() == 2);
  REQUIRE(post.size() == 1);
  CHECK(std::vector<std::string>(pre[0].begin() + 1, pre[0].end()) ==
        std::vector<std::string>{"0.375", "0.375", "0.375", "1"});
  CHECK(pre[1][1] == "1.25");
  CHECK(post[0][1] == "0.5");
  std::string gp = slurp(dir.path() / "plots/mse_vs_positions.gp");
  CHECK(gp.find("lower is better") != std::string::npos);
  CHECK(gp.find("Test mse by positions") != std::string::npos);
  std::string horizons = slurp(dir.path() / "plots/data/mae_by_horizon.dat");
  CHECK(block(horizons, 0) ==
        std::vector<std::vector<std::string>>{{"1", "0.5", "1"}, {"2", "1", "1"}, {"3", "2", "1"}});
  CHECK(block(horizons, 3) ==
        std::vector<std::vector<std::string>>{{"1", "1"}, {"2", "2"}, {"3", "4"}});  // ay's seed
  CHECK(slurp(dir.path() / "plots/mae_by_horizon.gp")
            .find("validation split, at the step validation selected") != std::string::npos);
}

// Protects the heatmaps: every panel has a colour scale labelled "attention weight"
// (none is switched off), masked cells are listed in the data and drawn in a colour the
// scale does not have, the title names the masks, the trial, its seed and why it was
// chosen, and nothing is written below the panels (where it collided with the axis label).
TEST_CASE("attention heatmaps have a colour scale, mark masked cells and name their trial",
          "[plots]") {
  ScratchDir dir("plots");
  json index = seq2seq_run(dir.str());
  // b is the point with the best validation sequence_accuracy; b0 its first seed (seed 3).
  json attention{
      {"source", {"1", "2", "3"}},
      {"target_in", {"<s>", "a", "b"}},
      {"modules",
       {{{"name", "encoder.layers.0.self_attn"},
         {"queries", "source"},
         {"keys", "source"},
         // A diagonal of exact zeros in every row: shared QK's no-self mask.
         {"weights", {{{0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.25, 0.75, 0}}}}},
        {{"name", "decoder.layers.0.self_attn"},
         {"queries", "target_in"},
         {"keys", "target_in"},
         {"weights", {{{1, 0, 0}, {0.25, 0.75, 0}, {0.5, 0.25, 0.25}}}}},
        {{"name", "decoder.layers.0.multihead_attn"},
         {"queries", "target_in"},
         {"keys", "source"},
         {"weights",
          {{{1, 0, 0}, {0.5, 0.5, 0}, {0.25, 0.25, 0.5}}, {{0, 0, 1}, {0, 1, 0}, {1, 0, 0}}}}}}}};
  write_file_atomically(dir.str() + "/trials/b0/attention.json", attention.dump());
  std::vector<std::string> pngs = plots_of(dir.str(), index);
  check_images(dir.str(), pngs);
  for (const char* stem :
       {"attention_encoder_layers_0_self_attn", "attention_decoder_layers_0_self_attn",
        "attention_decoder_layers_0_multihead_attn"}) {
    INFO(stem);
    REQUIRE(std::find(pngs.begin(), pngs.end(), std::string("plots/") + stem + ".png") !=
            pngs.end());
    const std::string gp = slurp(dir.path() / "plots" / (std::string(stem) + ".gp"));
    CHECK(gp.find("set colorbox") != std::string::npos);
    CHECK(gp.find("unset colorbox") == std::string::npos);
    CHECK(gp.find("set cblabel 'attention weight'") != std::string::npos);
    CHECK(gp.find("trial b0 (seed 3) of qk=it's") != std::string::npos);
    CHECK(gp.find("the first seed of the point with the best mean validation sequence_accuracy") !=
          std::string::npos);
    CHECK(gp.find("at screen") == std::string::npos);  // no caption under the panels
  }
  auto masked_cells = [&](const char* stem) {
    std::string data = slurp(dir.path() / "plots/data" / (std::string(stem) + ".dat"));
    std::size_t heads = data.find("# masked cells") == std::string::npos ? 0 : 1;
    std::size_t blocks = 0;
    for (std::size_t at = data.find("# head "); at != std::string::npos;
         at = data.find("# head ", at + 1))
      ++blocks;
    return heads ? block(data, blocks) : std::vector<std::vector<std::string>>{};
  };
  // key query, per masked cell
  using Cells = std::vector<std::vector<std::string>>;
  CHECK(masked_cells("attention_encoder_layers_0_self_attn") ==
        Cells{{"0", "0"}, {"1", "1"}, {"2", "2"}});
  CHECK(masked_cells("attention_decoder_layers_0_self_attn") ==
        Cells{{"1", "0"}, {"2", "0"}, {"2", "1"}});
  CHECK(masked_cells("attention_decoder_layers_0_multihead_attn").empty());
  const std::string encoder = slurp(dir.path() / "plots/attention_encoder_layers_0_self_attn.gp");
  CHECK(encoder.find("masked (shared QK: no attending to itself)") != std::string::npos);
  CHECK(encoder.find("fc rgb '#bdbdbd'") != std::string::npos);
  const std::string decoder = slurp(dir.path() / "plots/attention_decoder_layers_0_self_attn.gp");
  CHECK(decoder.find("masked (causal: no key after the query)") != std::string::npos);
  const std::string cross =
      slurp(dir.path() / "plots/attention_decoder_layers_0_multihead_attn.gp");
  CHECK(cross.find("masked") == std::string::npos);
}

TEST_CASE("a run with nothing to plot returns no plots", "[plots]") {
  ScratchDir dir("plots");
  SECTION("no trial has run") {
    json index = make_run(dir.str(), "seq2seq", {}, {{"t0", json::object(), "", "", {}, {}}});
    CHECK(plots_of(dir.str(), index).empty());
  }
  SECTION("every trial failed with empty metrics") {
    json index =
        make_run(dir.str(), "seq2seq", {"k"}, {{"t0", {{"k", "1"}}, "k=1", "failed", {}, {}}});
    CHECK(plots_of(dir.str(), index).empty());
  }
  SECTION("no trials at all") {
    json index = make_run(dir.str(), "forecast", {}, {});
    CHECK(plots_of(dir.str(), index).empty());
  }
  CHECK_FALSE(fs::exists(dir.path() / "plots"));
}

TEST_CASE("nothing swept gives one curve labelled all trials", "[plots]") {
  ScratchDir dir("plots");
  json index = make_run(
      dir.str(), "seq2seq", {},
      {{"t0", json::object(), "", "ok", {eval(1, 2.0), eval(2, 0.01)}, {{"val_loss", 0.01}}}});
  REQUIRE(plots_of(dir.str(), index) ==
          std::vector<std::string>{"plots/val_loss.svg", "plots/train_loss.svg"});
  std::string script = slurp(dir.path() / "plots/val_loss.gp");
  CHECK(script.find("title 'all trials'") != std::string::npos);
  CHECK(script.find("set logscale y") != std::string::npos);  // 2 -> 0.01 spans > 2 decades
}

TEST_CASE("gnuplot failures name the script and carry gnuplot's message", "[plots]") {
  ScratchDir dir("plots");
  SECTION("a script gnuplot rejects") {
    write_file_atomically(dir.str() + "/bad.gp", "plot sin(x) with no_such_style\n");
    try {
      run_gnuplot(dir.str(), "bad.gp");
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      std::string what = e.what();
      CHECK(what.find(dir.str() + "/bad.gp") != std::string::npos);
      CHECK(what.find("no_such_style") != std::string::npos);  // gnuplot echoes the bad line
    }
  }
  SECTION("no gnuplot on PATH") {
    json index = seq2seq_run(dir.str());
    std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    fs::create_directories(dir.path() / "empty-bin");
    ::setenv("PATH", (dir.path() / "empty-bin").c_str(), 1);
    std::string what;
    try {
      plots_of(dir.str(), index);
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    ::setenv("PATH", old_path.c_str(), 1);
    CHECK(what.find("val_loss.gp") != std::string::npos);
    CHECK(what.find("gnuplot-nox") != std::string::npos);
  }
}
