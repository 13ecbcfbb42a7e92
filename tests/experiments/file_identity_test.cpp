// A trial's identity includes the content of every file it reads: editing a data file
// reruns exactly the trials that read it, an untouched file (even touched) reuses them,
// and a trial's config.toml refuses to run on data that changed since.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <map>

#include "experiments/config/experiment.h"
#include "experiments/io/file_digest.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

const std::string kCli = ABLATE_CLI;

std::string pairs(const std::string& suffix) {
  std::string tsv;
  for (const char* w : {"abc", "hello", "world", "xyz", "stone", "river", "cloud", "plant"})
    tsv += std::string(w) + "\t" + std::string(w) + suffix + "\n";
  return tsv;
}

// Two data files × two seeds: 4 trials, 2 reading each file.
std::string data_sweep() {
  return "name = \"data\"\n\n[task]\nkind = \"text_pairs\"\npath = \"a.tsv\"\nvalidation_fraction "
         "= 0.25\n\n"
         "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\n\n"
         "[train]\nsteps = 4\nbatch = 4\neval_every = 4\n\n"
         "[sweep]\n\"task.path\" = [\"a.tsv\", \"b.tsv\"]\nseeds = [0, 1]\n";
}

std::map<std::string, std::string> ids_by_path(const Experiment& e) {
  std::map<std::string, std::string> ids;
  for (const Trial& t : e.trials)
    ids[t.config.task.options.get_string("path") + "/" + std::to_string(t.config.trial_seed)] =
        t.id;
  return ids;
}

}  // namespace

TEST_CASE("file digests are OpenSSL's SHA-256 of the bytes", "[identity]") {
  ScratchDir dir("identity_sha256");
  // FIPS 180-2's test vectors.
  CHECK(sha256_of_file(dir.file("abc", "abc")) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_of_file(dir.file("empty", "")) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK_THROWS_WITH(sha256_of_file(dir.str() + "/missing"),
                    Catch::Contains("missing: cannot open the file"));
  CHECK_THROWS_WITH(sha256_of_file(dir.str()), Catch::Contains("is a directory"));
}

TEST_CASE("editing a data file reruns exactly the trials that read it", "[identity][e2e]") {
  ScratchDir dir("identity_edit");
  dir.file("a.tsv", pairs("s"));
  dir.file("b.tsv", pairs("t"));
  const std::string file = dir.file("exp.toml", data_sweep());
  Experiment before = load_experiment(file);
  REQUIRE(before.trials.size() == 4);
  // config.toml records the digest next to the path.
  CHECK_THAT(before.trials[0].config_toml,
             Catch::Contains("path = \"a.tsv\"\npath_sha256 = \"" +
                             sha256_of_file(dir.str() + "/a.tsv") + "\""));
  const std::string out = dir.str() + "/runs";
  CommandResult first = run_command(kCli + " run " + file + " --out " + out + " --quiet");
  REQUIRE(first.status == 0);
  CHECK(finished_trials(out + "/data") == 4);

  // The same content with a new modification time: nothing reruns.
  std::filesystem::last_write_time(dir.str() + "/a.tsv",
                                   std::filesystem::file_time_type::clock::now());
  CHECK(ids_by_path(load_experiment(file)) == ids_by_path(before));
  CommandResult same = run_command(kCli + " run " + file + " --out " + out);
  REQUIRE(same.status == 0);
  CHECK_THAT(same.output, Catch::Contains("4 trials (4 already done"));

  // New targets in a.tsv: its two trials get new ids and run; b.tsv's are reused.
  dir.file("a.tsv", pairs("q"));
  std::map<std::string, std::string> old_ids = ids_by_path(before),
                                     new_ids = ids_by_path(load_experiment(file));
  CHECK(new_ids["a.tsv/0"] != old_ids["a.tsv/0"]);
  CHECK(new_ids["a.tsv/1"] != old_ids["a.tsv/1"]);
  CHECK(new_ids["b.tsv/0"] == old_ids["b.tsv/0"]);
  CHECK(new_ids["b.tsv/1"] == old_ids["b.tsv/1"]);
  CommandResult edited = run_command(kCli + " run " + file + " --out " + out);
  REQUIRE(edited.status == 0);
  CHECK_THAT(edited.output, Catch::Contains("4 trials (2 already done"));
  for (const auto& [key, id] : new_ids) {
    INFO(key);
    CHECK(std::filesystem::exists(out + "/data/trials/" + id + "/summary.json"));
  }
  // summary.json names the file and the content it read.
  const auto summary = nlohmann::json::parse(
      read_text(out + "/data/trials/" + new_ids["a.tsv/0"] + "/summary.json"));
  CHECK(summary["files"]["task.path"]["path"] == "a.tsv");
  CHECK(summary["files"]["task.path"]["sha256"] == sha256_of_file(dir.str() + "/a.tsv"));
}

TEST_CASE("a trial's config.toml refuses data that changed since it ran", "[identity][e2e]") {
  ScratchDir dir("identity_recorded");
  dir.file("a.tsv", pairs("s"));
  dir.file("b.tsv", pairs("t"));
  Experiment e = load_experiment(dir.file("exp.toml", data_sweep()));
  // The resolved config sits next to the data here, so its relative path resolves.
  const std::string config = dir.file("config.toml", e.trials[0].config_toml);
  REQUIRE(load_experiment(config).trials[0].id == e.trials[0].id);
  dir.file("a.tsv", pairs("q"));
  try {
    load_experiment(config);
    FAIL("the changed data was accepted");
  } catch (const ConfigError& error) {
    CHECK_THAT(error.what(), Catch::Contains("config.toml:"));
    CHECK_THAT(error.what(), Catch::Contains("task.path_sha256: "));
    CHECK_THAT(error.what(), Catch::Contains("a.tsv has changed since this config was resolved"));
  }
  CommandResult r = run_command(kCli + " check " + config);
  CHECK(r.status == 2);
}

TEST_CASE("a trial's config.toml reruns from anywhere into its sweep and keeps the sweep's reports",
          "[identity][e2e]") {
  ScratchDir dir("identity_rerun");
  dir.file("a.tsv", pairs("s"));
  dir.file("b.tsv", pairs("t"));
  const std::string file = dir.file("exp.toml", data_sweep());
  const std::string out = dir.str() + "/runs", run = out + "/data";
  REQUIRE(run_command(kCli + " run " + file + " --out " + out + " --quiet").status == 0);
  const std::string results = read_text(run + "/results.csv"),
                    summary_md = read_text(run + "/summary.md");
  const std::string experiment = read_text(run + "/experiment.toml"),
                    index = read_text(run + "/trials.json");
  const Experiment e = load_experiment(file);
  const std::string id = e.trials[1].id, trial = run + "/trials/" + id;
  const std::string original = read_text(trial + "/summary.json");

  // From another working directory, by the path of the trial's own config.toml: its
  // data (next to exp.toml, named relative to it) is found, the trial reruns in place
  // and reproduces its summary, and the sweep's files still describe all 4 trials.
  std::filesystem::create_directories(dir.str() + "/elsewhere");
  CommandResult again = run_command("cd " + dir.str() + "/elsewhere && " + kCli + " run " + trial +
                                    "/config.toml --force --quiet");
  INFO(again.output);
  REQUIRE(again.status == 0);
  CHECK_THAT(again.output, Catch::Contains(run + ": 1 trials (0 already done, 1 ok"));
  CHECK(summary_without_timings(read_text(trial + "/summary.json")).dump(1) ==
        summary_without_timings(original).dump(1));
  CHECK(read_text(run + "/experiment.toml") == experiment);
  CHECK(read_text(run + "/trials.json") == index);
  CHECK(read_text(run + "/summary.md") == summary_md);
  // results.csv has timing columns; the same 4 trials in the same order.
  const std::string results_now = read_text(run + "/results.csv");
  CHECK(std::count(results_now.begin(), results_now.end(), '\n') ==
        std::count(results.begin(), results.end(), '\n'));
  CHECK(std::filesystem::exists(dir.str() + "/elsewhere/runs") ==
        false);  // nothing written where it was run from

  // A copy of it next to the data, run into the same --out: still a trial of that sweep.
  const std::string copy = dir.file("copy.toml", read_text(trial + "/config.toml"));
  CommandResult copied = run_command(kCli + " run " + copy + " --out " + out + " --quiet");
  INFO(copied.output);
  REQUIRE(copied.status == 0);
  CHECK_THAT(copied.output, Catch::Contains("1 trials (1 already done"));
  CHECK(read_text(run + "/experiment.toml") == experiment);
  CHECK(read_text(run + "/summary.md") == summary_md);
}
