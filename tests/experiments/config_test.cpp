// Validation of experiment files: every class of error is reported with file, line,
// column and key path, before anything runs.
#include <catch2/catch.hpp>

#include "experiments/config/experiment.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

// The message of load_experiment's ConfigError ("" if it loads).
std::string problems_of(const ScratchDir& dir, const std::string& toml) {
  std::string path = dir.file("exp.toml", toml);
  try {
    load_experiment(path);
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("a valid file loads and resolves every default", "[config]") {
  ScratchDir dir("config_valid");
  Experiment e = load_experiment(dir.file("exp.toml", tiny_experiment()));
  REQUIRE(e.trials.size() == 1);
  const TrialConfig& c = e.trials[0].config;
  CHECK(c.model.kind == "seq2seq");
  CHECK(c.model.transformer.attention.qk.kind == "separate");
  CHECK(c.model.transformer.max_len >= 6);  // the task's longest target (5 + EOS)
  CHECK(c.train.optimizer.kind == "adam");
  CHECK_THAT(e.trials[0].config_toml,
             !Catch::Contains("normalize_keys"));  // separate QK has no options
  CHECK_THAT(e.trials[0].config_toml, Catch::Contains("[model.norm]"));
}

TEST_CASE("malformed TOML names the file line and column", "[config]") {
  ScratchDir dir("config_malformed");
  std::string msg = problems_of(dir, "name = \"x\"\n[task\nkind = 1\n");
  CHECK_THAT(msg, Catch::Contains("exp.toml:2:") && Catch::Contains("not valid TOML"));
}

TEST_CASE("unknown and misspelled keys are reported with a did-you-mean", "[config]") {
  ScratchDir dir("config_unknown");
  std::string msg =
      problems_of(dir, tiny_experiment() + "lr_decay = 0.5\n[model.attention]\nqkk = \"shared\"\n");
  CHECK_THAT(msg, Catch::Contains("train.lr_decay: unknown key"));
  CHECK_THAT(msg, Catch::Contains(":25:1: model.attention.qkk: unknown key (did you mean 'qk'?)"));
}

TEST_CASE("wrong types and out-of-range values name the key and what is allowed", "[config]") {
  ScratchDir dir("config_types");
  std::string toml = tiny_experiment();
  toml.replace(toml.find("d_model = 8"), 11, "d_model = \"eight\"");
  toml.replace(toml.find("steps = 30"), 10, "steps = 1000000000000");
  std::string msg = problems_of(dir, toml);
  CHECK_THAT(msg, Catch::Contains("model.d_model: must be an integer, got a string"));
  CHECK_THAT(msg, Catch::Contains(
                      "train.steps: = 1000000000000 is out of range (allowed 1 to 1000000000)"));
  toml = tiny_experiment();
  toml.replace(toml.find("lr = 3e-3"), 9, "lr = -1.0");
  CHECK_THAT(problems_of(dir, toml), Catch::Contains("train.lr: = -1 is out of range"));
  // A float where an integer belongs is a type error whatever its size: TOML++ 3.3.0's
  // own float-to-int64 conversion is undefined for 1e124 (found by the fuzzer).
  for (const char* batch : {"4.0", "1e124", "-1e300", "inf", "nan"}) {
    toml = tiny_experiment();
    toml.replace(toml.find("batch = 8"), 9, std::string("batch = ") + batch);
    CHECK_THAT(problems_of(dir, toml),
               Catch::Contains("train.batch: must be an integer, got a float"));
  }
  toml = tiny_experiment("tiny", "\n[sweep]\nseeds = [1, 2.0e40]\n");
  CHECK_THAT(problems_of(dir, toml), Catch::Contains("sweep.seeds: seeds must be integers >= 0"));
}

TEST_CASE("unknown component names list the allowed ones", "[config]") {
  ScratchDir dir("config_names");
  std::string msg = problems_of(dir, tiny_experiment() + "[model.norm]\nkind = \"layr\"\n");
  CHECK_THAT(msg, Catch::Contains("model.norm.kind: unknown norm 'layr' (did you mean 'layer'?); "
                                  "allowed: layer batch rms none"));
  msg = problems_of(dir, tiny_experiment() + "[model.positions]\nkind = \"rotary\"\nbse = 10.0\n");
  CHECK_THAT(msg,
             Catch::Contains("model.positions.bse: unknown option 'bse' (did you mean 'base'?)"));
}

TEST_CASE("incompatible combinations are reported at the key that causes them", "[config]") {
  ScratchDir dir("config_combinations");
  std::string toml = tiny_experiment();
  toml.replace(toml.find("heads = 2"), 9, "heads = 3");
  CHECK_THAT(problems_of(dir, toml),
             Catch::Contains("model.heads: d_model = 8 is not divisible by heads = 3"));
  std::string msg =
      problems_of(dir, tiny_experiment() + "[model.positions]\nkind = \"learned\"\nmax_len = 4\n");
  CHECK_THAT(msg,
             Catch::Contains("model.positions.max_len: learned positions have max_len = 4 rows"));
  toml = tiny_experiment();
  toml.replace(toml.find("max_length = 5"), 14, "max_length = 1");
  CHECK_THAT(problems_of(dir, toml), Catch::Contains("task.min_length"));
}

// The modules' own constraints are found by building the model, once per distinct model
// and task in a process (config/model_construction_check.h): a trial that shares its
// model with an earlier one must still get that model's verdict, and only its own.
TEST_CASE("a module constructor's constraint is reported at the points it concerns, on every load",
          "[config]") {
  ScratchDir dir("config_constructor");
  const std::string rotary = tiny_experiment() + "[model.positions]\nkind = \"rotary\"\n";
  const std::string odd = "rotary positions need an even head dimension, got d_k = 1";
  for (const char* heads : {"[2, 8]", "[8, 2]"}) {
    const std::string swept =
        rotary + "\n[sweep]\n\"model.heads\" = " + heads + "\nseeds = [0, 1]\n";
    const std::string first = problems_of(dir, swept);
    CHECK_THAT(first, Catch::Contains(odd) && Catch::Contains("(trial model.heads=8)"));
    CHECK_THAT(first, !Catch::Contains("model.heads=2)"));
    CHECK(problems_of(dir, swept) == first);  // the remembered verdict is the same message
  }
  std::string even = rotary;
  CHECK(problems_of(dir, even) == "");  // heads = 2: d_k = 4
  even.replace(even.find("heads = 2"), 9, "heads = 8");
  CHECK_THAT(problems_of(dir, even), Catch::Contains("model: " + odd));
}

TEST_CASE("sweep problems point at the sweep entry", "[config]") {
  ScratchDir dir("config_sweep");
  std::string base = tiny_experiment() + "\n[sweep]\n";
  CHECK_THAT(problems_of(dir, base + "\"model.heads\" = []\n"),
             Catch::Contains("sweep.model.heads: is an empty list: nothing to sweep"));
  std::string msg =
      problems_of(dir, base + "\"model.attention.qk\" = [\"separate\", \"sharde\"]\n");
  CHECK_THAT(msg, Catch::Contains("exp.toml:25:37:") &&
                      Catch::Contains("unknown attention.qk 'sharde' (did you mean 'shared'?)") &&
                      Catch::Contains("(trial model.attention.qk=sharde)"));
  CHECK_THAT(
      problems_of(dir, base + "[sweep.zip]\n\"model.d_model\" = [8, 16]\n\"model.d_ff\" = [16]\n"),
      Catch::Contains("zipped lists must have equal lengths"));
  CHECK_THAT(problems_of(dir, base + "seeds = [-1]\n"),
             Catch::Contains("seeds must be integers >= 0"));
}

TEST_CASE("a missing file and a missing task table are clear errors", "[config]") {
  ScratchDir dir("config_missing");
  CHECK_THROWS_WITH(load_experiment(dir.str() + "/nope.toml"), Catch::Contains("no such file"));
  CHECK_THAT(problems_of(dir, "name = \"x\"\n"), Catch::Contains("missing required table [task]"));
}

TEST_CASE("train.threads is 1 by default and left out of the resolved config then", "[config]") {
  // The trial id hashes the resolved config: adding the key for everyone would have
  // renamed every existing trial. Threads change the GEMMs' rounding, so a
  // multi-threaded trial must have an id of its own.
  ScratchDir dir("config_threads");
  Experiment one = load_experiment(dir.file("one.toml", tiny_experiment()));
  CHECK(one.trials[0].config.train.threads == 1);
  CHECK_THAT(one.trials[0].config_toml, !Catch::Contains("threads"));
  Experiment two = load_experiment(dir.file("two.toml", tiny_experiment("tiny", "threads = 2\n")));
  CHECK(two.trials[0].config.train.threads == 2);
  CHECK_THAT(two.trials[0].config_toml, Catch::Contains("threads = 2"));
  CHECK(two.trials[0].id != one.trials[0].id);
  CHECK_THAT(problems_of(dir, tiny_experiment("tiny", "threads = 0\n")),
             Catch::Contains("train.threads"));
}

TEST_CASE("a trial's resolved config.toml runs exactly that trial again", "[config]") {
  // config.toml records the trial's seed as trial_seed; loading it must give the same
  // resolved config and so the same id (found by the experiment-file fuzzer: it did
  // not load at all).
  ScratchDir dir("config_trial_seed");
  Experiment sweep = load_experiment(dir.file("sweep.toml", sweep_experiment("sweep")));
  for (const Trial& t : sweep.trials) {
    Experiment again = load_experiment(dir.file("config.toml", t.config_toml));
    REQUIRE(again.trials.size() == 1);
    CHECK(again.trials[0].id == t.id);
    CHECK(again.trials[0].config.trial_seed == t.config.trial_seed);
    CHECK(again.seeds == std::vector<std::uint64_t>{t.config.trial_seed});
  }
  CHECK_THAT(
      problems_of(dir, "trial_seed = 4\n" + sweep_experiment("both")),
      Catch::Contains("trial_seed: a single trial's seed cannot be combined with sweep.seeds"));
}

TEST_CASE("non-ASCII text loads inside strings and comments and is refused elsewhere", "[config]") {
  // Debian's TOML++ 3.3.0 reaches __builtin_unreachable() on many non-ASCII code points
  // (the fuzzer's findings); ascii_toml.h keeps every non-ASCII byte from it, and
  // tests/experiments/ascii_toml_test.cpp covers every lexical context.
  ScratchDir dir("config_non_ascii");
  const std::string fine =
      "# Réseau × 2 — comment\n" + tiny_experiment("tiny") + "label_smoothing = 0.0 # ×\n";
  std::string with_strings = fine;
  with_strings.replace(with_strings.find("seed = 3"), 8,
                       "description = \"Réseau × 2 — «ok» 深入分析\"\nseed = 3");
  CHECK(problems_of(dir, with_strings).empty());
  CHECK(problems_of(dir, "description = '''\n§ literal × \\ \"'''\n" + fine).empty());
  CHECK(problems_of(dir, "description = \"\"\"\nline \\\n  ok ×\"\"\"\n" + fine).empty());
  CHECK(problems_of(dir, "description = \"\"\"\\\n\xc2\xa7\"\"\"\n" + fine)
            .empty());                                     // a line-ending backslash, then §
  CHECK(problems_of(dir, "\xEF\xBB\xBF" + fine).empty());  // a byte order mark (Windows editors)

  CHECK_THAT(problems_of(dir, "name = \"x\"\nkéy = 1\n"),
             Catch::Contains(
                 "exp.toml:2:2: non-ASCII character 'é' (U+00E9) outside a string or comment"));
  CHECK_THAT(problems_of(dir, "a = \"s\" ×\n"), Catch::Contains(":1:9: non-ASCII character '×'"));
  CHECK_THAT(problems_of(dir, "d = \"\"\"\\\xc2\xa7\"\"\"\n"),  // found by the fuzzer in CI
             Catch::Contains(":1:8: '\\' followed by '§' (U+00A7) is not an escape"));
  CHECK_THAT(problems_of(dir, "a = 1\n\xff = 2\n"), Catch::Contains(":2:1: invalid UTF-8 (0xFF"));
  // Positions after rewritten characters are the file's own: the unknown key `hedas`
  // (column 28) follows two Chinese characters, 6 columns each once escaped.
  std::string misspelled = tiny_experiment("tiny");
  misspelled.replace(misspelled.find("heads = 2"), 9,
                     "heads = 2\nattention = { kind = \"中文\", hedas = 1 }");
  CHECK_THAT(problems_of(dir, misspelled),
             Catch::Contains("exp.toml:15:28: model.attention.hedas"));
}

TEST_CASE("absurd sweeps and models are refused before anything is built", "[config]") {
  ScratchDir dir("config_absurd");
  // 20 values on each of 8 axes: 2.56e10 trials, refused from the counts alone.
  std::string sweep = "\n[sweep]\n";
  for (const char* key :
       {"train.lr", "train.batch", "model.d_ff", "train.steps", "train.eval_every",
        "train.patience", "train.clip_grad_norm", "train.validation_batch"}) {
    sweep += std::string("\"") + key + "\" = [";
    for (int v = 1; v <= 20; ++v) sweep += std::to_string(v) + (v < 20 ? ", " : "]\n");
  }
  CHECK_THAT(
      problems_of(dir, tiny_experiment("grid") + sweep),
      Catch::Contains(
          "sweep: expands to 2.56e+10 trials (20 × 20 × 20 × 20 × 20 × 20 × 20 × 20 × 1 seeds)") &&
          Catch::Contains("at most 10000 per file"));
  std::string huge = tiny_experiment("huge");
  huge.replace(huge.find("d_model = 8"), 11, "d_model = 16384");
  huge.replace(huge.find("d_ff = 16"), 9, "d_ff = 65536");
  CHECK_THAT(problems_of(dir, huge), Catch::Contains("model: the model would have up to") &&
                                         Catch::Contains("more than the 1e9 a trial may have"));
}

TEST_CASE("a sweep over component tables labels its points inline", "[config]") {
  // The label is written by display(), not TOML++'s formatter, whose 3.3.0 array
  // printing is undefined for floats below 1 (found by the experiment-file fuzzer).
  ScratchDir dir("config_table_sweep");
  Experiment e = load_experiment(dir.file(
      "exp.toml",
      tiny_experiment("tables") +
          "\n[sweep]\n\"model.norm\" = [{ kind = \"layer\", eps = 1e-6 }, { kind = \"rms\" }]\n"
          "\"train.label_smoothing\" = [0.05]\n"));
  REQUIRE(e.trials.size() == 2);
  CHECK(e.trials[0].point_label() ==
        "model.norm={ eps = 1e-06, kind = layer } train.label_smoothing=0.05");
  CHECK(e.trials[0].config.model.transformer.norm.options.get_float("eps") == 1e-6);
  CHECK(e.trials[1].point_label() == "model.norm={ kind = rms } train.label_smoothing=0.05");
}
