// The scaling-gradient study end to end through `ablate run`, at reduced size: every
// part is written to study.json with the documented keys, study.md states a verdict
// per claim (a learning rate chosen at its grid's edge marked), and the plots exist;
// `--only-ids` runs exactly the listed trials of its training part.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include "tests/build_paths.h"

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

TEST_CASE("a reduced scaling-gradient study runs end to end", "[study][e2e]") {
  ScratchDir dir("study_run");
  std::string toml = tiny_experiment("study") +
                     "attention_telemetry = true\n"
                     "[study]\nkind = \"scaling_gradient\"\n"
                     "[study.attention]\nd_k = [4, 16]\nlength = 8\nseeds = 3\n"
                     "[sweep]\n\"model.attention.scale\" = [\"sqrt_dk\", \"none\"]\n"
                     "[tune]\n\"train.lr\" = [1e-3, 3e-3]\n";
  std::string file = dir.file("study.toml", toml);
  CommandResult r =
      run_command(std::string(ABLATE_CLI) + " run " + file + " --out " + dir.str() + " --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::string run = dir.str() + "/study";
  auto study = nlohmann::json::parse(read_text(run + "/study.json"));
  CHECK(study["literal"]["softmax_ones_10"].size() == 10);
  for (const char* key : {"1", "sqrt20", "1000", "1e6"})
    CHECK(study["literal"]["grad_1_to_20"].contains(key));
  CHECK(study["literal"].contains("loss_10_7_5"));
  CHECK(study["literal"].contains("grad_10_7_5"));
  CHECK(study["corrected"].size() == 8);      // 2 logit vectors × 4 divisors
  CHECK(study["attention"].size() == 2 * 4);  // 2 d_k × 4 scales
  CHECK(study["attention"][0].contains("mean_softmax_jacobian_fro"));
  REQUIRE(study["training"].size() == 2);
  CHECK(study["training"][0]["attention_entropy_nats"]["n"] == 1);
  // A grid of two: every choice is at its edge, and study.md says so per row and below.
  CHECK(study["training"][0]["tuned_at_grid_edge"] == true);
  // Unscaled differs from 1/sqrt(d_k): not reported as the same network.
  for (const auto& t : study["training"]) CHECK(t["test_loss"]["identical_to_baseline"] == false);
  std::string md = read_text(run + "/study.md");
  for (const char* s :
       {"Claim 1", "Claim 2", "corrected experiment", "Claim 3", "Claim 4", "Verdict",
        "(grid's edge)", "2 of 2 points chose the learning-rate grid's first or last value"})
    CHECK_THAT(md, Catch::Contains(s));
  for (const char* p :
       {"study_literal_ratio.png", "study_corrected_ratio.png", "study_attention.png"})
    CHECK(fs::file_size(run + "/plots/" + p) > 1000);
  CHECK(fs::exists(run + "/summary.md"));  // the training sweep's own report
}

// scripts/reproduce.sh reruns a two-stage study's chosen trials by id: the training part
// must run exactly those, not the whole design.
TEST_CASE("a study's training part runs only the trials --only-ids lists", "[study][e2e]") {
  ScratchDir dir("study_only_ids");
  const std::string file =
      dir.file("study.toml", tiny_experiment("listed") +
                                 "[study]\nkind = \"scaling_gradient\"\n"
                                 "[study.attention]\nd_k = [4]\nlength = 8\nseeds = 2\n"
                                 "[sweep]\n\"model.attention.scale\" = [\"sqrt_dk\", \"none\"]\n"
                                 "seeds = [0, 1]\n"
                                 "[tune]\n\"train.lr\" = [1e-3, 3e-3]\nseeds = [100]\n");
  const std::string cli = ABLATE_CLI;
  CommandResult check = run_command(cli + " check " + file);
  INFO(check.output);
  REQUIRE(check.status == 0);
  const std::vector<std::string> ids = ids_of(check.output);
  REQUIRE(ids.size() == 4);  // the tuning stage: 2 scales × 2 rates × seed 100
  const std::string listed = dir.file("ids.txt", ids[0] + "\n" + ids[3] + "\n");
  CommandResult r = run_command(cli + " run " + file + " --only-ids " + listed + " --out " +
                                dir.str() + " --jobs 1 --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("training sweep: 2 trials (0 already done, 2 ok"));
  std::set<std::string> ran;
  for (const auto& t : fs::directory_iterator(dir.str() + "/listed/trials"))
    ran.insert(t.path().filename().string());
  CHECK(ran == std::set<std::string>{ids[0], ids[3]});
}
