// Issue 34, items 5 and 6, through the command line: `ablate predict` takes a trial
// directory, or a run directory with the trial's swept values (--point) and seed
// (--seed); says so when a file is not a checkpoint; reports the input symbols the
// model never saw; a finished sweep gets its checkpoints from train.checkpoint=true
// without new trial ids or retraining the trials that have one; and `ablate compare`
// tells runs of the same name apart by their directories.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;

namespace {

namespace fs = std::filesystem;

const std::string kCli = ABLATE_CLI;

// The trial directories of a run, by name.
std::set<std::string> trial_ids(const std::string& run_dir) {
  std::set<std::string> ids;
  for (const auto& d : fs::directory_iterator(run_dir + "/trials"))
    ids.insert(d.path().filename().string());
  return ids;
}

int checkpoints(const std::string& run_dir) {
  int n = 0;
  for (const auto& d : fs::directory_iterator(run_dir + "/trials"))
    n += fs::exists(d.path() / "checkpoint.safetensors");
  return n;
}

// The id trials.json gives the trial with these swept values and seed.
std::string indexed_id(const std::string& run_dir, const std::string& qk, const std::string& norm,
                       std::uint64_t seed) {
  const nlohmann::json index = nlohmann::json::parse(read_text(run_dir + "/trials.json"));
  for (const nlohmann::json& t : index["trials"])
    if (t["point"]["model.attention.qk"] == qk && t["point"]["model.norm.kind"] == norm &&
        t["seed"] == seed)
      return t["id"];
  return "";
}

// Runs `toml` into dir/runs (extra: overrides and options) and returns the command's result.
CommandResult run_experiment(const ScratchDir& dir, const std::string& file,
                             const std::string& extra = "") {
  return run_command(kCli + " run " + file + " --out " + dir.str() + "/runs -q " + extra);
}

}  // namespace

TEST_CASE("predict takes a trial directory, and says how to get a checkpoint when it has none",
          "[cli][issue34][e2e]") {
  ScratchDir dir("cli_predict_trial_dir");
  const std::string file = dir.file("exp.toml", with_steps(tiny_experiment("tdir"), 3));
  REQUIRE(run_experiment(dir, file).status == 0);
  const std::string trial = only_trial(dir.str() + "/runs/tdir");
  const std::string input = dir.file("in.txt", "0 1 2\n3 4\n");

  CommandResult none = run_command(kCli + " predict " + trial + " " + input);
  INFO(none.output);
  CHECK(none.status == 2);
  CHECK_THAT(none.output, Catch::Contains("has no checkpoint.safetensors") &&
                              Catch::Contains(trial + "/config.toml train.checkpoint=true"));

  REQUIRE(run_command(kCli + " run " + trial + "/config.toml train.checkpoint=true -q").status ==
          0);
  CommandResult by_dir = run_command(kCli + " predict " + trial + " " + input);
  CommandResult by_file =
      run_command(kCli + " predict " + trial + "/checkpoint.safetensors " + input);
  INFO(by_dir.output);
  CHECK(by_dir.status == 0);
  CHECK(by_dir.output.rfind("id\tsource\tprediction\n", 0) == 0);
  CHECK(by_dir.output == by_file.output);
}

TEST_CASE(
    "predict names a trial of a run directory by --point and --seed, listing the trials when "
    "none or several match",
    "[cli][issue34][e2e]") {
  ScratchDir dir("cli_predict_point");
  const std::string file = dir.file("exp.toml", with_steps(sweep_experiment("pts"), 3));
  // The tiny sweep (2 × 2 points × 2 seeds) with checkpoints.
  REQUIRE(run_experiment(dir, file, "train.checkpoint=true").status == 0);
  const std::string run = dir.str() + "/runs/pts";
  const std::string input = dir.file("in.txt", "0 1 2\n");
  const std::string id = indexed_id(run, "shared", "batch", 1);
  REQUIRE(!id.empty());

  CommandResult named = run_command(kCli + " predict " + run +
                                    " --point model.norm.kind=batch --point "
                                    "model.attention.qk=shared --seed 1 " +
                                    input);
  INFO(named.output);
  CHECK(named.status == 0);
  CHECK(named.output ==
        run_command(kCli + " predict " + run + "/trials/" + id + "/checkpoint.safetensors " + input)
            .output);

  CommandResult none =
      run_command(kCli + " predict " + run + " --point model.norm.kind=rms --seed 0 " + input);
  INFO(none.output);
  CHECK(none.status == 2);
  CHECK_THAT(none.output,
             Catch::Contains("no trial has model.norm.kind=rms seed=0; its points:") &&
                 Catch::Contains("model.attention.qk=shared model.norm.kind=batch  seeds 0, 1"));

  CommandResult several =
      run_command(kCli + " predict " + run + " --point model.norm.kind=layer " + input);
  INFO(several.output);
  CHECK(several.status == 2);
  CHECK_THAT(several.output, Catch::Contains("4 trials match model.norm.kind=layer") &&
                                 Catch::Contains("--point model.attention.qk=...") &&
                                 Catch::Contains("--seed N"));

  // --seed names a trial; the sampler's seed is --sample-seed.
  CommandResult seed_of_file = run_command(kCli + " predict " + run + "/trials/" + id +
                                           "/checkpoint.safetensors --seed 1 " + input);
  CHECK(seed_of_file.status == 2);
  CHECK_THAT(seed_of_file.output, Catch::Contains("--sample-seed"));
}

TEST_CASE("predict says a file that is not a checkpoint is not a safetensors checkpoint",
          "[cli][issue34]") {
  ScratchDir dir("cli_predict_not_checkpoint");
  const std::string file = dir.file("exp.toml", tiny_experiment("notckpt"));
  const std::string input = dir.file("in.txt", "0 1\n");
  CommandResult r = run_command(kCli + " predict " + file + " " + input);
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains(file + ": not a safetensors checkpoint (header length"));

  fs::create_directories(dir.str() + "/empty");
  CommandResult neither = run_command(kCli + " predict " + dir.str() + "/empty " + input);
  INFO(neither.output);
  CHECK(neither.status == 2);
  CHECK_THAT(neither.output, Catch::Contains(dir.str() + "/empty: neither a trial directory") &&
                                 Catch::Contains("nor a run directory"));
}

TEST_CASE("predict reports the symbols the model never saw on stderr, stdout staying the TSV",
          "[cli][issue34][e2e]") {
  ScratchDir dir("cli_predict_unseen");
  std::string pairs;
  for (const char* word : {"abc", "bca", "cab", "acb", "bac", "cba", "aab", "abb", "bba", "cca"})
    pairs += std::string(word) + "\t" + word + "\n";
  dir.file("pairs.tsv", pairs);
  const std::string file = dir.file(
      "exp.toml",
      "name = \"unseen\"\n[task]\nkind = \"text_pairs\"\npath = \"pairs.tsv\"\n"
      "validation_fraction = 0.2\ntest_fraction = 0.2\n[model]\nd_model = 8\nheads = 2\n"
      "d_ff = 16\nlayers = 1\n[train]\nsteps = 3\nbatch = 4\neval_every = 3\ncheckpoint = true\n");
  REQUIRE(run_experiment(dir, file).status == 0);
  const std::string trial = only_trial(dir.str() + "/runs/unseen");
  const std::string input = dir.file("in.txt", "ab\ncz\xC3\xA9\nba\n");
  // Its own redirections in a group: run_command sends the group's stderr to its stdout.
  CommandResult r =
      run_command("(" + kCli + " predict " + trial + "/checkpoint.safetensors " + input + " > " +
                  dir.str() + "/out.tsv 2> " + dir.str() + "/err.txt)");
  const std::string out = read_text(dir.str() + "/out.tsv"),
                    err = read_text(dir.str() + "/err.txt");
  INFO(out + err);
  CHECK(r.status == 0);
  CHECK(tsv_rows(out).size() == 3);
  CHECK_THAT(err, Catch::Contains("in.txt:2: 'z', '\xC3\xA9': never seen in training, decoded as "
                                  "<unk>") &&
                      Catch::Contains("1 of 3 inputs contain symbols the model never saw"));
  CHECK_THAT(err, !Catch::Contains("in.txt:1:") && !Catch::Contains("in.txt:3:"));
}

TEST_CASE(
    "train.checkpoint=true on a finished sweep keeps its trial ids and trains again only the "
    "trials without a checkpoint, warning when their metrics differ from the recorded ones",
    "[cli][issue34][e2e]") {
  ScratchDir dir("cli_predict_checkpoints_later");
  const std::string file = dir.file(
      "exp.toml", with_steps(tiny_experiment("later"), 3) +
                      "\n[sweep]\n\"model.norm.kind\" = [\"layer\", \"batch\"]\nseeds = [0, 1]\n");
  const std::string run = dir.str() + "/runs/later";
  REQUIRE(run_experiment(dir, file).status == 0);
  const std::set<std::string> ids = trial_ids(run);
  REQUIRE(ids.size() == 4);
  CHECK(checkpoints(run) == 0);

  // --dry-run says what the run will do: train them again.
  CHECK_THAT(run_command(kCli + " run " + file + " --out " + dir.str() +
                         "/runs --dry-run train.checkpoint=true")
                 .output,
             Catch::Contains("4 of 4 trials would run"));
  CommandResult later = run_experiment(dir, file, "train.checkpoint=true");
  INFO(later.output);
  CHECK(later.status == 0);
  CHECK_THAT(later.output, Catch::Contains("4 finished trials without checkpoint.safetensors"));
  CHECK_THAT(later.output, !Catch::Contains("WARNING"));
  CHECK(trial_ids(run) == ids);
  CHECK(checkpoints(run) == 4);

  // Done: nothing trains again.
  CommandResult again =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/runs train.checkpoint=true");
  CHECK_THAT(again.output, Catch::Contains("4 trials (4 already done"));

  // A recorded metric unlike the new training's (as another build could have made it).
  const std::string trial = run + "/trials/" + *ids.begin();
  fs::remove(trial + "/checkpoint.safetensors");
  nlohmann::json summary = nlohmann::json::parse(read_text(trial + "/summary.json"));
  summary["test"]["token_accuracy"] = 2.0;
  dir.file("runs/later/trials/" + *ids.begin() + "/summary.json", summary.dump());
  CommandResult differ = run_experiment(dir, file, "train.checkpoint=true");
  INFO(differ.output);
  CHECK(differ.status == 0);
  CHECK_THAT(differ.output, Catch::Contains("1 finished trial without checkpoint.safetensors"));
  const std::string warning =
      "WARNING: trained again to write its checkpoint, its test metrics differ from the "
      "recorded ones (token_accuracy 2 -> ";
  CHECK_THAT(differ.output, Catch::Contains(warning));
  CHECK(checkpoints(run) == 4);
}

TEST_CASE("compare labels runs of the same name by the shortest distinct end of their directories",
          "[cli][issue34][e2e]") {
  ScratchDir dir("cli_compare_same_name");
  const std::string file =
      dir.file("exp.toml", with_steps(tiny_experiment("quick"), 3) + "\n[sweep]\nseeds = [0, 1]\n");
  for (const char* where : {"a", "b"})
    REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/" + where +
                        " -q train.lr=" + (where[0] == 'a' ? "0.003" : "0.001"))
                .status == 0);
  const std::string out = dir.str() + "/cmp";
  CommandResult r = run_command(kCli + " compare " + dir.str() + "/a/quick " + dir.str() +
                                "/b/quick --out " + out);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string csv = read_text(out + "/comparisons.csv"),
                    md = read_text(out + "/comparisons.md");
  CHECK_THAT(csv, Catch::Contains("\na/quick,") && Catch::Contains("\nb/quick,"));
  CHECK_THAT(md, Catch::StartsWith("# Comparison of a/quick, b/quick\n") &&
                     Catch::Contains("| a/quick |") && Catch::Contains("| b/quick |"));
  const std::string html = read_text(out + "/report.html");
  CHECK_THAT(html, Catch::Contains("a/quick") && Catch::Contains("b/quick"));
}
