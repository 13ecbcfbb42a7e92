// Issue 28, bounded work: a stop reaches a trial inside its evaluation, every sequence
// task's lengths are bounded by what the model holds (g2p included), and a step that
// cannot fit in memory is refused before anything runs — each through the CLI.
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

// A trial whose one evaluation (at its last step, 2) greedily decodes 1,000 validation
// sequences of 60 tokens — about a second of decoding (ten under the sanitizers) between
// two step boundaries, against a 2-ms poll — after a resumable state saved at step 1.
const std::string kLongEvaluation =
    "name = \"long_eval\"\nseed = 3\n\n"
    "[task]\nkind = \"copy\"\nvocab = 6\nmin_length = 60\nmax_length = 60\nvalidation_size = "
    "1000\ntest_size = 100\n\n"
    "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\n\n"
    "[train]\nsteps = 2\nbatch = 8\nlr = 3e-3\neval_every = 2\nresume_every = 1\n";

// Waits for `child` to exit; a child still running after the hang guard is killed
// (a hang is a failure, not a wait forever). Returns its exit status, or -1.
int exit_status(pid_t child) {
  const bool exited = wait_for([] { return false; }, child);
  REQUIRE_FALSE(exited);  // the event never happens: wait_for returns when the child exits
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE(
    "SIGTERM during an evaluation stops the trial inside it, and the rerun equals an uninterrupted "
    "run",
    "[signals][e2e]") {
  ScratchDir dir("stop_in_evaluation");
  const std::string file = dir.file("exp.toml", kLongEvaluation);
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/clean --jobs 1 --quiet")
              .status == 0);

  const std::string out = dir.str() + "/stopped", run_dir = out + "/long_eval",
                    log = dir.str() + "/stopped.log";
  pid_t child = start_run(kCli, file, out, log);
  // The state of step 1 is saved: what is left is step 2's few milliseconds of training
  // and its evaluation's seconds of decoding, where the signal lands.
  REQUIRE(wait_for(
      [&] {
        return fs::exists(run_dir + "/trials") &&
               fs::exists(only_trial(run_dir) + "/resume.safetensors");
      },
      child));
  kill(child, SIGTERM);
  const int status = exit_status(child);
  const std::string said = read_text(log);
  INFO(said);
  CHECK(status == 143);
  CHECK_THAT(said, Catch::Contains("stopped by SIGTERM: "));
  CHECK_THAT(said, Catch::Contains("resume with: " + kCli + " run " + file + " --out " + out));
  CHECK_FALSE(fs::exists(run_dir + "/.lock"));
  // Stopped inside the evaluation: not finished (before, it finished its evaluations —
  // and the test set's — and wrote its summary), its state still the one of step 1.
  const std::string trial = only_trial(run_dir);
  CHECK_FALSE(fs::exists(trial + "/summary.json"));
  CHECK(fs::exists(trial + "/resume.safetensors"));
  for (const auto& e : fs::recursive_directory_iterator(run_dir))
    CHECK(e.path().string().find(".tmp.") == std::string::npos);

  CommandResult rerun = run_command(kCli + " run " + file + " --out " + out + " --jobs 1 --quiet");
  INFO(rerun.output);
  REQUIRE(rerun.status == 0);
  CHECK(nlohmann::json::parse(read_text(trial + "/summary.json"))
            .at("resumed_from_step")
            .get<int>() == 1);
  CHECK(summaries_differing(dir.str() + "/clean/long_eval", run_dir).empty());
  CHECK(read_text(trial + "/metrics.jsonl").size() > 0);
  CHECK(read_text(trial + "/predictions.tsv") ==
        read_text(only_trial(dir.str() + "/clean/long_eval") + "/predictions.tsv"));
}

TEST_CASE(
    "a g2p dictionary with a pronunciation longer than max_length is refused at load, naming file "
    "and line",
    "[g2p][e2e]") {
  ScratchDir dir("g2p_too_long");
  // One pronunciation of 5,000 phonemes: before, the model was sized for it and every
  // validation decoded 5,001 steps per batch.
  std::string long_pronunciation = "K";
  for (int i = 1; i < 5000; ++i) long_pronunciation += " AE1";
  dir.file("train.tsv",
           "cat\tK AE1 T\nbat\tB AE1 T\ntab\t" + long_pronunciation + "\nact\tAE2 K T\n");
  dir.file("validation.tsv", "bac\tB AE1 K\n");
  dir.file("test.tsv", "cta\tK T AH0\n");
  const std::string experiment =
      "name = \"g2p_long\"\nseed = 1\n[task]\nkind = \"g2p\"\ntrain = \"train.tsv\"\nvalidation = "
      "\"validation.tsv\"\n"
      "test = \"test.tsv\"\n"
      "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\n"
      "[train]\nsteps = 2\nbatch = 4\neval_every = 2\n";
  const std::string file = dir.file("g2p.toml", experiment);
  const std::string runs = dir.str() + "/runs";
  for (const char* command : {" check ", " run "}) {
    CommandResult r = run_command(kCli + command + file +
                                  (std::string(command) == " run " ? " --out " + runs : ""));
    INFO(command << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output,
               Catch::Contains(
                   "train.tsv:3: a pronunciation has 5000 phonemes, more than max_length = 64"));
    CHECK_FALSE(fs::exists(runs));  // refused before anything is written
  }

  // The bound is the option's, at most 4,096: a pronunciation that long is refused at any setting.
  CommandResult widest = run_command(kCli + " check " + file + " task.max_length=4096");
  INFO(widest.output);
  CHECK(widest.status == 2);
  CHECK_THAT(widest.output,
             Catch::Contains(
                 "train.tsv:3: a pronunciation has 5000 phonemes, more than max_length = 4096"));
  // And the bound is inclusive: 5 phonemes at max_length = 5 are accepted, at 4 refused.
  dir.file("train.tsv", "cat\tK AE1 T\nbat\tB AE1 T\ntab\tT AE1 B AE1 T\nact\tAE2 K T\n");
  CHECK(run_command(kCli + " check " + file + " task.max_length=5").status == 0);
  CommandResult shorter = run_command(kCli + " check " + file + " task.max_length=4");
  INFO(shorter.output);
  CHECK(shorter.status == 2);
  CHECK_THAT(
      shorter.output,
      Catch::Contains("train.tsv:3: a pronunciation has 5 phonemes, more than max_length = 4"));
}

TEST_CASE("a step that cannot fit in memory is refused before anything runs, with the numbers",
          "[memory][e2e]") {
  ScratchDir dir("memory_estimate");
  // max_length at its documented maximum with a large batch: the attention maps alone
  // are 1024 × 4 heads × 4097² floats per attention module, terabytes. Before, `check`
  // accepted it and the trial died with a bare std::bad_alloc.
  const std::string file = dir.file(
      "big.toml",
      "name = \"big\"\nseed = 1\n[task]\nkind = \"copy\"\nmin_length = 4096\nmax_length = 4096\n"
      "[train]\nsteps = 2\nbatch = 1024\n");
  const std::string runs = dir.str() + "/runs";
  for (const std::string& command : {" check " + file, " run " + file + " --out " + runs}) {
    CommandResult r = run_command(kCli + command);
    INFO(command << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("big.toml:9:1: "));
    CHECK_THAT(r.output, Catch::Contains("train.batch: a training step would need at least "));
    CHECK_THAT(r.output, Catch::Contains("more than this machine's "));
    CHECK_THAT(r.output,
               Catch::Contains("= batch 1024 × heads 4 × max_len 4097² per attention module"));
    CHECK_FALSE(fs::exists(runs));
  }
}

#if !defined(__has_feature)
#define __has_feature(x) 0
#endif
#if !__has_feature(address_sanitizer) && \
    !defined(__SANITIZE_ADDRESS__)  // ASan needs far more address space
TEST_CASE("a trial that runs out of memory anyway fails naming the trial and 'out of memory'",
          "[memory][e2e]") {
  ScratchDir dir("out_of_memory");
  // About 1.6 GB of attention maps by the estimate — accepted on any machine that can
  // run the suite — run with 1 GB of address space.
  const std::string file = dir.file("oom.toml",
                                    "name = \"oom\"\nseed = 1\n[task]\nkind = \"copy\"\nmin_length "
                                    "= 512\nmax_length = 512\nvalidation_size = 64\n"
                                    "test_size = 64\n[train]\nsteps = 2\nbatch = 64\n");
  CommandResult r = run_command("ulimit -v 1000000 && " + kCli + " run " + file + " --out " +
                                dir.str() + "/runs --quiet");
  INFO(r.output);
  CHECK(r.status == 1);
  const std::string trial = only_trial(dir.str() + "/runs/oom");
  const nlohmann::json summary = nlohmann::json::parse(read_text(trial + "/summary.json"));
  CHECK(summary.at("status") == "failed");
  const std::string id = fs::path(trial).filename().string();
  CHECK_THAT(summary.at("error").get<std::string>(),
             Catch::StartsWith("trial " + id +
                               " ran out of memory (d_model = 64, max_len = 513, batch = 64"));
}
#endif
