// Plugins (experiments/plugins/plugin.h): a component built outside ablate's tree with
// ablate_add_plugin sweeps like a built-in one — from the experiment file's `plugins`
// or from --plugin, under --jobs and MPI ranks — its content is part of every trial's
// identity (a rebuilt plugin reruns them), and a plugin that cannot be used is exit 2
// with its path and the reason, before anything runs.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <fstream>

#include "experiments/io/file_digest.h"
#include "tests/experiments/experiment_files.h"
#include "tests/experiments/mpiexec.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;
const std::string kScaleNorm = ABLATE_PLUGIN_SCALE_NORM;

// The tiny experiment swept over LayerNorm and the plugin's ScaleNorm.
std::string norm_sweep(const std::string& plugins_line) {
  return plugins_line + tiny_experiment("plugged") +
         "\n[sweep]\n\"model.norm.kind\" = [\"layer\", \"scale\"]\n";
}

// A copy of `plugin` under dir (as a researcher's build directory would hold it).
std::string copy_plugin(const ScratchDir& dir, const std::string& plugin, const std::string& name) {
  fs::create_directories(dir.str() + "/build");
  const std::string to = dir.str() + "/build/" + name;
  fs::copy_file(plugin, to, fs::copy_options::overwrite_existing);
  return to;
}

std::string version() {
  std::string v = run_command(kCli + " --version").output;  // "ablate <version>\n"
  return v.substr(7, v.size() - 8);
}

}  // namespace

TEST_CASE(
    "a plugin's component sweeps like a built-in one and its content is in every trial's identity",
    "[plugins][e2e]") {
  ScratchDir dir("plugin_sweep");
  const std::string plugin = copy_plugin(dir, kScaleNorm, "libscale_norm.so");
  const std::string file =
      dir.file("exp.toml", norm_sweep("plugins = [\"build/libscale_norm.so\"]\n"));
  const std::string out = dir.str() + "/runs", run_dir = out + "/plugged";
  CommandResult first = run_command(kCli + " run " + file + " --out " + out + " --jobs 2 --quiet");
  INFO(first.output);
  REQUIRE(first.status == 0);
  CHECK_THAT(first.output, Catch::Contains("2 trials (0 already done, 2 ok"));
  for (const auto& d : fs::directory_iterator(run_dir + "/trials")) {
    const std::string config = read_text(d.path().string() + "/config.toml");
    CHECK_THAT(config, Catch::Contains("plugins = [\"build/libscale_norm.so\"]"));
    CHECK_THAT(config, Catch::Contains("plugins_sha256 = [\"" +
                                       ablate::experiments::sha256_of_file(plugin) + "\"]"));
    const auto summary = nlohmann::json::parse(read_text(d.path().string() + "/summary.json"));
    CHECK(summary.at("plugins").at(0).at("built_for") == version());
    CHECK(summary.at("plugins").at(0).at("sha256") == ablate::experiments::sha256_of_file(plugin));
  }
  CHECK_THAT(run_command(kCli + " run " + file + " --out " + out + " --quiet").output,
             Catch::Contains("2 trials (2 already done"));
  // A trial's config.toml, rerun from another directory, finds the plugin (relative to
  // the experiment file, recorded in trials.json) and is the same trial.
  const std::string trial = fs::directory_iterator(run_dir + "/trials")->path().string();
  CommandResult again = run_command("cd / && " + kCli + " run " + trial + "/config.toml --quiet");
  INFO(again.output);
  CHECK(again.status == 0);
  CHECK_THAT(again.output, Catch::Contains("1 trials (1 already done"));

  // The plugin rebuilt (other bytes; trailing ones still load): both trials run again,
  // and its recorded digest no longer matches the trial's config.toml.
  std::ofstream(plugin, std::ios::app) << "rebuilt";
  CommandResult rebuilt = run_command(kCli + " run " + file + " --out " + out + " --quiet");
  INFO(rebuilt.output);
  REQUIRE(rebuilt.status == 0);
  CHECK_THAT(rebuilt.output, Catch::Contains("2 trials (0 already done, 2 ok"));
  CommandResult stale = run_command(kCli + " check " + trial + "/config.toml");
  CHECK(stale.status == 2);
  CHECK_THAT(stale.output, Catch::Contains("plugins_sha256: ") &&
                               Catch::Contains("has changed since this config was resolved"));
}

TEST_CASE("a plugin given with --plugin loads for a file that does not name one",
          "[plugins][e2e]") {
  ScratchDir dir("plugin_option");
  const std::string file = dir.file("exp.toml", norm_sweep(""));
  CommandResult without = run_command(kCli + " check " + file);
  CHECK(without.status == 2);
  CHECK_THAT(without.output, Catch::Contains("unknown norm 'scale'"));
  CommandResult with = run_command(kCli + " run " + file + " --plugin " + kScaleNorm + " --out " +
                                   dir.str() + "/runs --quiet");
  INFO(with.output);
  REQUIRE(with.status == 0);
  for (const auto& d : fs::directory_iterator(dir.str() + "/runs/plugged/trials"))
    CHECK_THAT(read_text(d.path().string() + "/config.toml"),
               Catch::Contains("plugins = [\"" +
                               fs::absolute(kScaleNorm).lexically_normal().string() + "\"]"));
  CommandResult listed = run_command(kCli + " list --plugin " + kScaleNorm);
  CHECK(listed.status == 0);
  CHECK_THAT(listed.output, Catch::Contains("adds:\n  norm: scale\n"));
}

TEST_CASE("a plugin that cannot be used is exit 2 with its path and the reason, nothing run",
          "[plugins][e2e]") {
  ScratchDir dir("plugin_bad");
  // The scale plugin with another version in its marker, as one built against another
  // ablate would carry.
  const std::string other_version = copy_plugin(dir, kScaleNorm, "libother_version.so");
  {
    std::string bytes = read_text(other_version);
    const std::string marker = "ablate-plugin-built-for:";
    std::size_t at = bytes.find(marker) + marker.size();
    for (std::size_t k = at; bytes[k] != '\0'; ++k) bytes[k] = 'x';
    std::ofstream(other_version, std::ios::binary | std::ios::trunc) << bytes;
  }
  const std::string not_a_plugin = dir.file("build/notes.so", "not a shared object\n");
  struct Case {
    std::string plugin, reason;
  };
  for (const Case& c :
       {Case{dir.str() + "/build/missing.so", "no such plugin file"},
        Case{not_a_plugin, "not an ablate plugin"}, Case{other_version, "built against ablate xxx"},
        Case{ABLATE_PLUGIN_CLASH, "registers names that already exist (norm: layer)"},
        Case{ABLATE_PLUGIN_UNRESOLVED, "cannot be loaded: "}}) {
    INFO(c.plugin);
    const std::string file = dir.file("exp.toml", norm_sweep("plugins = [\"" + c.plugin + "\"]\n"));
    CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + "/runs --quiet");
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(file + ":1:1: plugins: " +
                                         fs::absolute(c.plugin).lexically_normal().string()));
    CHECK_THAT(r.output, Catch::Contains(c.reason));
    CHECK_FALSE(fs::exists(dir.str() + "/runs"));
    CommandResult option = run_command(kCli + " check " + dir.file("plain.toml", norm_sweep("")) +
                                       " --plugin " + c.plugin);
    CHECK(option.status == 2);
    CHECK_THAT(option.output, Catch::Contains("--plugin: ") && Catch::Contains(c.reason));
    CHECK(run_command(kCli + " list --plugin " + c.plugin).status == 2);
  }
  CommandResult swept =
      run_command(kCli + " check " +
                  dir.file("swept.toml", tiny_experiment("swept") + "\n[sweep]\nplugins = [[\"" +
                                             kScaleNorm + "\"], []]\n"));
  CHECK(swept.status == 2);
  CHECK_THAT(swept.output, Catch::Contains("sweep.plugins: plugins cannot be swept"));
}

TEST_CASE("under mpirun every rank loads the plugins and the results equal a local run",
          "[plugins][mpi][e2e]") {
  ScratchDir dir("plugin_mpi");
  copy_plugin(dir, kScaleNorm, "libscale_norm.so");
  const std::string file =
      dir.file("exp.toml", norm_sweep("plugins = [\"build/libscale_norm.so\"]\n"));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/local --jobs 1 --quiet")
              .status == 0);
  CommandResult r = run_command(mpiexec() + " --allow-run-as-root --oversubscribe -np 3 " + kCli +
                                " run " + file + " --out " + dir.str() + "/mpi --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(summaries_differing(dir.str() + "/local/plugged", dir.str() + "/mpi/plugged").empty());
}

TEST_CASE("each shard of a job array loads the plugins and the merged run equals a local one",
          "[plugins][e2e]") {
  ScratchDir dir("plugin_shards");
  const std::string file = dir.file("exp.toml", norm_sweep(""));
  const std::string plugin = " --plugin " + kScaleNorm;
  REQUIRE(run_command(kCli + " run " + file + plugin + " --out " + dir.str() + "/local --quiet")
              .status == 0);
  for (const char* shard : {"1/2", "2/2"})
    REQUIRE(run_command(kCli + " run " + file + plugin + " --shard " + shard + " --out " +
                        dir.str() + "/shards --quiet")
                .status == 0);
  CHECK(summaries_differing(dir.str() + "/local/plugged", dir.str() + "/shards/plugged").empty());
  CHECK(finished_trials(dir.str() + "/shards/plugged") == 2);
}
