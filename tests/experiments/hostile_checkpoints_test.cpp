// Hostile checkpoints and plugins, through the CLI: a checkpoint never makes
// ablate load code (a plugin it names is loaded only from --plugin, with its recorded
// SHA-256); a header nested 100,000 deep is an error, not a stack overflow, for
// `predict` and for a trial's resume state; a truncated plugin is refused before
// dlopen (which died with SIGBUS on it); a tensor named twice, bytes after a NUL in
// the header and NaN weights are exit 2 naming the file, where they were silently
// accepted (the NaN model printed empty predictions and exit 0).
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "experiments/io/file_digest.h"
#include "nn/safetensors.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate;
using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;
const std::string kScaleNorm = ABLATE_PLUGIN_SCALE_NORM;

std::string copy_plugin(const ScratchDir& dir, const std::string& plugin, const std::string& name) {
  fs::create_directories(dir.str() + "/build");
  const std::string to = dir.str() + "/build/" + name;
  fs::copy_file(plugin, to, fs::copy_options::overwrite_existing);
  return to;
}

// Runs the experiment file `toml` (one trial) into dir/runs and returns its trial directory.
std::string train_trial(const ScratchDir& dir, const std::string& toml) {
  const std::string file = dir.file("exp.toml", toml);
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + "/runs -q");
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const auto& run : fs::directory_iterator(dir.str() + "/runs"))
    for (const auto& trial : fs::directory_iterator(run.path() / "trials"))
      return trial.path().string();
  FAIL("no trial directory");
  return "";
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string le64(std::uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = char((n >> (8 * i)) & 0xff);
  return s;
}

// A safetensors file split into its header text and its data section.
struct RawFile {
  std::string header, data;
  explicit RawFile(const std::string& path) {
    const std::string bytes = read_text(path);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | std::uint8_t(bytes[i]);
    header = bytes.substr(8, n);
    data = bytes.substr(8 + n);
  }
  void write(const std::string& path) const {
    write_bytes(path, le64(header.size()) + header + data);
  }
};

// The tiny reverse trial with a checkpoint, trained once per test process.
const std::string& reverse_checkpoint() {
  static ScratchDir dir("hostile_reverse");
  static const std::string trial =
      train_trial(dir, tiny_experiment("hostile_reverse", "checkpoint = true\n"));
  static const std::string checkpoint = trial + "/checkpoint.safetensors";
  return checkpoint;
}

CommandResult predict(const std::string& checkpoint, const std::string& options = "") {
  return run_command("echo '1 2 3' | " + kCli + " predict " + checkpoint + " - " + options);
}

// A header whose shape nests 100,000 arrays deep: valid JSON.
std::string deeply_nested_file() {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string header =
      R"({"x": {"dtype": "F32", "shape": )" + deep + R"(, "data_offsets": [0, 0]}})";
  return le64(header.size()) + header;
}

}  // namespace

TEST_CASE(
    "a checkpoint that names a plugin loads nothing: predict needs it with --plugin, by SHA-256",
    "[hostile][plugins][predict][e2e]") {
  ScratchDir dir("hostile_plugin_checkpoint");
  const std::string plugin = copy_plugin(dir, kScaleNorm, "libscale_norm.so");
  const std::string trial = train_trial(
      dir, "plugins = [\"build/libscale_norm.so\"]\n" +
               tiny_experiment("plugged", "checkpoint = true\n\n[model.norm]\nkind = \"scale\"\n"));
  const std::string checkpoint = trial + "/checkpoint.safetensors";
  const std::string digest = experiments::sha256_of_file(plugin);
  // The dynamic loader's own trace (LD_DEBUG=files) shows whether the plugin was opened.
  const std::string traced = "LD_DEBUG=files ";
  const std::string opened = "file=" + plugin;

  // Given, it loads (and the trace would show it), and the model decodes.
  CommandResult with = run_command("echo '1 2 3' | " + traced + kCli + " predict " + checkpoint +
                                   " - --plugin " + plugin);
  INFO(with.output);
  CHECK(with.status == 0);
  CHECK_THAT(with.output, Catch::Contains(opened) && Catch::Contains("id\tsource\tprediction"));

  // Not given: exit 2, which plugin (path as recorded, SHA-256, what it provides), and
  // nothing opened — the old predict loaded it from the path in the checkpoint.
  CommandResult without =
      run_command("echo '1 2 3' | " + traced + kCli + " predict " + checkpoint + " -");
  INFO(without.output);
  CHECK(without.status == 2);
  CHECK_THAT(without.output,
             Catch::Contains(checkpoint + ": the model was trained with a plugin") &&
                 Catch::Contains("build/libscale_norm.so (SHA-256 " + digest + ")") &&
                 Catch::Contains("unknown norm 'scale'") && Catch::Contains("--plugin PATH"));
  CHECK_THAT(without.output, !Catch::Contains(opened));

  // Another library given: its digest is not the recorded one, so neither is loaded.
  const std::string other = ABLATE_PLUGIN_CLASH;
  CommandResult wrong = run_command("echo '1 2 3' | " + traced + kCli + " predict " + checkpoint +
                                    " - --plugin " + other);
  INFO(wrong.output);
  CHECK(wrong.status == 2);
  CHECK_THAT(wrong.output, Catch::Contains("SHA-256 " + digest) &&
                               Catch::Contains("--plugin " + other + " is not it (SHA-256 " +
                                               experiments::sha256_of_file(other) + ")"));
  CHECK_THAT(wrong.output, !Catch::Contains(opened) && !Catch::Contains("file=" + other));
}

TEST_CASE(
    "a header nested 100,000 deep is exit 2 for predict and an ignored resume state, never a crash",
    "[hostile][predict][e2e]") {
  ScratchDir dir("hostile_deep");
  const std::string file = dir.str() + "/deep.safetensors";
  write_bytes(file, deeply_nested_file());
  CommandResult r = predict(file);
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains(file + ": the header nests deeper than 8 levels"));

  // As a trial's resume state: `ablate run` reads it when the trial starts again.
  const std::string trial = train_trial(dir, tiny_experiment("deep_resume"));
  fs::remove(trial + "/summary.json");  // unfinished, so its state is read
  write_bytes(trial + "/resume.safetensors", deeply_nested_file());
  CommandResult resumed =
      run_command(kCli + " run " + dir.str() + "/exp.toml --out " + dir.str() + "/runs -q");
  INFO(resumed.output);
  CHECK(resumed.status == 0);
  CHECK_THAT(resumed.output, Catch::Contains("resume.safetensors: unreadable (") &&
                                 Catch::Contains("the header nests deeper than 8 levels") &&
                                 Catch::Contains("the trial starts again from step 0"));
  CHECK(fs::exists(trial + "/summary.json"));
}

TEST_CASE("a truncated plugin carrying the marker is refused before dlopen by run, check and list",
          "[hostile][plugins][e2e]") {
  ScratchDir dir("hostile_truncated_plugin");
  const std::string plugin = copy_plugin(dir, kScaleNorm, "libtruncated.so");
  std::string bytes = read_text(plugin);
  const std::size_t marker = bytes.find("ablate-plugin-built-for:");
  REQUIRE(marker != std::string::npos);
  const std::size_t cut = marker + 64;  // the marker and its version stay; later segments go
  REQUIRE(cut < bytes.size());
  write_bytes(plugin, bytes.substr(0, cut));
  const std::string reason = "is " + std::to_string(cut) + " bytes long, but its loadable segment ";
  const std::string file = dir.file(
      "exp.toml", "plugins = [\"build/libtruncated.so\"]\n" + tiny_experiment("truncated"));
  CommandResult run = run_command(kCli + " run " + file + " --out " + dir.str() + "/runs -q");
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, Catch::Contains("plugins: " + plugin + ": " + reason) &&
                             Catch::Contains("(truncated?)"));
  CHECK_FALSE(fs::exists(dir.str() + "/runs"));
  CommandResult check = run_command(
      kCli + " check " + dir.file("plain.toml", tiny_experiment("plain")) + " --plugin " + plugin);
  INFO(check.output);
  CHECK(check.status == 2);
  CHECK_THAT(check.output, Catch::Contains("--plugin: ") && Catch::Contains(reason));
  CommandResult list = run_command(kCli + " list --plugin " + plugin);
  INFO(list.output);
  CHECK(list.status == 2);
  CHECK_THAT(list.output, Catch::Contains(reason));
}

TEST_CASE(
    "a tensor named twice, bytes after a NUL in the header, NaN weights: predict exits 2 naming "
    "the file",
    "[hostile][predict][e2e]") {
  const std::string& original = reverse_checkpoint();
  ScratchDir dir("hostile_checkpoint_contents");
  REQUIRE(predict(original).status == 0);  // the untouched checkpoint decodes

  SECTION("a tensor named twice (a reader kept one of them, silently)") {
    RawFile f(original);
    const nlohmann::ordered_json header = nlohmann::ordered_json::parse(f.header);
    std::string first_tensor;
    for (const auto& [name, value] : header.items())
      if (name != "__metadata__") {
        first_tensor = name;
        break;
      }
    const std::string entry = "\"" + first_tensor + "\": " + header.at(first_tensor).dump();
    f.header = header.dump();
    f.header.insert(1, entry + ", ");  // the same entry again, first
    const std::string file = dir.str() + "/twice.safetensors";
    f.write(file);
    CommandResult r = predict(file);
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(file + ": the header names '" + first_tensor + "' twice"));
  }
  SECTION("bytes after a NUL in the header (ignored before)") {
    RawFile f(original);
    f.header += std::string(1, '\0') + "{\"ignored\": 1}";
    const std::string file = dir.str() + "/nul.safetensors";
    f.write(file);
    CommandResult r = predict(file);
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(file + ": the header holds a NUL byte at offset"));
  }
  SECTION("a NaN or an infinity among the weights (empty predictions and exit 0 before)") {
    for (const float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
      nn::SafetensorsFile f = nn::read_safetensors(original);
      std::string name;
      for (auto& [n, t] : f.tensors)
        if (t.dtype() == DType::f32 && t.numel() > 3) {
          static_cast<float*>(t.raw())[3] = bad;
          name = n;
          break;
        }
      REQUIRE_FALSE(name.empty());
      const std::string file = dir.str() + "/not_finite.safetensors";
      nn::write_safetensors(file, f.tensors, f.metadata);
      CommandResult r = predict(file);
      INFO(r.output);
      CHECK(r.status == 2);
      CHECK_THAT(r.output,
                 Catch::Contains(file + ": the model is not finite: tensor '" + name + "' holds " +
                                 (std::isnan(bad) ? "nan" : "inf") + " at element 3"));
    }
  }
}
