// The safetensors cases of the bad-input catalogue (tests/bad_inputs/*.safetensors,
// each with its expected message fragment in <name>.expect): read_safetensors throws a
// clear error naming the file, never crashes or allocates what the header claims.
// checkpoint_*.safetensors files are well-formed checkpoints of a model that does not
// fit the catalogue's model (tests/nn/small_transformer.h, d_ff 16, vocabularies 7
// and 9): a strict load throws the fragment with the path and changes nothing.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "tests/build_paths.h"

#include "nn/checkpoint.h"
#include "nn/safetensors.h"
#include "nn/safetensors_header.h"
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

namespace {

// A safetensors file whose header lists `zero_size` F32 tensors of shape [0] named
// x0, x1, ... after the given ones (an attack on the reader's time, not its memory).
std::string with_zero_size_tensors(const std::string& path,
                                   const std::vector<std::pair<std::string, Tensor>>& tensors,
                                   std::size_t zero_size) {
  std::vector<std::pair<std::string, Tensor>> all = tensors;
  for (std::size_t i = 0; i < zero_size; ++i)
    all.emplace_back("x" + std::to_string(i), Tensor::empty(Shape({0}), DType::f32));
  write_safetensors(path, all, {});
  return path;
}

std::string temp_file(const std::string& name) {
  return (fs::temp_directory_path() / ("ablate-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

}  // namespace

// A header listing 100,000 zero-size tensors kept `ablate predict` busy for minutes
// (nlohmann's callback parser rescans the header object at every entry's end) and then
// printed every name. The count is bounded and the parse is linear-logarithmic.
TEST_CASE("a safetensors header listing more entries than the bound is refused, naming the bound",
          "[checkpoint]") {
  const std::string path =
      with_zero_size_tensors(temp_file("too-many.safetensors"), {}, kMaxSafetensorsEntries + 1);
  CHECK_THROWS_WITH(read_safetensors(path),
                    Catch::Contains(path) &&
                        Catch::Contains("the header lists more than " +
                                        std::to_string(kMaxSafetensorsEntries) + " entries"));
  fs::remove(path);
}

TEST_CASE(
    "a checkpoint with 60,000 unexpected tensors is read and its report lists 50 names and "
    "a count",
    "[checkpoint]") {
  Seq2SeqTransformer model(testing::small_transformer(16),
                           VocabularyOptions{.source_vocab = 7, .target_vocab = 9}, 1);
  std::vector<std::pair<std::string, Tensor>> state;
  for (const auto& [name, p] : model.named_parameters()) state.emplace_back(name, p->value);
  for (const auto& [name, b] : model.named_buffers()) state.emplace_back(name, *b);
  const std::string path =
      with_zero_size_tensors(temp_file("unexpected.safetensors"), state, 60000);
  REQUIRE(read_safetensors(path).tensors.size() == state.size() + 60000);
  try {
    load_checkpoint(model, path, /*strict=*/true);
    FAIL("a checkpoint with unexpected tensors loaded strictly");
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("unexpected: in the file, not in the model (60000)") &&
                            Catch::Contains("  ... and 59950 more"));
    CHECK(std::count(message.begin(), message.end(), '\n') <= 53);  // title, 50 names, count
  }
  fs::remove(path);
}
