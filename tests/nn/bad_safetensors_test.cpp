// The safetensors cases of the bad-input catalogue (tests/bad_inputs/*.safetensors,
// each with its expected message fragment in <name>.expect): read_safetensors throws a
// clear error naming the file, never crashes or allocates what the header claims.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nn/safetensors.h"

namespace fs = std::filesystem;

TEST_CASE("every safetensors case of the bad-input catalogue throws its message with the path", "[checkpoint]") {
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(std::string(ABLATE_TEST_DATA_DIR) + "/bad_inputs")) {
    if (entry.path().extension() != ".safetensors") continue;
    ++cases;
    std::string path = entry.path().string();
    fs::path expect_file = entry.path();
    expect_file.replace_extension(".expect");
    INFO(path);
    REQUIRE(fs::exists(expect_file));
    std::stringstream expected;
    expected << std::ifstream(expect_file).rdbuf();
    CHECK_THROWS_WITH(ablate::nn::read_safetensors(path),
                      Catch::Contains(path) && Catch::Contains(expected.str()));
  }
  CHECK(cases >= 3);
}
