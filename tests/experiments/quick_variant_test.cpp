// `--quick` (experiments/config/quick_variant.h): an experiment file's [quick] table is
// its reduced variant. Run with --quick, the file gives exactly the trials of the file
// edited to those values, under the name "<name>-quick" (so the reduced run never
// mixes with the full one), and recorded in experiment.toml; command-line overrides
// still apply after it. A bad [quick] entry is a config
// error at its own line whether or not --quick is given.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <algorithm>
#include <regex>

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;

namespace {

const std::string kCli = ABLATE_CLI;

const std::string kQuick =
    "\n[sweep]\nseeds = [0, 1, 2]\n\n[quick]\n\"train.steps\" = 12\n\"sweep.seeds\" = [0]\n";

}  // namespace

TEST_CASE("quick: the file edited to its [quick] values runs as <name>-quick", "[quick][e2e]") {
  ScratchDir dir("quick_variant");
  const std::string file = dir.file("exp.toml", tiny_experiment("q") + kQuick);
  std::string edited = tiny_experiment("q-quick");
  edited.replace(edited.find("steps = 30"), 10, "steps = 12");
  const std::string edited_file = dir.file("edited.toml", edited + "\n[sweep]\nseeds = [0]\n");

  CommandResult full = run_command(kCli + " check " + file);
  CommandResult quick = run_command(kCli + " check " + file + " --quick");
  INFO(full.output << quick.output);
  REQUIRE(full.status == 0);
  REQUIRE(quick.status == 0);
  CHECK(ids_of(full.output).size() == 3);  // without --quick the table changes nothing
  CHECK(ids_of(quick.output) == ids_of(run_command(kCli + " check " + edited_file).output));

  const std::string out = dir.str() + "/runs";
  CommandResult run = run_command(kCli + " run " + file + " --quick --out " + out + " --quiet");
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK(finished_trials(out + "/q-quick") == 1);
  CHECK_FALSE(std::filesystem::exists(out + "/q"));
  const std::string recorded = read_text(out + "/q-quick/experiment.toml");
  CHECK_THAT(
      recorded,
      Catch::Contains("# ---- --quick: the file's [quick] values") &&
          Catch::Contains("#   train.steps = 12\n#   sweep.seeds = [0]\n#   name = \"q-quick\"\n"));
}

TEST_CASE("command-line overrides apply after the [quick] values", "[quick][e2e]") {
  ScratchDir dir("quick_then_overrides");
  const std::string file = dir.file("exp.toml", tiny_experiment("q") + kQuick);
  CommandResult r = run_command(kCli + " check " + file + " --quick 'sweep.seeds=[4, 5]'");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(ids_of(r.output).size() == 2);
  CHECK_THAT(r.output, Catch::Contains("seed 4") && Catch::Contains("seed 5"));
}

TEST_CASE("a bad [quick] value is an error at its line in the file, with or without --quick",
          "[quick][e2e]") {
  ScratchDir dir("quick_errors");
  // Out of range: found only when the value is applied (--quick), at the entry's line.
  const std::string out_of_range =
      dir.file("range.toml", tiny_experiment("q") + "\n[quick]\n\"train.steps\" = 0\n");
  CHECK(run_command(kCli + " check " + out_of_range).status == 0);
  CommandResult r = run_command(kCli + " check " + out_of_range + " --quick");
  INFO(r.output);
  CHECK(r.status == 2);
  // The entry's line: after tiny_experiment's lines, a blank line and [quick].
  const std::string base = tiny_experiment("q");
  const long line = std::count(base.begin(), base.end(), '\n') + 3;
  CHECK_THAT(r.output, Catch::Contains("range.toml:" + std::to_string(line) + ":") &&
                           Catch::Contains("train.steps") && Catch::Contains("under --quick"));

  // Not a dotted key = value: wrong whatever the flag.
  const std::string nested =
      dir.file("nested.toml", tiny_experiment("q") + "\n[quick.train]\nsteps = 3\n");
  for (const char* flag : {"", " --quick"}) {
    CommandResult n = run_command(kCli + " check " + nested + flag);
    INFO(n.output);
    CHECK(n.status == 2);
    CHECK_THAT(n.output, Catch::Contains("nested.toml:") && Catch::Contains("quick.train") &&
                             Catch::Contains("one quoted dotted key"));
  }

  // --quick on a file without [quick] says what is missing.
  const std::string plain = dir.file("plain.toml", tiny_experiment("q"));
  CommandResult p = run_command(kCli + " check " + plain + " --quick");
  INFO(p.output);
  CHECK(p.status == 2);
  CHECK_THAT(p.output, Catch::Contains("plain.toml") && Catch::Contains("needs a [quick] table"));
}

TEST_CASE("quick: a dry run lists the trials of the -quick run directory", "[quick][e2e]") {
  ScratchDir dir("quick_dry_run");
  const std::string file = dir.file("exp.toml", tiny_experiment("q") + kQuick);
  CommandResult r =
      run_command(kCli + " run " + file + " --quick --dry-run --out " + dir.str() + "/runs");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output,
             Catch::Contains("1 of 1 trials would run into " + dir.str() + "/runs/q-quick/"));
}
