// The CLI end to end on tiny sweeps: run, skip finished trials, identical results
// whatever --jobs is, resume after kill -9, divergence, exit statuses, and nothing
// created for a bad file.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <sstream>
#include "tests/build_paths.h"

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

}  // namespace

TEST_CASE("run writes the reports and a rerun skips every finished trial", "[run][e2e]") {
  ScratchDir dir("run_basic");
  std::string file = dir.file("exp.toml", sweep_experiment("basic"));
  CommandResult r =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/runs --jobs 2 --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::string run_dir = dir.str() + "/runs/basic";
  CHECK_THAT(r.output, Catch::Contains("8 ok") && Catch::Contains(run_dir + "/summary.md"));
  std::string csv = read_text(run_dir + "/results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 9);
  CHECK_THAT(read_text(run_dir + "/summary.md"), Catch::Contains("| shared | batch | 2 |"));
  CommandResult again =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/runs --quiet");
  CHECK_THAT(again.output, Catch::Contains("8 already done"));
  CHECK(results_without_timings(read_text(run_dir + "/results.csv")) ==
        results_without_timings(csv));
}

TEST_CASE("results are identical with --jobs 1 and --jobs 2", "[run][e2e]") {
  ScratchDir dir("run_jobs");
  std::string file = dir.file("exp.toml", sweep_experiment("jobs"));
  REQUIRE(
      run_command(kCli + " run " + file + " --out " + dir.str() + "/one --jobs 1 --quiet").status ==
      0);
  REQUIRE(
      run_command(kCli + " run " + file + " --out " + dir.str() + "/two --jobs 2 --quiet").status ==
      0);
  std::string one = read_text(dir.str() + "/one/jobs/results.csv");
  std::string two = read_text(dir.str() + "/two/jobs/results.csv");
  CHECK(results_without_timings(one) == results_without_timings(two));
  CHECK(summaries_differing(dir.str() + "/one/jobs", dir.str() + "/two/jobs").empty());
  // And every trial's metrics, step by step (seconds aside).
  for (const auto& d : fs::directory_iterator(dir.str() + "/one/jobs/trials")) {
    std::string id = d.path().filename().string();
    std::string a = read_text(d.path().string() + "/metrics.jsonl");
    std::string b = read_text(dir.str() + "/two/jobs/trials/" + id + "/metrics.jsonl");
    auto strip = [](std::string s) {
      std::string out;
      std::istringstream in(s);
      for (std::string line; std::getline(in, line);)
        out += line.substr(0, line.find("\"seconds\"")) + "\n";
      return out;
    };
    CHECK(strip(a) == strip(b));
  }
}

TEST_CASE("a sweep killed with SIGKILL resumes to the same results", "[run][e2e]") {
  ScratchDir dir("run_resume");
  std::string file = dir.file("exp.toml", with_steps(sweep_experiment("resume"), 300));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/clean --jobs 1 --quiet")
              .status == 0);
  std::string run_dir = dir.str() + "/killed/resume";
  pid_t child = start_run(kCli, file, dir.str() + "/killed");
  // Kill it once some, but not all, trials have finished.
  REQUIRE(wait_for([&] { return finished_trials(run_dir) >= 2; }, child));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  int done = finished_trials(run_dir);
  INFO("finished before the kill: " << done);
  CHECK(done >= 2);
  CHECK(done < 8);
  CommandResult r =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/killed --jobs 1 --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains(std::to_string(done) + " already done"));
  CHECK(results_without_timings(read_text(run_dir + "/results.csv")) ==
        results_without_timings(read_text(dir.str() + "/clean/resume/results.csv")));
  for (const auto& e : fs::recursive_directory_iterator(run_dir))
    CHECK(e.path().string().find(".tmp.") == std::string::npos);  // no half-written files
}

TEST_CASE("a diverging trial is marked with its step and the sweep goes on", "[run][e2e]") {
  ScratchDir dir("run_diverge");
  // Forecasting with plain SGD at lr = 100: the squared error's gradient grows with
  // the error, so the weights blow up within a few steps.
  std::string toml =
      "name = \"diverge\"\n[task]\nkind = \"forecast\"\nlookback = 4\nhorizon = 2\nlength = 200\n"
      "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\nnorm = \"none\"\n"
      "[train]\nsteps = 200\nbatch = 8\nlr = 100.0\noptimizer = \"sgd\"\neval_every = 50\n"
      "[sweep]\nseeds = [0, 1]\n";
  std::string file = dir.file("exp.toml", toml);
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + "/runs --quiet");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("2 diverged"));
  std::string csv = read_text(dir.str() + "/runs/diverge/results.csv");
  CHECK_THAT(csv, Catch::Contains(",diverged,"));
  // summary.md says how many of the point's seeds diverged, in its test and validation tables.
  const std::string md = read_text(dir.str() + "/runs/diverge/summary.md");
  CHECK_THAT(md, Catch::Contains("| 0 (2 of 2 diverged) | — |"));
  // Their first step's gradient was finite: the gradients at initialisation are recorded.
  for (const auto& d : fs::directory_iterator(dir.str() + "/runs/diverge/trials")) {
    const nlohmann::json summary =
        nlohmann::json::parse(read_text(d.path().string() + "/summary.json"));
    CHECK(summary.at("status") == "diverged");
    CHECK(summary.at("init_grad_norm").is_number());
  }
}

TEST_CASE("a bad file exits 2 and creates no run directory", "[run][e2e]") {
  ScratchDir dir("run_bad");
  std::string file = dir.file("exp.toml", tiny_experiment("bad") + "stepz = 3\n");
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + "/runs");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("train.stepz: unknown key (did you mean 'steps'?)"));
  CHECK_FALSE(fs::exists(dir.str() + "/runs"));
  for (const std::string& args :
       {" check " + file, std::string(" run"), std::string(" frobnicate")}) {
    CommandResult bad = run_command(kCli + args);
    INFO("ablate" << args << ":\n" << bad.output);  // a sanitizer's report, if any, is here
    CHECK(bad.status == 2);
  }
}

TEST_CASE("check and dry-run list the trials without running them", "[run][e2e]") {
  ScratchDir dir("run_check");
  std::string file = dir.file("exp.toml", sweep_experiment("check"));
  CommandResult c = run_command(kCli + " check " + file);
  CHECK(c.status == 0);
  CHECK_THAT(c.output,
             Catch::Contains("8 trials (model.attention.qk × model.norm.kind × 2 seeds)"));
  CommandResult d = run_command(kCli + " run " + file + " --dry-run --out " + dir.str() + "/runs");
  CHECK(d.status == 0);
  CHECK_FALSE(fs::exists(dir.str() + "/runs"));
}
