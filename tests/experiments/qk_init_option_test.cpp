// separate Q/K's `init` option from an experiment file: `init = "unit_variance"` is
// accepted and gives trials of their own; the default, written or not, leaves the
// resolved config.toml — and so every existing trial's id — as it was before the option
// existed; a value that is not a choice is exit 2 from `ablate check`, naming the key and
// the allowed values.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include "experiments/config/experiment.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

std::string with_qk(const std::string& qk) {
  return tiny_experiment("tiny", "\n[model.attention]\nqk = " + qk + "\n");
}

}  // namespace

TEST_CASE("separate Q/K's init: unit_variance is a trial of its own, xavier keeps the id",
          "[config][qk_init]") {
  ScratchDir dir("qk_init_option");
  const Trial plain = load_experiment(dir.file("plain.toml", tiny_experiment())).trials.at(0);
  const Trial xavier =
      load_experiment(dir.file("xavier.toml", with_qk(R"({ kind = "separate", init = "xavier" })")))
          .trials.at(0);
  const Trial unit = load_experiment(dir.file("unit.toml", with_qk(R"({ kind = "separate", )"
                                                                   R"(init = "unit_variance" })")))
                         .trials.at(0);
  CHECK(unit.config.model.transformer.attention.qk.options.get_string("init") == "unit_variance");
  CHECK_THAT(plain.config_toml, !Catch::Contains("init"));
  CHECK(xavier.config_toml == plain.config_toml);
  CHECK(xavier.id == plain.id);
  CHECK_THAT(unit.config_toml, Catch::Contains("init = 'unit_variance'") ||
                                   Catch::Contains("init = \"unit_variance\""));
  CHECK(unit.id != plain.id);
  // Its config.toml runs that trial again, under the same id.
  CHECK(load_experiment(dir.file("config.toml", unit.config_toml)).trials.at(0).id == unit.id);
}

TEST_CASE("an unknown separate Q/K init is exit 2 listing the allowed values",
          "[config][qk_init][cli]") {
  ScratchDir dir("qk_init_bad");
  const std::string file =
      dir.file("bad.toml", with_qk(R"({ kind = "separate", init = "lecun" })"));
  CommandResult check = run_command(std::string(ABLATE_CLI) + " check " + file);
  INFO(check.output);
  CHECK(check.status == 2);
  CHECK_THAT(check.output, Catch::Contains("model.attention.qk.init") &&
                               Catch::Contains("xavier") && Catch::Contains("unit_variance"));
  CommandResult ok = run_command(std::string(ABLATE_CLI) + " check " +
                                 dir.file("ok.toml", with_qk(R"({ kind = "separate", )"
                                                             R"(init = "unit_variance" })")));
  INFO(ok.output);
  CHECK(ok.status == 0);
}
