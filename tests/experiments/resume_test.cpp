// A trial stopped mid-way continues from its saved state (experiments/runner/
// resume_state.h) instead of starting again, and ends exactly where an uninterrupted
// run ends: after `kill -9`, the rerun's metrics.jsonl, summary.json, checkpoint and
// attention maps are bit-identical to a clean run's (timings and resumed_from_step
// aside), for a sequence task and for forecasting, with dropout, BatchNorm running
// statistics, a warm-up schedule, attention telemetry, the BatchNorm drift telemetry
// and the gradient norms at initialisation all carried across.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <regex>
#include <vector>

#include "tests/experiments/experiment_files.h"
#include "tests/experiments/mpiexec.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

const std::string kTrainingExtras =
    "resume_every = 300\ncheckpoint = true\nattention_telemetry = true\nnorm_telemetry = true\n"
    "schedule = { kind = \"linear_warmup\", warmup = 100 }\n";

std::string sequence_experiment() {
  std::string toml = with_steps(tiny_experiment("resume"), 6000);
  toml.replace(toml.find("eval_every = 10"), 15, "eval_every = 200");
  toml.replace(toml.find("layers = 1\n"), 11, "layers = 1\ndropout = 0.1\nnorm = \"batch\"\n");
  return toml + kTrainingExtras;
}

std::string forecast_experiment() {
  return "name = \"resume\"\nseed = 2\n\n"
         "[task]\nkind = \"forecast\"\nseries = 2\nlookback = 8\nhorizon = 2\nlength = 300\n\n"
         "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = { encoder = 1, decoder = 0 "
         "}\ndropout = 0.1\n\n"
         "[train]\nsteps = 4000\nbatch = 8\nlr = 1e-3\neval_every = 200\n" +
         kTrainingExtras;
}

// The processes whose command line contains `text` (mpirun starts its ranks in process
// groups of their own, so a group signal would not reach them).
std::vector<pid_t> processes_running(const std::string& text) {
  std::vector<pid_t> pids;
  for (const auto& p : fs::directory_iterator("/proc")) {
    const std::string name = p.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_text(p.path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(text) != std::string::npos) pids.push_back(pid_t(std::stoi(name)));
  }
  return pids;
}

// Runs `command` (through sh) and sends `signal` to every process whose command line
// names `run_dir`'s parent — as a scheduler signals every process of a job — as soon as
// `trials` trial directories of `run_dir` hold a resume state. Returns the wait status
// and leaves the output in `log`.
int run_until_saved(const std::string& command, const std::string& run_dir, int trials, int signal,
                    const std::string& log) {
  pid_t child = fork();
  if (child == 0) {
    const std::string exec = "exec " + command + " > " + log + " 2>&1";
    execl("/bin/sh", "sh", "-c", exec.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto saved = [&] {
    int n = 0;
    if (fs::exists(run_dir + "/trials"))
      for (const auto& d : fs::directory_iterator(run_dir + "/trials"))
        n += fs::exists(d.path() / "resume.safetensors");
    return n;
  };
  REQUIRE(wait_for([&] { return saved() >= trials; }, child));
  REQUIRE(saved() == trials);
  for (pid_t p : processes_running("--out " + fs::path(run_dir).parent_path().string() + " "))
    kill(p, signal);
  int status = 0;
  waitpid(child, &status, 0);
  return status;
}

// Starts the run, kills it with SIGKILL as soon as a resume state is on disk.
void run_until_first_save(const std::string& file, const std::string& out) {
  int status = run_until_saved(kCli + " run " + file + " --out " + out + " --quiet",
                               out + "/resume", 1, SIGKILL, out + ".log");
  REQUIRE(WIFSIGNALED(status));  // killed, not finished
}

std::string without_seconds(const std::string& jsonl) {
  return std::regex_replace(jsonl, std::regex("\"seconds\":[-0-9.e+]+"), "");
}

}  // namespace

TEST_CASE("kill -9 mid-trial, then rerun: the trial resumes and ends bit-identical to a clean run",
          "[resume][long]") {
  for (auto [kind, toml] : {std::pair{"sequence", sequence_experiment()},
                            std::pair{"forecast", forecast_experiment()}}) {
    INFO(kind);
    ScratchDir dir(std::string("resume_") + kind);
    const std::string file = dir.file("exp.toml", toml);
    REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/clean --quiet").status ==
            0);
    const std::string clean = only_trial(dir.str() + "/clean/resume");
    CHECK_FALSE(fs::exists(clean + "/resume.safetensors"));  // a finished trial keeps no state

    run_until_first_save(file, dir.str() + "/killed");
    const std::string killed = only_trial(dir.str() + "/killed/resume");
    CHECK_FALSE(fs::exists(killed + "/summary.json"));
    CHECK_THAT(
        run_command(kCli + " run " + file + " --out " + dir.str() + "/killed --dry-run").output,
        Catch::Contains("resume"));
    CommandResult rerun =
        run_command(kCli + " run " + file + " --out " + dir.str() + "/killed --quiet");
    INFO(rerun.output);
    REQUIRE(rerun.status == 0);
    CHECK_THAT(rerun.output, Catch::Contains("1 trial continued from a saved state"));

    const nlohmann::json summary = nlohmann::json::parse(read_text(killed + "/summary.json"));
    const std::int64_t resumed = summary.at("resumed_from_step").get<std::int64_t>();
    CHECK(resumed > 0);
    CHECK(resumed % 300 == 0);  // a periodic save (resume_every = 300)
    CHECK(nlohmann::json::parse(read_text(clean + "/summary.json")).at("resumed_from_step") == 0);
    CHECK_FALSE(fs::exists(killed + "/resume.safetensors"));
    CHECK(summary_without_timings(read_text(killed + "/summary.json")) ==
          summary_without_timings(read_text(clean + "/summary.json")));
    CHECK(without_seconds(read_text(killed + "/metrics.jsonl")) ==
          without_seconds(read_text(clean + "/metrics.jsonl")));
    CHECK(read_text(killed + "/checkpoint.safetensors") ==
          read_text(clean + "/checkpoint.safetensors"));
    if (fs::exists(clean + "/attention.json"))
      CHECK(read_text(killed + "/attention.json") == read_text(clean + "/attention.json"));
    // What the comparisons above carried across: the first step's gradients (measured
    // before the save, so only the resume state has them), and the BatchNorm drift of
    // the sequence model (the forecasting model's LayerNorms have none).
    CHECK(summary.at("init_grad_norm").get<double>() > 0);
    CHECK(summary.at("init_grad_norms").contains("encoder.layers.0"));
    CHECK(summary.contains("norm_drift") == (std::string(kind) == "sequence"));
    if (summary.contains("norm_drift")) {
      CHECK(summary["norm_drift"]["training"]["encoder.layers.0.norm1"]["mean"].get<double>() > 0);
      CHECK(summary["norm_drift"]["last_interval"]["decoder.layers.0.norm3"]["var"].get<double>() >
            0);
    }
  }
}

TEST_CASE("a saved state is used only by its own trial and build, --force starts again",
          "[resume][long]") {
  // One stopped run serves both checks (no SECTIONs, which would train it twice): the
  // first copies its state, the second then discards it.
  ScratchDir dir("resume_foreign");
  const std::string file = dir.file("exp.toml", sequence_experiment());
  run_until_first_save(file, dir.str() + "/run");
  const std::string trial = only_trial(dir.str() + "/run/resume");

  // A state saved for another configuration is ignored, with the reason. The same
  // experiment with another learning rate is another trial; give it this trial's
  // state, as a hand-copied directory would.
  std::string other = sequence_experiment();
  other.replace(other.find("lr = 3e-3"), 9, "lr = 2e-3");
  const std::string other_file = dir.file("other.toml", other);
  const CommandResult dry =
      run_command(kCli + " run " + other_file + " --out " + dir.str() + "/other --dry-run");
  REQUIRE(dry.status == 0);
  std::smatch id;
  REQUIRE(std::regex_search(dry.output, id, std::regex("  ([0-9a-f]{16})  to run")));
  const std::string other_trial = dir.str() + "/other/resume/trials/" + id[1].str();
  fs::create_directories(other_trial);
  fs::copy_file(trial + "/resume.safetensors", other_trial + "/resume.safetensors");
  CommandResult run =
      run_command(kCli + " run " + other_file + " --out " + dir.str() + "/other --quiet");
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output,
             Catch::Contains("resume.safetensors: saved for another configuration; the trial "
                             "starts again from step 0"));
  CHECK(nlohmann::json::parse(read_text(other_trial + "/summary.json")).at("resumed_from_step") ==
        0);

  // --force discards the state the stopped run saved.
  REQUIRE(fs::exists(trial + "/resume.safetensors"));
  CommandResult forced =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/run --force --quiet");
  REQUIRE(forced.status == 0);
  CHECK_THAT(forced.output, !Catch::Contains("continued from a saved state"));
  CHECK(nlohmann::json::parse(read_text(trial + "/summary.json")).at("resumed_from_step") == 0);
}

TEST_CASE("under mpirun a stopped sweep resumes on any ranks and ends as a local run does",
          "[resume][mpi][long]") {
  ScratchDir dir("resume_mpi");
  // mpirun passes a SIGTERM on to the ranks after odls_base_sigkill_timeout seconds and
  // kills them after twice that, and waits that long even once they have exited
  // (docs/reference/commands.md, "Stopping a run"). The ranks stop within a second here: 3 s
  // (SIGKILL after 6) leaves them ample time, where 30 had mpirun idle for a minute.
  const std::string mpirun =
      mpiexec() + " --allow-run-as-root --oversubscribe --mca odls_base_sigkill_timeout 3 -np ";
  const std::string file =
      dir.file("exp.toml", sequence_experiment() + "\n[sweep]\nseeds = [0, 1]\n");
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/local --jobs 2 --quiet")
              .status == 0);

  // SIGTERM to every process of the job, as a scheduler's time limit sends it, once
  // both running trials have sent rank 0 a saved state.
  const std::string run_dir = dir.str() + "/mpi/resume", log = dir.str() + "/mpi.log";
  run_until_saved(mpirun + "3 " + kCli + " run " + file + " --out " + dir.str() + "/mpi --quiet",
                  run_dir, 2, SIGTERM, log);
  const std::string said = read_text(log);
  INFO(said);
  CHECK_THAT(said,
             Catch::Contains("stopped by SIGTERM: 0 of 2 trials finished and kept, 2 interrupted"));
  CHECK_FALSE(fs::exists(run_dir + "/.lock"));
  CHECK(finished_trials(run_dir) == 0);

  // Resumed with another number of ranks: each trial continues where it stopped.
  CommandResult rerun =
      run_command(mpirun + "2 " + kCli + " run " + file + " --out " + dir.str() + "/mpi --quiet");
  INFO(rerun.output);
  REQUIRE(rerun.status == 0);
  CHECK_THAT(rerun.output, Catch::Contains("2 trials continued from a saved state"));
  for (const auto& d : fs::directory_iterator(run_dir + "/trials")) {
    CHECK(nlohmann::json::parse(read_text(d.path().string() + "/summary.json"))
              .at("resumed_from_step") > 0);
    CHECK_FALSE(fs::exists(d.path() / "resume.safetensors"));
  }
  CHECK(summaries_differing(dir.str() + "/local/resume", run_dir).empty());
  CHECK(results_without_timings(read_text(run_dir + "/results.csv")) ==
        results_without_timings(read_text(dir.str() + "/local/resume/results.csv")));
}
