// The bad-input catalogue (tests/bad_inputs/): every case is rejected before anything
// runs, with exit status 2, a message naming the file and what is wrong, and no run
// directory left behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include "tests/build_paths.h"

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

TEST_CASE("every case of the bad-input catalogue exits 2 with its message and writes nothing",
          "[bad_inputs][e2e]") {
  const std::string catalogue = std::string(ABLATE_TEST_DATA_DIR) + "/bad_inputs";
  ScratchDir out("bad_inputs");
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(catalogue)) {
    if (entry.path().extension() != ".toml") continue;
    ++cases;
    std::string path = entry.path().string(), name = entry.path().filename().string();
    std::string first_line = read_text(path).substr(0, read_text(path).find('\n'));
    const std::string marker = "# expect: ";
    INFO(name);
    REQUIRE(first_line.rfind(marker, 0) == 0);  // every case states its expected message
    std::string expected = first_line.substr(marker.size());
    std::string runs = out.str() + "/" + entry.path().stem().string();
    CommandResult r =
        run_command(std::string(ABLATE_CLI) + " run " + path + " --out " + runs + " --quiet");
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(expected));
    CHECK_THAT(r.output, Catch::Contains(name));  // the message names the file
    CHECK_FALSE(fs::exists(runs));                // nothing half-written
  }
  CHECK(cases >= 17);
}
