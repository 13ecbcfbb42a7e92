// SIGINT (Ctrl-C) or SIGTERM (a scheduler's time limit) mid-sweep: the run stops at the
// next step boundary of its running trials, says what it kept and how to resume, exits
// 130 or 143, leaves no lock, writes the reports of the finished trials — and the rerun
// ends with exactly the results of an uninterrupted run. A study's training sweep stops alike.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

// Runs the sweep, sends `signal` once `finished` trials are done; returns the exit status.
int run_and_signal(const std::string& file, const std::string& out, int signal, int finished,
                   const std::string& log) {
  const std::string run_dir = out + "/stop";
  pid_t child = start_run(kCli, file, out, log);
  REQUIRE(wait_for([&] { return finished_trials(run_dir) >= finished; }, child));
  kill(child, signal);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("SIGINT and SIGTERM stop a sweep cleanly and its rerun matches an uninterrupted run",
          "[signals][long]") {
  ScratchDir dir("stop_signal");
  const std::string file = dir.file("exp.toml", with_steps(sweep_experiment("stop"), 300));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/clean --jobs 1 --quiet")
              .status == 0);
  const std::string clean = read_text(dir.str() + "/clean/stop/results.csv");

  for (auto [signal, name, code] :
       {std::tuple{SIGINT, "SIGINT", 130}, std::tuple{SIGTERM, "SIGTERM", 143}}) {
    const std::string out = dir.str() + "/" + name, run_dir = out + "/stop",
                      log = dir.str() + "/" + name + ".log";
    const int status = run_and_signal(file, out, signal, 2, log);
    const std::string said = read_text(log);
    INFO(name << ":\n" << said);
    CHECK(status == code);
    CHECK_THAT(said, Catch::Contains(std::string("stopped by ") + name + ": "));
    CHECK_THAT(said, Catch::Contains("resume with: " + kCli + " run " + file + " --out " + out));
    CHECK_FALSE(fs::exists(run_dir + "/.lock"));
    const int done = finished_trials(run_dir);
    CHECK(done >= 2);
    CHECK(done < 8);
    // The reports are there, for the finished trials.
    CHECK_THAT(read_text(run_dir + "/summary.md"),
               Catch::Contains(std::to_string(done) + " of 8 trials finished"));
    for (const auto& e : fs::recursive_directory_iterator(run_dir))
      CHECK(e.path().string().find(".tmp.") == std::string::npos);

    // The interrupted trial saved its state at the step it stopped at (unless it had
    // not begun its first step) and continues from there.
    std::vector<std::string> saved;
    for (const auto& d : fs::directory_iterator(run_dir + "/trials"))
      if (fs::exists(d.path() / "resume.safetensors")) saved.push_back(d.path().string());
    CHECK(saved.size() <= 1);  // --jobs 1: one trial was running

    CommandResult rerun =
        run_command(kCli + " run " + file + " --out " + out + " --jobs 1 --quiet");
    INFO(rerun.output);
    REQUIRE(rerun.status == 0);
    CHECK_THAT(rerun.output, Catch::Contains(std::to_string(done) + " already done"));
    CHECK(results_without_timings(read_text(run_dir + "/results.csv")) ==
          results_without_timings(clean));
    for (const std::string& trial : saved)
      CHECK(nlohmann::json::parse(read_text(trial + "/summary.json"))
                .at("resumed_from_step")
                .get<int>() > 0);
    CHECK(summaries_differing(dir.str() + "/clean/stop", run_dir).empty());
  }
}

TEST_CASE("SIGINT stops a study's training sweep as it stops any run", "[signals][study][e2e]") {
  // A study started in the background from a script inherits SIGINT ignored; the run
  // must install its handlers anyway, or a stop would kill it without saving (or not at all).
  ScratchDir dir("stop_signal_study");
  const std::string file =
      dir.file("stop.toml", with_steps(sweep_experiment("stop"), 300) +
                                "[study]\nkind = \"scaling_gradient\"\n"
                                "[study.attention]\nd_k = [4]\nlength = 8\nseeds = 2\n");
  const std::string out = dir.str() + "/out", log = dir.str() + "/study.log";
  const int status = run_and_signal(file, out, SIGINT, 1, log);
  const std::string said = read_text(log);
  INFO(said);
  CHECK(status == 130);
  CHECK_THAT(said, Catch::Contains("stopped by SIGINT: "));
  CHECK_THAT(said, Catch::Contains("resume with: " + kCli + " run " + file + " --out " + out));
  CHECK_FALSE(fs::exists(out + "/stop/.lock"));
  CHECK(finished_trials(out + "/stop") < 8);
}
