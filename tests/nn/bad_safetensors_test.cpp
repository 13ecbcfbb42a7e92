// The safetensors cases of the bad-input catalogue (tests/bad_inputs/*.safetensors,
// each with its expected message fragment in <name>.expect): read_safetensors throws a
// clear error naming the file, never crashes or allocates what the header claims.
// checkpoint_*.safetensors files are well-formed checkpoints of a model that does not
// fit the catalogue's model (tests/nn/small_transformer.h, d_ff 16, vocabularies 7
// and 9): a strict load throws the fragment with the path and changes nothing.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "tests/build_paths.h"

#include "nn/checkpoint.h"
#include "nn/safetensors.h"
#include "nn/transformer/transformer_models.h"
#include "tests/nn/small_transformer.h"

namespace fs = std::filesystem;
using namespace ablate;
using namespace ablate::nn;

namespace {

// Every parameter's and buffer's bytes, to show that a refused load changed nothing.
std::vector<std::string> state_bytes(const Module& m) {
  std::vector<std::string> out;
  for (const auto& [name, p] : m.named_parameters())
    out.emplace_back(static_cast<const char*>(p->value.raw()), p->value.nbytes());
  for (const auto& [name, b] : m.named_buffers())
    out.emplace_back(static_cast<const char*>(b->raw()), b->nbytes());
  return out;
}

}  // namespace

TEST_CASE("every safetensors case of the bad-input catalogue throws its message with the path",
          "[checkpoint]") {
  int cases = 0, checkpoints = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(ABLATE_TEST_DATA_DIR) + "/bad_inputs")) {
    if (entry.path().extension() != ".safetensors") continue;
    ++cases;
    std::string path = entry.path().string();
    fs::path expect_file = entry.path();
    expect_file.replace_extension(".expect");
    INFO(path);
    REQUIRE(fs::exists(expect_file));
    std::stringstream expected;
    expected << std::ifstream(expect_file).rdbuf();
    // Named matchers: Catch2's && keeps references to its operands.
    auto names_file = Catch::Contains(path);
    auto says_what = Catch::Contains(expected.str());
    auto message = names_file && says_what;
    if (entry.path().filename().string().rfind("checkpoint_", 0) != 0) {
      CHECK_THROWS_WITH(read_safetensors(path), message);
      continue;
    }
    ++checkpoints;
    Seq2SeqTransformer model(testing::small_transformer(16),
                             VocabularyOptions{.source_vocab = 7, .target_vocab = 9}, 1);
    const std::vector<std::string> before = state_bytes(model);
    CHECK_THROWS_WITH(load_checkpoint(model, path, /*strict=*/true), message);
    CHECK(state_bytes(model) == before);
  }
  CHECK(cases >= 4);
  CHECK(checkpoints >= 1);
}
