// The command line a researcher expects (issue 34, items 1 and 2), through `ablate
// check`: an override of a swept key wins and says so, bare words are strings, a comma
// list sweeps a key, unquoted dotted keys in [sweep] are keys; and no silent traps —
// `seed` for `seeds`, a wrong value under a swept key, misspelled values, tables and
// component keys, the same problem once per grid point, internal keys offered as allowed.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <sstream>

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;

namespace {

const std::string kCli = ABLATE_CLI;

// The lines of `output` that contain `what`: a problem printed once is one line.
std::size_t lines_with(const std::string& output, const std::string& what) {
  std::istringstream lines(output);
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line);) n += line.find(what) != std::string::npos;
  return n;
}

// The tiny experiment with `model_lines` added to its [model] table (at line 17) and
// `tail` after it.
std::string experiment(const std::string& model_lines, const std::string& tail) {
  std::string toml = tiny_experiment("cli34");
  toml.replace(toml.find("layers = 1\n"), 11, "layers = 1\n" + model_lines);
  return toml + tail;
}

const std::string kNormSweep =
    "\n[sweep]\n\"model.norm.kind\" = [\"layer\", \"rms\"]\n\"model.norm.placement\" = [\"pre\", "
    "\"post\"]\n";

CommandResult check(const std::string& file, const std::string& arguments = "") {
  CommandResult r = run_command(kCli + " check " + file + " " + arguments);
  UNSCOPED_INFO("ablate check " << arguments << "\n" << r.output);
  return r;
}

}  // namespace

TEST_CASE("an override of a swept key replaces its axis with the one value and says so",
          "[cli][issue34]") {
  ScratchDir dir("cli34_swept");
  const std::string file = dir.file("exp.toml", experiment("", kNormSweep));
  CommandResult r = check(file, "'model.norm.placement=\"post\"'");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output,
             Catch::Contains("note: override model.norm.placement=post replaces the "
                             "sweep over model.norm.placement (pre, post) with one value"));
  CHECK_THAT(r.output, Catch::Contains("ok, 2 trials (model.norm.kind × 1 seeds)"));
  CHECK_THAT(r.output, !Catch::Contains("placement=pre"));
  // The same trials as the file with that axis removed and the value set.
  std::string edited = experiment("norm = { placement = \"post\" }\n", kNormSweep);
  edited.erase(edited.find("\"model.norm.placement\" = "));
  CHECK(ids_of(r.output) == ids_of(check(dir.file("edited.toml", edited)).output));
  // A [tune] key: its search replaced the same way.
  const std::string tuned =
      dir.file("tuned.toml", experiment("", "\n[tune]\n\"train.lr\" = [1e-3, 3e-3]\n"));
  CommandResult lr = check(tuned, "train.lr=2e-3");
  CHECK(lr.status == 0);
  CHECK_THAT(lr.output,
             Catch::Contains("replaces the [tune] search over train.lr (0.001, 0.003)") &&
                 Catch::Contains("ok, 1 trials"));
  // A key of a [sweep.zip] group: refused, saying how to set the group.
  const std::string zipped = dir.file(
      "zip.toml",
      experiment("", "\n[sweep.zip]\n\"model.d_model\" = [8, 16]\n\"model.d_ff\" = [16, 32]\n"));
  CommandResult zip = check(zipped, "model.d_model=16");
  CHECK(zip.status == 2);
  CHECK_THAT(zip.output,
             Catch::Contains("override 'model.d_model=16': sets a key of a [sweep.zip] group (") &&
                 Catch::Contains("model.d_ff") && Catch::Contains("sweep.zip.KEY=[...]"));
}

TEST_CASE("bare words on the command line are strings, and TOML values still work",
          "[cli][issue34]") {
  ScratchDir dir("cli34_bare");
  const std::string file = dir.file("exp.toml", tiny_experiment("cli34"));
  CommandResult bare = check(file, "model.norm.kind=rms");
  REQUIRE(bare.status == 0);
  CHECK(ids_of(bare.output) == ids_of(check(file, "'model.norm.kind=\"rms\"'").output));
  CHECK(check(file,
              "train.steps=2000 train.lr=3e-4 'sweep.seeds=[0,1]' model.bias=false "
              "'model.positions={kind=\"rotary\"}'")
            .status == 0);
  CommandResult ten = check(file, "train.steps=ten");
  CHECK(ten.status == 2);
  CHECK_THAT(
      ten.output,
      Catch::Contains("override 'train.steps=ten': train.steps: must be an integer, got a string"));
  CommandResult empty = check(file, "train.steps=");
  CHECK(empty.status == 2);
  CHECK_THAT(empty.output, Catch::Contains("override 'train.steps=': no value after '='"));
  // A date is a TOML value, not a word.
  CHECK_THAT(check(file, "name=2024-01-01").output,
             Catch::Contains("name: must be a string, got a date/time"));
}

TEST_CASE("a comma list on the command line sweeps the key over its values", "[cli][issue34]") {
  ScratchDir dir("cli34_multirun");
  const std::string file = dir.file("exp.toml", tiny_experiment("cli34"));
  CommandResult r = check(file, "model.norm.kind=layer,rms");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("ok, 2 trials (model.norm.kind × 1 seeds)") &&
                           Catch::Contains("model.norm.kind=layer") &&
                           Catch::Contains("model.norm.kind=rms"));
  CHECK(ids_of(r.output) ==
        ids_of(check(file, "'sweep.\"model.norm.kind\"=[\"layer\", \"rms\"]'").output));
  // It replaces the axis of a swept key.
  const std::string swept = dir.file("swept.toml", experiment("", kNormSweep));
  CHECK_THAT(check(swept, "model.norm.placement=pre,post,pre").output,
             Catch::Contains("lists the same trial twice"));
  CHECK_THAT(check(swept, "model.norm.kind=batch,none").output,
             Catch::Contains("model.norm.kind=batch") && !Catch::Contains("model.norm.kind=rms"));
}

TEST_CASE("an unquoted dotted key in [sweep] is that dotted key", "[cli][issue34]") {
  ScratchDir dir("cli34_dotted");
  const std::string quoted = dir.file("quoted.toml", experiment("", kNormSweep));
  const std::string unquoted = dir.file(
      "unquoted.toml",
      experiment("",
                 "\n[sweep]\nmodel.norm.kind = [\"layer\", \"rms\"]\nmodel.norm.placement = "
                 "[\"pre\", \"post\"]\n\n[tune]\ntrain.lr = [1e-3]\n"));
  CommandResult r = check(unquoted);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output,
             Catch::Contains("(model.norm.kind × model.norm.placement × train.lr (tuned)"));
  CHECK(ids_of(r.output).size() == 4);
  CHECK(ids_of(check(quoted, "train.lr=1e-3").output) == ids_of(r.output));
}

TEST_CASE("seed in [sweep] without seeds is refused: did you mean seeds?", "[cli][issue34]") {
  ScratchDir dir("cli34_seed");
  CommandResult typo = check(dir.file("typo.toml", experiment("", "\n[sweep]\nseed = [0, 1]\n")));
  CHECK(typo.status == 2);
  CHECK_THAT(typo.output, Catch::Contains("sweep.seed: did you mean seeds?"));
  // On purpose (seeds given too): allowed, and the summary line says it is the data seed.
  CommandResult meant =
      check(dir.file("meant.toml", experiment("", "\n[sweep]\nseed = [0, 1]\nseeds = [0, 1]\n")));
  CHECK(meant.status == 0);
  CHECK_THAT(meant.output, Catch::Contains("ok, 4 trials (seed (the data seed) × 2 seeds)") &&
                               Catch::Contains("note: the data seed `seed` is swept"));
}

TEST_CASE("a value the sweep replaces is validated too, at its line", "[cli][issue34]") {
  ScratchDir dir("cli34_base");
  CommandResult r = check(dir.file(
      "exp.toml",
      experiment("norm = { kind = \"scalenorm\", placement = \"middle\" }\n", kNormSweep)));
  CHECK(r.status == 2);
  CHECK_THAT(r.output,
             Catch::Contains("exp.toml:17:10: model.norm.kind: unknown norm 'scalenorm'") &&
                 Catch::Contains("exp.toml:17:30: model.norm.placement: \"middle\" is not "
                                 "allowed"));
  // Options only the file's kind has are no error: the sweep's kinds are checked as usual.
  CHECK(
      check(dir.file("options.toml", experiment("norm = { kind = \"batch\", momentum = 0.2 }\n",
                                                "\n[sweep]\n\"model.norm.kind\" = [\"batch\"]\n")))
          .status == 0);
}

TEST_CASE("misspelled values, tables and component keys get a did-you-mean", "[cli][issue34]") {
  ScratchDir dir("cli34_suggest");
  CommandResult r =
      check(dir.file("exp.toml", experiment("norm = { kind = \"rmsnorm\" }\npositions = \"rope\"\n",
                                            "\n[training]\nsteps = 10\n")));
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown norm 'rmsnorm' (did you mean 'rms'?)") &&
                           Catch::Contains("unknown positions 'rope' (did you mean 'rotary'?)") &&
                           Catch::Contains("training: unknown table (did you mean [train]?)"));
  CommandResult key = check(
      dir.file("key.toml", experiment("norm = { kind = \"layer\", placment = \"pre\" }\n", "")));
  CHECK_THAT(key.output, Catch::Contains("model.norm.placment: unknown option 'placment' (did you "
                                         "mean 'placement'?)"));
}

TEST_CASE(
    "a problem of several grid points is printed once, naming the points and every allowed key",
    "[cli][issue34]") {
  ScratchDir dir("cli34_once");
  const std::string sweep =
      "\n[sweep]\n\"model.norm.kind\" = [\"layer\", \"batch\", \"rms\"]\n\"model.heads\" = [2, "
      "3]\n";
  CommandResult r =
      check(dir.file("exp.toml", experiment("norm = { kind = \"layer\", zzz = 1 }\n", sweep)));
  CHECK(r.status == 2);
  CHECK(lines_with(r.output, "model.norm.zzz") == 1);
  CHECK_THAT(r.output,
             Catch::Contains("model.norm.zzz: unknown option 'zzz'; allowed here: eps final "
                             "kind placement; at some of these points also: affine momentum"));
  CommandResult heads = check(dir.file("heads.toml", experiment("", sweep)));
  CHECK(lines_with(heads.output, "is not divisible by heads = 3") == 1);
  CHECK_THAT(heads.output, Catch::Contains("(at the 3 grid points with model.heads=3)"));
}

TEST_CASE("internal keys are never listed as allowed", "[cli][issue34]") {
  ScratchDir dir("cli34_internal");
  CommandResult r = check(dir.file("exp.toml", "zzzzzz = 1\n" + tiny_experiment("cli34")));
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("zzzzzz: unknown key; allowed here:") &&
                           Catch::Contains(" trial_seed") && !Catch::Contains("plugins_sha256"));
}
