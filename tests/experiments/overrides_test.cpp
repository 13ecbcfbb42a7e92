// Command-line overrides (experiments/config/overrides.h): `ablate run FILE key=value
// ...` runs exactly the trials of the file edited to those values, validates them like
// the file (a problem names the override, exit 2, nothing written) and records them
// in the run's experiment.toml.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <regex>

#include "experiments/config/overrides.h"
#include "experiments/config/suggestions.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

}  // namespace

TEST_CASE("overrides give the trials of the file edited to those values, and are recorded",
          "[overrides][e2e]") {
  ScratchDir dir("overrides");
  const std::string base = tiny_experiment("over");
  const std::string file = dir.file("exp.toml", base);
  const std::string overrides = " model.d_model=16 train.steps=20 'sweep.seeds=[0, 1]'";
  // The same file edited by hand.
  std::string edited = base;
  edited.replace(edited.find("d_model = 8"), 11, "d_model = 16");
  edited.replace(edited.find("steps = 30"), 10, "steps = 20");
  const std::string edited_file = dir.file("edited.toml", edited + "\n[sweep]\nseeds = [0, 1]\n");

  CommandResult checked = run_command(kCli + " check " + file + overrides);
  INFO(checked.output);
  REQUIRE(checked.status == 0);
  const std::vector<std::string> ids = ids_of(checked.output);
  CHECK(ids.size() == 2);
  CHECK(ids == ids_of(run_command(kCli + " check " + edited_file).output));

  const std::string out = dir.str() + "/runs";
  CommandResult run = run_command(kCli + " run " + file + " --out " + out + " --quiet" + overrides);
  INFO(run.output);
  REQUIRE(run.status == 0);
  for (const std::string& id : ids) {
    const std::string config = read_text(out + "/over/trials/" + id + "/config.toml");
    CHECK_THAT(config, Catch::Contains("d_model = 16\n") && Catch::Contains("steps = 20\n"));
  }
  const std::string recorded = read_text(out + "/over/experiment.toml");
  CHECK(recorded.rfind(base, 0) == 0);  // the file's text, then the overrides
  CHECK_THAT(
      recorded,
      Catch::Contains("# ---- overrides given on the command line") &&
          Catch::Contains("#   model.d_model=16\n#   train.steps=20\n#   sweep.seeds=[0, 1]\n"));
  CHECK_THAT(run_command(kCli + " run " + file + " --out " + out + " --quiet" + overrides).output,
             Catch::Contains("2 trials (2 already done"));
}

TEST_CASE("an override below a component written as a name sets that component's option",
          "[overrides][e2e]") {
  ScratchDir dir("overrides_component");
  std::string toml = tiny_experiment("comp");
  toml.replace(toml.find("layers = 1\n"), 11, "layers = 1\nnorm = \"rms\"\n");
  const std::string file = dir.file("exp.toml", toml);
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() +
                                "/runs --quiet model.norm.eps=0.001");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string trial =
      fs::directory_iterator(dir.str() + "/runs/comp/trials")->path().string();
  const std::string config = read_text(trial + "/config.toml");
  CHECK_THAT(config, Catch::Contains("[model.norm]\naffine = true\neps = 0.001\n") ||
                         Catch::Contains("eps = 0.001\n"));
  CHECK_THAT(config, Catch::Contains("kind = \"rms\""));
}

TEST_CASE("a bad override is exit 2 naming the override, and nothing is written",
          "[overrides][e2e]") {
  ScratchDir dir("overrides_bad");
  const std::string file = dir.file("exp.toml", tiny_experiment("bad"));
  struct Case {
    std::string override, message;
  };
  for (const Case& c :
       {Case{"model.d_model=0", "override 'model.d_model=0': model.d_model: = 0 is out of range"},
        Case{"train.steps", "override 'train.steps': expected key=value"},
        Case{"model.d_model=abc",
             "override 'model.d_model=abc': model.d_model: must be an integer, got a string"},
        Case{"'model.d_model=[1'", "override 'model.d_model=[1': not valid TOML"},
        Case{"model.d_modl=16", "override 'model.d_modl=16': model.d_modl: unknown key"},
        Case{"'sweep.\"model.norm.kind\"=[\"layer\", \"rmss\"]'",
             "override 'sweep.\"model.norm.kind\"=[\"layer\", \"rmss\"]': model.norm.kind: unknown "
             "norm "
             "'rmss' (did you mean 'rms'?)"},
        Case{"model.heads.x=1", "cannot set a key inside 'model.heads', which is not a table"}}) {
    INFO(c.override);
    for (const std::string& command :
         {" check " + file, " run " + file + " --out " + dir.str() + "/runs"}) {
      CommandResult r = run_command(kCli + command + " " + c.override);
      CHECK(r.status == 2);
      CHECK_THAT(r.output, Catch::Contains(c.message));
      CHECK_FALSE(fs::exists(dir.str() + "/runs"));
    }
  }
}

TEST_CASE("a command-line value is TOML when it parses, else a word, and a comma list sweeps",
          "[overrides]") {
  using namespace ablate::experiments;
  CHECK(comma_items("layer, rms") == std::vector<std::string>{"layer", "rms"});
  CHECK(comma_items("[0,1]") == std::vector<std::string>{"[0,1]"});
  CHECK(comma_items("\"a,b\",c") == std::vector<std::string>{"\"a,b\"", "c"});
  CHECK(comma_items("{ a = 1, b = 2 }").size() == 1);
  const std::vector<Override> o =
      parse_overrides({"model.norm.kind=rms", "train.lr=3e-4", "name=my-run",
                       "model.norm.kind=layer,\"rms\"", "'sweep.seeds'=[0, 1]"});
  CHECK(o[0].value["model"]["norm"]["kind"].value<std::string>() == "rms");
  CHECK(o[1].value["train"]["lr"].value<double>() == 3e-4);
  CHECK(o[2].value["name"].value<std::string>() == "my-run");
  CHECK(o[3].multirun);
  const toml::array* kinds = o[3].value["model"]["norm"]["kind"].as_array();
  REQUIRE(kinds);
  CHECK(kinds->size() == 2);
  CHECK((*kinds)[1].value<std::string>() == "rms");
  CHECK(o[4].keys == std::vector<std::string>{"sweep.seeds"});
  for (const char* bad : {"train.steps=", "model.kind=a,,b", "x=[1", "noequals"})
    CHECK_THROWS_AS(parse_overrides({bad}), ConfigError);
}

TEST_CASE("closest_name finds typos, affixed names and names a description gives", "[overrides]") {
  using namespace ablate::experiments;
  const std::vector<std::string> norms{"layer", "batch", "rms", "none"};
  CHECK(closest_name("layr", norms) == "layer");
  CHECK(closest_name("rmsnorm", norms) == "rms");
  CHECK(closest_name("LayerNorm", norms) == "layer");
  CHECK(closest_name("RMS", norms) == "rms");
  CHECK(closest_name("rope", {"sinusoidal", "rotary", "alibi"},
                     {"fixed table", "rotates queries and keys (RoPE, Su et al.)", "ALiBi"}) ==
        "rotary");
  CHECK(closest_name("training", {"task", "model", "train"}) == "train");
  CHECK_FALSE(closest_name("zzz", norms).has_value());
  CHECK(closest_name("prenorm", {"post", "pre"}) == "pre");
  CHECK_FALSE(closest_name("test_size", {"train", "test", "validation_tokens"}).has_value());
  CHECK(is_internal_key("plugins_sha256"));
  CHECK(listed_keys({"b", "a", "path_sha256", "a"}) == std::vector<std::string>{"a", "b"});
}
