// The CLI says what is true: --dry-run counts what would really run, a missing
// gnuplot is one warning (not a failed run), a directory is not an experiment file, a
// problem that does not depend on the swept values is reported once, and the progress
// line names trials by their swept values.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>

#include "experiments/runner/progress.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

const std::string kCli = ABLATE_CLI;

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// 2 grid points × 1 seed, 20 steps each.
std::string two_trials(const std::string& name) {
  std::string t =
      tiny_experiment(name) + "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\n";
  t.replace(t.find("steps = 30"), 10, "steps = 20");
  return t;
}

}  // namespace

TEST_CASE("a dry run counts the trials that would run and those already done", "[cli][e2e]") {
  ScratchDir dir("honest_dry_run");
  const std::string file = dir.file("exp.toml", two_trials("dry"));
  const std::string out = " --out " + dir.str() + "/runs";
  CommandResult before = run_command(kCli + " run " + file + out + " --dry-run");
  REQUIRE(before.status == 0);
  CHECK_THAT(before.output, Catch::Contains("2 of 2 trials would run into") &&
                                Catch::Contains("; 0 already done"));
  CHECK(occurrences(before.output, "  to run  seed 0") == 2);
  REQUIRE(run_command(kCli + " run " + file + out + " --quiet").status == 0);
  CommandResult after = run_command(kCli + " run " + file + out + " --dry-run");
  CHECK_THAT(after.output, Catch::Contains("0 of 2 trials would run into") &&
                               Catch::Contains("; 2 already done (--force reruns them)"));
  CHECK(occurrences(after.output, "  done    seed 0") == 2);
  CHECK_THAT(run_command(kCli + " run " + file + out + " --dry-run --force").output,
             Catch::Contains("2 of 2 trials would run"));
}

TEST_CASE("without gnuplot a run warns once, skips the images and exits 0", "[cli][e2e]") {
  ScratchDir dir("honest_no_gnuplot");
  const std::string file = dir.file("exp.toml", two_trials("plotless"));
  // An empty PATH: execvp finds no gnuplot (the CLI is started by its full path).
  CommandResult r = run_command("env PATH=" + dir.str() + "/nothing " + kCli + " run " + file +
                                " --out " + dir.str() + "/runs --quiet");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(occurrences(r.output, "warning: gnuplot is not installed") == 1);
  const std::string run = dir.str() + "/runs/plotless";
  CHECK(finished_trials(run) == 2);
  CHECK(std::filesystem::exists(run + "/results.csv"));
  CHECK_THAT(read_text(run + "/summary.md"),
             Catch::Contains("Plots skipped: gnuplot is not installed"));
  CHECK(std::filesystem::exists(run + "/plots/val_loss.gp"));  // the scripts to draw them later
}

TEST_CASE("ablate run on a directory says it is one", "[cli][e2e]") {
  ScratchDir dir("honest_directory");
  CommandResult r = run_command(kCli + " run " + dir.str());
  CHECK(r.status == 2);
  CHECK_THAT(r.output,
             Catch::Contains(dir.str() + ": is a directory, not an experiment file (.toml)") &&
                 Catch::Contains("ablate report DIR"));
}

TEST_CASE("a problem independent of the swept values is reported once, others name their points",
          "[cli][e2e]") {
  ScratchDir dir("honest_once");
  const std::string sweep =
      "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\", \"identity\"]\n"
      "\"model.heads\" = [2, 3]\n";
  // label_smoothing is wrong at all 6 points: one line, no point named.
  std::string everywhere = tiny_experiment("once") + sweep;
  everywhere.replace(everywhere.find("lr = 3e-3"), 9, "lr = 3e-3\nlabel_smoothing = 1.5");
  CommandResult r = run_command(kCli + " check " + dir.file("everywhere.toml", everywhere));
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(occurrences(r.output, "train.label_smoothing") == 1);
  CHECK_THAT(r.output, !Catch::Contains("(trial"));
  // heads = 3 does not divide d_model = 8: only at the 3 points with heads = 3, named once.
  CommandResult some =
      run_command(kCli + " check " + dir.file("some.toml", tiny_experiment("once") + sweep));
  INFO(some.output);
  CHECK(some.status == 2);
  CHECK(occurrences(some.output, "heads = 3 (at the 3 grid points with model.heads=3)") == 1);
  CHECK(occurrences(some.output, "model.heads=2") == 0);
}

TEST_CASE("the progress line shows a trial's swept values, not only its id", "[cli]") {
  CHECK(short_label("model.attention.qk=shared model.attention.scale=0.5 seed=1") ==
        "qk=shared scale=0.5 seed=1");
  CHECK(short_label("seed=0") == "seed=0");
  CHECK(short_label("model.positions={kind=rotary} task.path=data/a.b.tsv") ==
        "positions={kind=rotary} path=data/a.b.tsv");
  CHECK(short_label("").empty());
}
