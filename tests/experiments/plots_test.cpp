// The report's gnuplot plots, from fake run directories: the files exist and are real
// SVG/PNG, the data files hold the means the plots claim, user text cannot break a
// script, the output is deterministic, and gnuplot failures are reported with the
// script's name and gnuplot's own message.
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
  json final;
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
    index["trials"].push_back(
        {{"id", t.id}, {"seed", seed++}, {"point", t.point}, {"label", t.label}});
    if (t.status.empty()) continue;
    fs::create_directories(dir + "/trials/" + t.id);
    std::string lines;
    for (const json& e : t.evaluations) lines += e.dump() + "\n";
    write_file_atomically(dir + "/trials/" + t.id + "/metrics.jsonl", lines);
    json summary{{"id", t.id}, {"status", t.status}, {"final", t.final}, {"best", t.final}};
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

// Two points × two seeds, plus a trial that never ran and one that failed. Values are
// exact in binary so the expected means print exactly.
json seq2seq_run(const std::string& dir) {
  json a{{"model.attention.qk", "separate"}, {"model.attention.scale", "sqrt_dk"}};
  json b{{"model.attention.qk", kAwkwardValue}, {"model.attention.scale", "0.5"}};
  std::string la = "model.attention.qk=separate model.attention.scale=sqrt_dk";
  std::string lb = "model.attention.qk=" + kAwkwardValue + " model.attention.scale=0.5";
  auto acc = [](double s) { return json{{"token_accuracy", s}, {"sequence_accuracy", s}}; };
  auto fin = [&](double loss, double s) {
    json f = acc(s);
    f["val_loss"] = loss;
    return f;
  };
  std::vector<FakeTrial> trials{
      {"a0", a, la, "ok", {eval(10, 2.0, acc(0.1)), eval(20, 1.0, acc(0.5))}, fin(1.0, 0.5)},
      {"a1", a, la, "ok", {eval(10, 4.0, acc(0.2)), eval(20, 3.0, acc(0.75))}, fin(3.0, 0.75)},
      {"b0", b, lb, "ok", {eval(10, 1.0, acc(0.5)), eval(20, 0.5, acc(0.875))}, fin(0.5, 0.875)},
      {"b1", b, lb, "ok", {eval(10, 1.0, acc(0.5)), eval(20, 0.25, acc(1.0))}, fin(0.25, 1.0)},
      {"c0",
       {{"model.attention.qk", "identity"}, {"model.attention.scale", "none"}},
       "c",
       "",
       {},
       {}},
      {"c1",
       {{"model.attention.qk", "identity"}, {"model.attention.scale", "none"}},
       "c",
       "failed",
       {},
       {}},
  };
  return make_run(dir, "seq2seq", {"model.attention.qk", "model.attention.scale"}, trials);
}

bool has_line(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l == line) return true;
  return false;
}

void check_images(const std::string& run_dir, const std::vector<std::string>& pngs) {
  for (const std::string& png : pngs) {
    INFO(png);
    REQUIRE(png.size() > 4);
    REQUIRE(png.substr(png.size() - 4) == ".png");
    std::string p = slurp(run_dir + "/" + png);
    REQUIRE(p.size() > 8);
    CHECK(p.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    std::string svg = slurp(run_dir + "/" + png.substr(0, png.size() - 4) + ".svg");
    CHECK(svg.find("<svg") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("plots of a seq2seq sweep: loss curves and the primary metric per swept key", "[plots]") {
  ScratchDir dir("plots");
  json index = seq2seq_run(dir.str());
  std::vector<std::string> pngs = write_plots(dir.str(), index, 6);
  REQUIRE(pngs == std::vector<std::string>{"plots/val_loss.png",
                                           "plots/sequence_accuracy_vs_model.attention.qk.png",
                                           "plots/sequence_accuracy_vs_model.attention.scale.png"});
  check_images(dir.str(), pngs);

  // step mean min max seeds, per point in first-appearance order; the missing and the
  // failed trial contribute nothing.
  std::string loss = slurp(dir.path() / "plots/data/val_loss.dat");
  CHECK(has_line(loss, "10 3 2 4 2"));
  CHECK(has_line(loss, "20 2 1 3 2"));
  CHECK(has_line(loss, "10 1 1 1 2"));
  CHECK(has_line(loss, "20 0.375 0.25 0.5 2"));
  CHECK(loss.find("identity") == std::string::npos);
  CHECK(loss.find("# point 2") == std::string::npos);

  // x mean std trials per value; std is the sample std (0.75 - 0.5) / sqrt(2).
  std::string qk = slurp(dir.path() / "plots/data/sequence_accuracy_vs_model.attention.qk.dat");
  CHECK(has_line(qk, "0 0.625 0.1767766952966369 2"));
  CHECK(has_line(qk, "1 0.9375 0.08838834764831845 2"));
  std::string script = slurp(dir.path() / "plots/sequence_accuracy_vs_model.attention.qk.gp");
  CHECK(script.find("higher is better") != std::string::npos);
  CHECK(script.find("noenhanced") != std::string::npos);
  // The awkward value reaches gnuplot as one intact single-quoted string ...
  CHECK(script.find("'it''s \"shared\"\\_x' 1") != std::string::npos);
  // ... and comes out as written: not escaped away, no subscript from the underscore.
  std::string svg = slurp(dir.path() / "plots/sequence_accuracy_vs_model.attention.qk.svg");
  CHECK(svg.find("\\_x") != std::string::npos);
}

TEST_CASE("plots are deterministic and rerunnable from their scripts", "[plots]") {
  ScratchDir dir("plots");
  json index = seq2seq_run(dir.str());
  write_plots(dir.str(), index, 6);
  std::vector<std::string> names{"data/val_loss.dat", "val_loss.gp",
                                 "data/sequence_accuracy_vs_model.attention.qk.dat",
                                 "sequence_accuracy_vs_model.attention.qk.gp"};
  std::vector<std::string> first;
  for (const std::string& n : names) first.push_back(slurp(dir.path() / "plots" / n));
  fs::remove(dir.path() / "plots/val_loss.png");
  write_plots(dir.str(), index, 6);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(slurp(dir.path() / "plots" / names[i]) == first[i]);
  }
  // What a user does after editing a script.
  fs::remove(dir.path() / "plots/val_loss.png");
  REQUIRE_NOTHROW(run_gnuplot((dir.path() / "plots").string(), "val_loss.gp"));
  CHECK(fs::file_size(dir.path() / "plots/val_loss.png") > 0);
}

TEST_CASE("a forecast sweep plots mae by horizon and marginalises the other keys", "[plots]") {
  ScratchDir dir("plots");
  auto fin = [](double mse, double h1, double h2, double h3) {
    return json{{"val_loss", mse}, {"mse", mse},   {"mae", (h1 + h2 + h3) / 3},
                {"mae_h1", h1},    {"mae_h2", h2}, {"mae_h3", h3},
                {"mse_h1", h1}};
  };
  auto point = [](const char* pos, const char* norm) {
    return json{{"positions", pos}, {"norm", norm}};
  };
  std::vector<FakeTrial> trials{
      {"ax",
       point("rope", "pre"),
       "positions=rope norm=pre",
       "ok",
       {eval(5, 0.5), eval(10, 0.25)},
       fin(0.25, 0.5, 1, 2)},
      {"ay",
       point("rope", "post"),
       "positions=rope norm=post",
       "ok",
       {eval(5, 0.5), eval(10, 0.5)},
       fin(0.5, 1, 2, 4)},
      {"bx",
       point("none", "pre"),
       "positions=none norm=pre",
       "ok",
       {eval(5, 1.0), eval(10, 1.0)},
       fin(1.0, 2, 2, 2)},
  };
  json index = make_run(dir.str(), "forecast", {"positions", "norm"}, trials);
  std::vector<std::string> pngs = write_plots(dir.str(), index, 3);
  REQUIRE(pngs == std::vector<std::string>{"plots/val_loss.png", "plots/mse_vs_positions.png",
                                           "plots/mse_vs_norm.png", "plots/mae_by_horizon.png"});
  check_images(dir.str(), pngs);
  // rope is the mean over both norms; pre over both position encodings.
  std::string positions = slurp(dir.path() / "plots/data/mse_vs_positions.dat");
  CHECK(has_line(positions, "0 0.375 0.1767766952966369 2"));
  CHECK(has_line(positions, "1 1 0 1"));
  CHECK(has_line(slurp(dir.path() / "plots/data/mse_vs_norm.dat"), "0 0.625 0.5303300858899106 2"));
  CHECK(slurp(dir.path() / "plots/mse_vs_positions.gp").find("lower is better") !=
        std::string::npos);
  std::string horizons = slurp(dir.path() / "plots/data/mae_by_horizon.dat");
  CHECK(has_line(horizons, "1 0.5 1"));
  CHECK(has_line(horizons, "3 4 1"));
  CHECK(has_line(horizons, "2 2 1"));
}

TEST_CASE("a run with nothing to plot returns no plots", "[plots]") {
  ScratchDir dir("plots");
  SECTION("no trial has run") {
    json index = make_run(dir.str(), "seq2seq", {}, {{"t0", json::object(), "", "", {}, {}}});
    CHECK(write_plots(dir.str(), index, 1).empty());
  }
  SECTION("every trial failed with empty metrics") {
    json index =
        make_run(dir.str(), "seq2seq", {"k"}, {{"t0", {{"k", "1"}}, "k=1", "failed", {}, {}}});
    CHECK(write_plots(dir.str(), index, 1).empty());
  }
  SECTION("no trials at all") {
    json index = make_run(dir.str(), "forecast", {}, {});
    CHECK(write_plots(dir.str(), index, 0).empty());
  }
  CHECK_FALSE(fs::exists(dir.path() / "plots"));
}

TEST_CASE("nothing swept gives one curve labelled all trials", "[plots]") {
  ScratchDir dir("plots");
  json index = make_run(
      dir.str(), "seq2seq", {},
      {{"t0", json::object(), "", "ok", {eval(1, 2.0), eval(2, 0.01)}, {{"val_loss", 0.01}}}});
  REQUIRE(write_plots(dir.str(), index, 1) == std::vector<std::string>{"plots/val_loss.png"});
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
      write_plots(dir.str(), index, 6);
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    ::setenv("PATH", old_path.c_str(), 1);
    CHECK(what.find("val_loss.gp") != std::string::npos);
    CHECK(what.find("gnuplot-nox") != std::string::npos);
  }
}

TEST_CASE("gnuplot string literals keep user text literal", "[plots]") {
  CHECK(gp_string("plain") == "'plain'");
  CHECK(gp_string("it's") == "'it''s'");
  CHECK(gp_string("a\\b \"c\"") == "'a\\b \"c\"'");
  CHECK(gp_string("two\nlines") == "'two lines'");
  CHECK(gp_number(0.1) == "0.1");
  CHECK(gp_number(3) == "3");
  CHECK(gp_number(1e-7) == "1e-07");
}
