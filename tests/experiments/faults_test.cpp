// Faults while a sweep runs: a full disk, a trial that throws inside a worker thread,
// a second `ablate run` on the same directory, and repeated kill -9 with resume.
// Nothing finished may be lost or corrupted, and every failure must be clear.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <filesystem>
#include <thread>
#include "tests/build_paths.h"

#include "experiments/config/experiment.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

// Every file under `dir` is whole: no temporary files, every JSON document and
// metrics line parses, every PNG ends with its IEND chunk.
void check_nothing_half_written(const std::string& dir) {
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file()) continue;
    std::string name = f.path().filename().string(), path = f.path().string();
    INFO(path);
    CHECK(name.find(".tmp.") == std::string::npos);
    if (f.path().extension() == ".json") CHECK_NOTHROW(nlohmann::json::parse(read_text(path)));
    if (f.path().extension() == ".jsonl") {
      std::istringstream in(read_text(path));
      for (std::string line; std::getline(in, line);) CHECK_NOTHROW(nlohmann::json::parse(line));
    }
    if (f.path().extension() == ".png") {
      std::string png = read_text(path);
      CHECK((png.size() > 8 &&
             png.compare(png.size() - 8, 8, std::string("IEND\xae\x42\x60\x82", 8)) == 0));
    }
  }
}

}  // namespace

TEST_CASE("a full disk (file-size limit) gives a clear error and leaves no corrupt file",
          "[faults][e2e]") {
  ScratchDir dir("faults_disk");
  std::string file = dir.file("exp.toml", sweep_experiment("disk"));
  // SIGXFSZ ignored, so writes past the limit fail with EFBIG as on a full disk.
  for (int kib : {1, 2, 8}) {
    std::string out = dir.str() + "/limit" + std::to_string(kib);
    CommandResult r =
        run_command("bash -c \"trap '' XFSZ; ulimit -f " + std::to_string(kib) + "; exec " + kCli +
                    " run " + file + " --out " + out + " --jobs 2 --quiet\"");
    INFO("limit " << kib << " KiB: " << r.output);
    CHECK(r.status == 1);
    CHECK_THAT(r.output, Catch::Contains("File too large") || Catch::Contains("is the disk full?"));
    if (fs::exists(out)) check_nothing_half_written(out);
  }
  // With room again, the same directory completes.
  CommandResult again =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/limit8 --jobs 2 --quiet");
  CHECK(again.status == 0);
  check_nothing_half_written(dir.str() + "/limit8");
}

TEST_CASE("a trial that throws inside a worker thread does not stop the others", "[faults][e2e]") {
  ScratchDir dir("faults_throw");
  std::string file = dir.file("exp.toml", sweep_experiment("throw"));
  std::string victim = load_experiment(file).trials[2].id;
  CommandResult r = run_command("ABLATE_FAIL_TRIAL=" + victim + " " + kCli + " run " + file +
                                " --out " + dir.str() + "/runs --jobs 2 --quiet");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("7 ok, 0 diverged, 1 failed"));
  CHECK_THAT(read_text(dir.str() + "/runs/throw/trials/" + victim + "/summary.json"),
             Catch::Contains("injected failure"));
  check_nothing_half_written(dir.str() + "/runs");
}

TEST_CASE("a second ablate run on the same directory is refused with a clear message",
          "[faults][e2e]") {
  ScratchDir dir("faults_lock");
  std::string file = dir.file("exp.toml", sweep_experiment("lock"));
  pid_t first = start_run(kCli, file, dir.str() + "/runs");
  // The first run writes trials.json once it holds the lock; it is paused there
  // (SIGSTOP) so that it still holds it when the second starts, however fast it would
  // otherwise finish, and continues once the second has been refused.
  REQUIRE(wait_for([&] { return fs::exists(dir.str() + "/runs/lock/trials.json"); }, first));
  kill(first, SIGSTOP);
  CommandResult second =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/runs --jobs 1 --quiet");
  kill(first, SIGCONT);
  int status = 0;
  waitpid(first, &status, 0);
  INFO(second.output);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(second.status == 75);  // its own status: retry later (cli/command_help.h)
  CHECK_THAT(second.output, Catch::Contains("another `ablate run` is already writing"));
  CHECK(finished_trials(dir.str() + "/runs/lock") == 8);
  check_nothing_half_written(dir.str() + "/runs");
}

TEST_CASE("kill -9 at several points, then resume: nothing lost, same results", "[faults][e2e]") {
  ScratchDir dir("faults_kills");
  std::string file = dir.file("exp.toml", with_steps(sweep_experiment("kills"), 300));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/clean --jobs 1 --quiet")
              .status == 0);
  std::string out = dir.str() + "/killed", run_dir = out + "/kills";
  // Each round kills the run at an event of its own: the first as soon as the run
  // directory is set up (trials.json written, the first trial starting), the others
  // once one more trial has finished, after a delay that grows each round, so the kills
  // land at different points of the next trial (its start, mid-step, mid-write). Where
  // the run is decides, not the wall time since it started: on a loaded machine too,
  // every kill lands mid-sweep (a trial of 300 steps takes longer than the delays).
  int kills = 0;
  for (int delay_ms : {0, 0, 40, 90, 150}) {
    int before = finished_trials(run_dir);
    if (before == 8) break;
    pid_t child = start_run(kCli, file, out);
    const bool first = kills == 0;
    REQUIRE(wait_for(
        [&] {
          return first ? fs::exists(run_dir + "/trials.json") : finished_trials(run_dir) > before;
        },
        child));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ++kills;
    CHECK(finished_trials(run_dir) >= before);  // a finished trial is never lost
    // Everything on disk is whole (a killed writer leaves only .tmp. files, which
    // the next run removes; summary.json files are complete).
    for (const auto& d : fs::directory_iterator(run_dir + "/trials"))
      if (fs::exists(d.path() / "summary.json"))
        CHECK_NOTHROW(nlohmann::json::parse(read_text((d.path() / "summary.json").string())));
  }
  INFO("kills: " << kills);
  CHECK(kills >= 2);
  CommandResult r = run_command(kCli + " run " + file + " --out " + out + " --jobs 1 --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(results_without_timings(read_text(run_dir + "/results.csv")) ==
        results_without_timings(read_text(dir.str() + "/clean/kills/results.csv")));
  CHECK(summaries_differing(dir.str() + "/clean/kills", run_dir).empty());
  check_nothing_half_written(out);
}
