// Every trial's summary.json and every run's trials.json say where they came from:
// the code (ablate's version, the commit, whether the tree was dirty and the hash of
// the difference), the build, the libraries, the machine and the command line with its
// overrides (experiments/records/provenance.h). Provenance is a record, never part of
// a trial's identity: a finished trial made by other code is reused as before. `ablate
// compare` warns when the runs it compares were made by different code, and is silent
// when they were not, or when a run recorded none.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "autograd/kernels/library_versions.h"
#include "experiments/records/build_info.h"
#include "experiments/records/code_version.h"
#include "experiments/records/machine.h"
#include "experiments/records/provenance.h"
#include "experiments/records/trial_summary.h"
#include "experiments/reports/provenance_note.h"
#include "tests/build_paths.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
using json = nlohmann::json;

namespace {

json json_at(const std::string& path) {
  return json::parse(read_text(path));
}

// `p` holds what this build compiled in and this machine is, and `argv`/`overrides`.
void check_provenance(const json& p, const std::vector<std::string>& argv,
                      const std::vector<std::string>& overrides) {
  const GitState git = git_state();
  CHECK(p.at("code").at("version") == code_version());
  CHECK(p.at("code").at("commit") == git.commit);
  CHECK(p.at("code").at("tree") == git.tree);
  if (std::string(git.dirty) == "true") {  // a build from a tree with uncommitted changes
    CHECK(p.at("code").at("dirty") == true);
    CHECK(p.at("code").at("diff_sha256") == git.diff_sha256);
  } else {
    CHECK(p.at("code").at("dirty") ==
          (std::string(git.dirty) == "false" ? json(false) : json("unknown")));
    CHECK_FALSE(p.at("code").contains("diff_sha256"));
  }
  const BuildFacts build = build_facts();
  CHECK(p.at("build").at("compiler") ==
        std::string(build.compiler_id) + " " + build.compiler_version);
  CHECK(p.at("build").at("cxx_flags") == build.cxx_flags);
  CHECK(p.at("build").at("instruction_sets") == compiled_instruction_sets());
  const ablate::kernels::LibraryVersions libraries = ablate::kernels::library_versions();
  CHECK(p.at("libraries").at("eigen") == libraries.eigen);
  CHECK(p.at("libraries").at("onednn") == libraries.onednn);
  CHECK(p.at("libraries").at("openblas") == libraries.openblas);
  for (const char* library : {"boost", "tomlplusplus", "nlohmann_json"})
    CHECK_THAT(p.at("libraries").at(library).get<std::string>(),
               Catch::Matches("[0-9]+\\.[0-9]+\\.[0-9]+"));
  CHECK(p.at("machine").at("cpu") == cpu_facts().model);
  CHECK(p.at("machine").at("instruction_sets") == cpu_facts().instruction_sets);
  CHECK(p.at("invocation").at("argv") == argv);
  CHECK(p.at("invocation").at("overrides") == overrides);
}

const std::string kCli = ABLATE_CLI;

// Sets the recorded commit of every trial of `run` to `commit`.
void record_commit(const std::string& run, const std::string& commit) {
  for (const auto& d : std::filesystem::directory_iterator(run + "/trials")) {
    const std::string path = d.path().string() + "/summary.json";
    json s = json_at(path);
    s["provenance"]["code"]["commit"] = commit;
    std::ofstream(path) << s.dump(2);
  }
}

}  // namespace

TEST_CASE("summary.json and trials.json carry the provenance of the build and the command line",
          "[e2e][provenance]") {
  ScratchDir dir("provenance");
  const std::string file = dir.file("exp.toml", tiny_experiment("made"));
  const std::string out = dir.str() + "/runs";
  const std::vector<std::string> argv = {kCli,      "run",           file, "--out", out,
                                         "--quiet", "train.lr=0.004"};
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  const CommandResult r = run_command(command);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string run = out + "/made";
  const std::string trial = only_trial(run);
  const json summary = json_at(trial + "/summary.json");
  check_provenance(summary.at("provenance"), argv, {"train.lr=0.004"});
  check_provenance(json_at(run + "/trials.json").at("provenance"), argv, {"train.lr=0.004"});
  // summary.md says who made the trials.
  CHECK_THAT(read_text(run + "/summary.md"),
             Catch::Contains("Made by (summary.json's `provenance`): commit " +
                             std::string(git_state().commit).substr(0, 12)));

  // Made by other code, the finished trial is still this experiment's result: reused,
  // its summary kept as it was (only a GEMM backend change reruns a trial).
  record_commit(run, "0123456789abcdef0123456789abcdef01234567");
  const std::string before = read_text(trial + "/summary.json");
  const CommandResult again = run_command(command);
  INFO(again.output);
  REQUIRE(again.status == 0);
  CHECK_THAT(again.output, Catch::Contains("1 trials (1 already done"));
  CHECK(read_text(trial + "/summary.json") == before);
}

TEST_CASE("ablate compare warns of runs made by different code, and only then",
          "[e2e][provenance]") {
  ScratchDir dir("provenance_compare");
  const std::string file = dir.file("exp.toml", tiny_experiment("made"));
  for (const char* out : {"a", "b"}) {
    const CommandResult r =
        run_command(kCli + " run " + file + " --out " + dir.str() + "/" + out + " --quiet");
    INFO(r.output);
    REQUIRE(r.status == 0);
  }
  const std::string a = dir.str() + "/a/made", b = dir.str() + "/b/made";
  const std::string compare =
      kCli + " compare " + a + " " + b + " --out " + dir.str() + "/comparison";
  auto compared = [&] {
    const CommandResult r = run_command(compare);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return std::pair{r.output, read_text(dir.str() + "/comparison/comparisons.md")};
  };
  // One binary made both: nothing to say.
  auto [output, markdown] = compared();
  CHECK_THAT(output, !Catch::Contains("warning"));
  CHECK_THAT(markdown, !Catch::Contains("## Provenance"));

  // Another commit made b's trial: a warning naming the runs and what differs, and a
  // line in comparisons.md.
  record_commit(b, "0123456789abcdef0123456789abcdef01234567");
  std::tie(output, markdown) = compared();
  CHECK_THAT(output, Catch::Contains("ablate compare: warning: made by different code, commit: " +
                                     a + " " + std::string(git_state().commit).substr(0, 12)));
  CHECK_THAT(output, Catch::Contains("; " + b + " 0123456789ab"));
  CHECK_THAT(markdown, Catch::Contains("## Provenance"));
  CHECK_THAT(markdown, Catch::Contains("- made by different code, commit: " + a));

  // A run from before ablate recorded provenance is "not recorded": no difference.
  for (const auto& d : std::filesystem::directory_iterator(b + "/trials")) {
    json s = json_at(d.path().string() + "/summary.json");
    s.erase("provenance");
    std::ofstream(d.path().string() + "/summary.json") << s.dump(2);
  }
  std::tie(output, markdown) = compared();
  CHECK_THAT(output, !Catch::Contains("warning"));
  CHECK_THAT(markdown, !Catch::Contains("## Provenance"));
}

TEST_CASE(
    "provenance differences: code facts warn, build and machine facts note, unrecorded is none",
    "[provenance]") {
  auto counts = [](const std::string& commit, const std::string& cpu) {
    ProvenanceCounts c;
    c["commit"][commit] = 2;
    c["ablate version"]["0.1.0+abc"] = 2;
    c["compiler"]["GNU 12.2.0 Release"] = 2;
    c["flags"]["-O3"] = 2;
    c["libraries"]["eigen 3.4.0"] = 2;
    c["CPU"][cpu] = 2;
    return c;
  };
  CHECK(provenance_differences({{"r1", counts("abc", "Zen 5")}, {"r2", counts("abc", "Zen 5")}})
            .empty());
  CHECK(provenance_differences({{"r1", counts("abc", "Zen 5")}, {"r2", {}}}).empty());
  const auto lines = provenance_differences(
      {{"r1", counts("abc", "Zen 5")}, {"r2", counts("def", "Xeon")}, {"r3", {}}});
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "made by different code, commit: r1 abc; r2 def; r3 not recorded");
  CHECK(lines[1] == "built or run differently, CPU: r1 Zen 5; r2 Xeon; r3 not recorded");
  // A summary from a record made elsewhere, with fields of other types: text, not a throw.
  const auto odd = provenance_facts(json{{"provenance", {{"code", "x"}, {"libraries", 3}}}});
  REQUIRE(odd);
  CHECK(odd->at("commit") == "unknown (whether it had uncommitted changes is unknown)");
  CHECK(odd->at("libraries") == "unknown");
}

TEST_CASE("summary.json keeps its provenance when read back, and reads without one",
          "[provenance]") {
  TrialSummary s;
  s.status = "ok";
  s.provenance = provenance(Invocation{{"ablate", "run", "x.toml"}, {}});
  const TrialSummary back = trial_summary_from_json(to_json(s));
  REQUIRE(back.provenance);
  CHECK(*back.provenance == *s.provenance);
  json older = to_json(s);
  older.erase("provenance");  // a summary written before ablate recorded provenance
  CHECK_FALSE(trial_summary_from_json(older).provenance);
  older["provenance"] = "made here";
  CHECK_THROWS_WITH(trial_summary_from_json(older),
                    Catch::Contains("summary.json: provenance must be an object"));
}

TEST_CASE("the CPU's model and instruction sets are read from /proc/cpuinfo's text",
          "[provenance]") {
  const CpuFacts cpu = cpu_facts_from(
      "processor\t: 0\nmodel name\t: AMD Ryzen 9 9950X 16-Core Processor\n"
      "flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512bw avx512_bf16 avx512fp16\n"
      "processor\t: 1\nmodel name\t: another\n");
  CHECK(cpu.model == "AMD Ryzen 9 9950X 16-Core Processor");
  CHECK(cpu.instruction_sets == std::vector<std::string>{"sse4_2", "avx", "avx2", "fma", "avx512f",
                                                         "avx512bw", "avx512_bf16"});
  CHECK(cpu_facts_from("").model == "unknown");
}
