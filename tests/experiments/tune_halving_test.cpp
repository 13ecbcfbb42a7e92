// [tune.halving] (experiments/config/halving_schedule.h, experiments/runner/halving_stage.h,
// experiments/analysis/successive_halving.h): successive halving of a two-stage [tune]'s
// tuning stage. These tests protect what makes it safe to use: a stopped setting stops
// at its rung, is recorded as stopped and is never chosen; a kept setting's trials are
// bit-identical to a run without halving (they continue from their resume states, on
// the full run's learning-rate schedule); the decisions are replayed, so a run killed
// midway resumes to the same results; `ablate tune-replay` on a run without halving
// says what the halved run did; and a schedule changed after the data shows.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "experiments/analysis/successive_halving.h"
#include "experiments/config/halving_schedule.h"
#include "tests/build_paths.h"
#include "tests/experiments/check_refusals.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const std::string kCli = ABLATE_CLI;

// Two points, four learning rates on two tuning seeds, then two compared seeds; 30
// steps evaluated every 10, so rungs at 0.25 and 0.5 rank at steps 10 and 20.
std::string tuned(const std::string& name, const std::string& halving,
                  const std::string& extra = "") {
  return tiny_experiment(name) +
         "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\nseeds = [0, 1]\n\n"
         "[tune]\n\"train.lr\" = [1e-5, 1e-4, 1e-3, 3e-3]\nseeds = [100, 101]\n" +
         (halving.empty() ? "" : "halving = " + halving + "\n") + extra;
}

const std::string kHalving = "{ rungs = [0.25, 0.5], keep = 0.5 }";

json summary_of(const std::string& run_dir, const std::string& id) {
  return json::parse(read_text(run_dir + "/trials/" + id + "/summary.json"));
}

// results.csv's rows by trial id, as column name → value.
std::map<std::string, std::map<std::string, std::string>> rows_by_id(const std::string& run_dir) {
  const auto rows = csv_rows(read_text(run_dir + "/results.csv"));
  std::map<std::string, std::map<std::string, std::string>> out;
  for (std::size_t r = 1; r < rows.size(); ++r)
    for (std::size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c)
      out[rows[r][0]][rows[0][c]] = rows[r][c];
  return out;
}

// What a trial computed: its validation record and test metrics, timings left out.
json computed(json summary) {
  for (const char* part : {"final", "best"})
    if (summary.contains(part)) summary[part].erase("seconds");
  return {summary["status"], summary["steps"], summary["final"], summary["best"],
          summary.value("test", json())};
}

// The lowest validation loss of the trial's metrics.jsonl up to `step`.
double best_by(const std::string& run_dir, const std::string& id, std::int64_t step) {
  double best = INFINITY;
  for (const std::string& line : lines_of(read_text(run_dir + "/trials/" + id + "/metrics.jsonl")))
    if (const json e = json::parse(line, nullptr, false); e.is_object() && e["step"] <= step)
      best = std::min(best, e["val_loss"].get<double>());
  return best;
}

CommandResult run(const std::string& file, const std::string& out) {
  return run_command(kCli + " run " + file + " --out " + out + " --jobs 2 --quiet");
}

}  // namespace

TEST_CASE("tune.halving: a rung rounds to the nearest evaluation step and keep rounds up",
          "[tune][halving]") {
  CHECK(rung_step(0.25, 3000, 500) == 1000);  // 750: halfway, the later evaluation
  CHECK(rung_step(0.25, 2000, 250) == 500);
  CHECK(rung_step(0.25, 2500, 500) == 500);  // 625
  CHECK(rung_step(0.01, 40, 10) == 10);      // never before the first evaluation
  CHECK(rung_step(0.9, 1000, 300) == 900);   // 900 is nearer than the last step, 1000
  CHECK(settings_kept(0.6, 5) == 3);         // not 4: 0.6 × 5 is 3.0000000000000004
  CHECK(settings_kept(0.5, 5) == 3);
  CHECK(settings_kept(0.5, 8) == 4);
  CHECK(settings_kept(0.1, 3) == 1);
}

TEST_CASE("tune.halving: a rung stops the worst by the mean best validation loss so far",
          "[tune][halving]") {
  auto trial = [](std::vector<double> losses, std::int64_t diverged_at = 0) {
    TuningCurve t;
    for (std::size_t i = 0; i < losses.size(); ++i)
      t.val_loss.emplace_back(std::int64_t(10 * (i + 1)), losses[i]);
    t.diverged_at = diverged_at;
    t.finished = true;
    return t;
  };
  // Best so far, not the last value: a's 1.0 at step 10 counts at step 20.
  const std::vector<SettingCurves> settings{
      {"a", {trial({1.0, 3.0, 0.1}), trial({1.0, 3.0, 0.1})}},  // 1.0 at 20, best at 30
      {"b", {trial({2.0, 1.5, 1.4}), trial({2.0, 1.5, 1.4})}},  // 1.5 at 20
      {"c", {trial({0.5, 0.4}, 25), trial({0.5, 0.4, 0.3})}},   // diverges after step 20
      {"d", {trial({0.2}, 15), trial({0.2, 0.2, 0.2})}},        // diverged by step 20
  };
  HalvingDecision d = decide_halving(settings, {20}, 0.5);
  CHECK(d.rungs_decided == 1);
  CHECK(d.stopped_at == std::vector<std::int64_t>{0, 20, 0, 20});
  CHECK(std::isinf(setting_loss_at(settings[3], 20)));
  CHECK(setting_loss_at(settings[0], 20) == 1.0);
  // Ties keep the earlier setting.
  const std::vector<SettingCurves> tied{{"x", {trial({1.0})}}, {"y", {trial({1.0})}}};
  CHECK(decide_halving(tied, {10}, 0.5).stopped_at == std::vector<std::int64_t>{0, 10});
  // A trial that has not evaluated at the rung yet, and has not finished: undecided.
  std::vector<SettingCurves> waiting = settings;
  // At step 10: d 0.2, c 0.5 kept; a 1.0, b 2.0 stopped. c's second trial is still short
  // of step 20, so the second rung waits.
  waiting[2].trials[1].val_loss.resize(1);
  waiting[2].trials[1].finished = false;
  d = decide_halving(waiting, {10, 20}, 0.5);
  CHECK(d.rungs_decided == 1);
  CHECK(d.stopped_at == std::vector<std::int64_t>{10, 10, 0, 0});
  waiting[2].trials[1].finished = true;  // it ended there (say, train.patience)
  CHECK(decide_halving(waiting, {10, 20}, 0.5).stopped_at ==
        std::vector<std::int64_t>{10, 10, 0, 20});
}

TEST_CASE("tune.halving: refusals name the file, line and key", "[tune][halving]") {
  ScratchDir dir("tune_halving_refusals");
  const std::string base = tiny_experiment("refused") +
                           "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\n"
                           "seeds = [0, 1]\n\n[tune]\n\"train.lr\" = [1e-4, 1e-3, 3e-3]\n";
  const std::string seeds = "seeds = [100, 101]\n";
  check_refusals(
      dir, base,
      {{"halving = { rungs = [0.5] }\n", "tune.halving: needs tune.seeds"},
       {seeds + "halving = 0.5\n", "tune.halving: must be a table"},
       {seeds + "halving = { keep = 0.5 }\n", "tune.halving.rungs: is required"},
       {seeds + "halving = { rungs = [0.5, 0.25] }\n", "tune.halving.rungs: must increase"},
       {seeds + "halving = { rungs = [1.5] }\n", "tune.halving.rungs: each rung is a fraction"},
       {seeds + "halving = { rungs = [25] }\n", "tune.halving.rungs: each rung is a fraction"},
       {seeds + "halving = { rungs = [0.5], keep = 1.0 }\n", "tune.halving.keep"},
       {seeds + "halving = { rungs = [0.5], kept = 0.5 }\n", "tune.halving.kept"},
       {seeds + "halving = { rungs = [0.99] }\n", "rounds to step 30, the last"},
       {seeds + "halving = { rungs = [0.3, 0.32] }\n", "both round to step 10"},
       {seeds + "\"train.steps\" = [20, 30]\nhalving = { rungs = [0.5] }\n",
        "cannot halve a tuning of train.steps"}});
  // One setting: nothing to choose between.
  check_refusals(dir,
                 tiny_experiment("one") +
                     "\n[sweep]\nseeds = [0]\n\n[tune]\n\"train.lr\" = "
                     "[1e-3]\nseeds = [100]\nhalving = { rungs = [0.5] }\n",
                 {{"", "needs at least 2 [tune] settings"}});
}

TEST_CASE("tune.halving: stopped settings stop at their rung, kept ones match a run without it",
          "[tune][halving][e2e]") {
  ScratchDir dir("tune_halving_e2e");
  const std::string halved_file = dir.file("halved.toml", tuned("halved", kHalving));
  CommandResult check = run_command(kCli + " check " + halved_file);
  INFO(check.output);
  REQUIRE(check.status == 0);
  CHECK_THAT(check.output,
             Catch::Contains("halving: rungs at 0.25, 0.5 of train.steps, keeping 0.5 — at steps "
                             "10, 20 of 30: 4 settings a point, then 2, then 1 to the end"));
  CommandResult halved = run(halved_file, dir.str() + "/halved");
  INFO(halved.output);
  REQUIRE(halved.status == 0);
  CHECK_THAT(halved.output, Catch::Contains("8 ok, 0 diverged, 0 failed, 12 stopped by halving"));
  CommandResult full = run(dir.file("full.toml", tuned("halved", "")), dir.str() + "/full");
  REQUIRE(full.status == 0);
  const std::string h = dir.str() + "/halved/halved", f = dir.str() + "/full/halved";
  const auto halved_rows = rows_by_id(h), full_rows = rows_by_id(f);
  REQUIRE(halved_rows.size() == 20);
  int pruned = 0, kept = 0;
  for (const auto& [id, row] : halved_rows) {
    INFO(id << " " << row.at("train.lr") << " seed " << row.at("seed"));
    const json s = summary_of(h, id);
    if (row.at("status") == "pruned") {
      ++pruned;
      // Stopped at a rung: its curve to there, no test metrics, never selected.
      CHECK((s["steps"] == 10 || s["steps"] == 20));
      CHECK(row.at("selected") == "0");
      CHECK(row.at("tuning_stage") == "1");
      CHECK_FALSE(s.contains("test"));
      // What the full run's curve had by that step: the rung ranked on what it saw.
      CHECK(s["best"]["val_loss"].get<double>() == best_by(f, id, s["steps"].get<std::int64_t>()));
      continue;
    }
    ++kept;
    CHECK(row.at("status") == "ok");
    // Continued from its resume state at each rung, and bit-identical to the full run.
    CHECK(computed(s) == computed(summary_of(f, id)));
    CHECK(row.at("selected") == full_rows.at(id).at("selected"));
  }
  CHECK(pruned == 12);
  CHECK(kept == 8);  // 2 points × (1 setting × 2 tuning seeds + 2 compared seeds)
  // The Tuning table says which settings halving stopped.
  CHECK_THAT(read_text(h + "/summary.md"),
             Catch::Contains("at step 10, stopped by halving") &&
                 Catch::Contains("at step 20, stopped by halving") &&
                 Catch::Contains("6 settings were stopped by successive halving"));
  // The replay of the same schedule on the full run says what the halved run did.
  CommandResult replay =
      run_command(kCli + " tune-replay " + dir.str() + "/full --halving 0.25,0.5/0.5");
  INFO(replay.output);
  REQUIRE(replay.status == 0);
  CHECK_THAT(replay.output, Catch::Contains("| rungs at 0.25, 0.5 of train.steps, keeping 0.5 | 0 "
                                            "| 0 |"));
}

TEST_CASE("tune.halving: a run killed in the tuning stage resumes to the same results",
          "[tune][halving][e2e]") {
  ScratchDir dir("tune_halving_kill");
  // Long enough that the kill lands inside the stage, whatever the machine.
  const std::string text = with_steps(tuned("killed", kHalving), 300);
  const std::string file = dir.file("killed.toml", text);
  const std::string cut = dir.str() + "/cut", whole = dir.str() + "/whole";
  pid_t child = start_run(kCli, file, cut);
  // Killed once the first rung has stopped a setting (a "pruned" summary exists).
  auto pruned_one = [&] {
    if (!fs::exists(cut + "/killed/trials")) return false;
    for (const auto& d : fs::directory_iterator(cut + "/killed/trials"))
      if (fs::exists(d.path() / "summary.json") &&
          read_text((d.path() / "summary.json").string()).find("\"pruned\"") != std::string::npos)
        return true;
    return false;
  };
  REQUIRE(wait_for(pruned_one, child));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  CommandResult resumed = run(file, cut);
  INFO(resumed.output);
  REQUIRE(resumed.status == 0);
  REQUIRE(run(file, whole).status == 0);
  const auto a = rows_by_id(cut + "/killed"), b = rows_by_id(whole + "/killed");
  REQUIRE(a.size() == b.size());
  for (const auto& [id, row] : b) {
    INFO(id);
    CHECK(a.at(id).at("status") == row.at("status"));
    CHECK(a.at(id).at("selected") == row.at("selected"));
    CHECK(computed(summary_of(cut + "/killed", id)) == computed(summary_of(whole + "/killed", id)));
  }
}

TEST_CASE("tune.halving: a schedule changed after the data is not pre-registered",
          "[tune][halving][preregistration][e2e]") {
  ScratchDir dir("tune_halving_prereg");
  const std::string claim =
      "\n[report]\nbaseline = { \"model.attention.qk\" = \"separate\" }\n\n[[report.claims]]\n"
      "claim = \"Sharing Q and K is worse.\"\npoint = { \"model.attention.qk\" = \"shared\" }\n"
      "expect = \"worse\"\n";
  const std::string file = dir.file("prereg.toml", tuned("prereg", kHalving, claim));
  const std::string out = dir.str() + "/runs", run_dir = out + "/prereg";
  REQUIRE(run(file, out).status == 0);
  CHECK_THAT(read_text(run_dir + "/preregistration.json"),
             Catch::Contains("halving: rungs at 0.25, 0.5 of train.steps, keeping 0.5"));
  CHECK_THAT(lines_of(read_text(run_dir + "/claims.csv")).at(1), Catch::Contains(",yes,,"));
  // Keeping 3 of 4 instead: the setting stopped at step 10 by the old schedule and kept by
  // the new one continues from its state, and every claim reads preregistered = no.
  dir.file("prereg.toml", tuned("prereg", "{ rungs = [0.25, 0.5], keep = 0.75 }", claim));
  CommandResult again = run(file, out);
  INFO(again.output);
  REQUIRE(again.status == 0);
  CHECK_THAT(lines_of(read_text(run_dir + "/claims.csv")).at(1),
             Catch::Contains(",no,") &&
                 Catch::Contains("the [tune] grid changed from train.lr = 0.001 0.003 1e-04 "
                                 "1e-05; halving: rungs at 0.25, 0.5 of train.steps, keeping 0.5 "
                                 "to train.lr = 0.001 0.003 1e-04 1e-05; halving: rungs at 0.25, "
                                 "0.5 of train.steps, keeping 0.75"));
  int kept_to_the_end = 0;
  for (const auto& [id, row] : rows_by_id(run_dir))
    kept_to_the_end += row.at("tuning_stage") == "1" && row.at("status") == "ok";
  CHECK(kept_to_the_end == 12);  // 2 points × 3 settings × 2 tuning seeds
}

// The replay table of docs/reference/tune.md is the tool's output, not typed: made again
// from the committed records with the arguments its marker names.
TEST_CASE("tune.halving: docs/reference/tune.md's replay table is what tune-replay prints",
          "[tune][halving][smoke]") {
  const std::string readme = reference_page("tune");
  const std::string start = "<!-- tune-replay: ";
  std::size_t begin = readme.find(start);
  REQUIRE(begin != std::string::npos);
  const std::size_t args_end = readme.find(" -->\n", begin);
  const std::string args = readme.substr(begin + start.size(), args_end - begin - start.size());
  begin = args_end + 5;
  const std::size_t end = readme.find("<!-- /tune-replay -->", begin);
  REQUIRE(end != std::string::npos);
  CommandResult replay = run_command(kCli + " tune-replay " + std::string(ABLATE_TEST_DATA_DIR) +
                                     "/../experiments/studies/results " + args);
  REQUIRE(replay.status == 0);
  CHECK(replay.output == readme.substr(begin, end - begin));
}
