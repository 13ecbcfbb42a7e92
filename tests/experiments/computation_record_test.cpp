// What computed a trial beyond its config is recorded, not silent: each summary.json
// names the attention path its forwards took (with the first reason one was not
// fused), the GEMM backend and the matmul precision; results.csv and summary.md show
// them; and a finished trial trained under another GEMM backend than the current one
// runs again instead of being reused beside this backend's trials.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "autograd/kernels/gemm.h"
#include "tests/build_paths.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

nlohmann::json summary_of(const std::string& trial_dir) {
  return nlohmann::json::parse(read_text(trial_dir + "/summary.json"));
}

}  // namespace

TEST_CASE("summary.json records the attention path, the GEMM backend and the precision", "[e2e]") {
  ScratchDir dir("computation");
  // Two points: the fused path (sinusoidal positions, a fixed scale), and rotary
  // positions, which act inside self-attention and so take the general path there
  // (cross-attention gets no positions and stays fused: mixed).
  const std::string file = dir.file(
      "exp.toml", tiny_experiment("computed") +
                      "\n[sweep]\n\"model.positions.kind\" = [\"sinusoidal\", \"rotary\"]\n");
  const CommandResult r =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/runs --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string run = dir.str() + "/runs/computed";
  const auto index = nlohmann::json::parse(read_text(run + "/trials.json"));
  REQUIRE(index["trials"].size() == 2);
  const std::string backend = ablate::kernels::gemm_backend_name(ablate::kernels::gemm_backend());
  for (const auto& t : index["trials"]) {
    const std::string kind = t["point"]["model.positions.kind"];
    INFO(kind);
    const auto c = summary_of(run + "/trials/" + t["id"].get<std::string>()).at("computation");
    CHECK(c.at("gemm_backend") == backend);
    CHECK(c.at("precision") == "f32");
    const auto& attention = c.at("attention");
    if (kind == "sinusoidal") {
      CHECK(attention.at("path") == "fused");
      CHECK_FALSE(attention.contains("why_not_fused"));
    } else {
      CHECK(attention.at("path") == "mixed");
      // Named by the first module that could not fuse, with the reason.
      CHECK_THAT(attention.at("why_not_fused").get<std::string>(),
                 Catch::EndsWith(": the positions rotate the queries and keys inside attention"));
    }
  }
  const auto rows = csv_rows(read_text(run + "/results.csv"));
  REQUIRE(rows.size() == 3);
  const auto column = [&](const std::string& name) {
    return std::size_t(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  REQUIRE(column("attention_path") < rows[0].size());
  CHECK(rows[1][column("gemm_backend")] == backend);
  CHECK(rows[1][column("precision")] == "f32");
  CHECK_THAT(
      read_text(run + "/summary.md"),
      Catch::Contains("Computed with the GEMM backend " + backend +
                      ", f32 matmuls; attention path fused (1 "
                      "trials), mixed (1 trials) (the first reason a forward was not fused: "));
}

TEST_CASE("a finished trial trained with another GEMM backend runs again, and the run says so",
          "[e2e]") {
  ScratchDir dir("computation_backend");
  const std::string file = dir.file("exp.toml", tiny_experiment("backend"));
  const std::string run_cmd = kCli + " run " + file + " --out " + dir.str() + "/runs";
  REQUIRE(run_command(run_cmd + " --quiet").status == 0);
  const std::string trial = only_trial(dir.str() + "/runs/backend");
  const std::string current = ablate::kernels::gemm_backend_name(ablate::kernels::gemm_backend());
  const std::string other = current == std::string("eigen") ? "openblas" : "eigen";

  // The same backend: reused.
  CommandResult again = run_command(run_cmd);
  CHECK_THAT(again.output, Catch::Contains("1 trials (1 already done"));

  // As if another backend had trained it (ABLATE_GEMM=<other> in an earlier run).
  auto summary = summary_of(trial);
  summary["computation"]["gemm_backend"] = other;
  summary["wall_seconds"] = 12345;
  dir.file(fs::relative(trial + "/summary.json", dir.path()).string(), summary.dump(2));
  const CommandResult dry = run_command(run_cmd + " --dry-run");
  CHECK_THAT(dry.output,
             Catch::Contains("1 of 1 trials would run") && Catch::Contains("  to run  "));
  const CommandResult rerun = run_command(run_cmd);
  INFO(rerun.output);
  REQUIRE(rerun.status == 0);
  CHECK_THAT(rerun.output,
             Catch::Contains("1 trials (0 already done, 1 ok") &&
                 Catch::Contains("1 finished trial trained with the GEMM backend " + other +
                                 " ran again with " + current + " (ABLATE_GEMM)"));
  CHECK(summary_of(trial)["computation"]["gemm_backend"] == current);
  CHECK(summary_of(trial)["wall_seconds"] != 12345);

  // A summary from before ablate recorded the backend is reused as it always was.
  summary = summary_of(trial);
  summary.erase("computation");
  dir.file(fs::relative(trial + "/summary.json", dir.path()).string(), summary.dump(2));
  CHECK_THAT(run_command(run_cmd).output, Catch::Contains("1 trials (1 already done"));
}
