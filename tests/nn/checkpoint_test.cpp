// Checkpoints: safetensors round trips (bit-exact, every dtype), load reports, strict
// loads that change nothing, corrupt files that throw instead of crashing, atomic
// writes, and a header that an independent JSON reader understands.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "nn/checkpoint.h"
#include "nn/transformer/transformer_models.h"
#include "tests/scratch_dir.h"

using namespace ablate;
using namespace ablate::nn;
using ablate_tests::ScratchDir;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

// The names of the files in a test's scratch directory, sorted.
std::vector<std::string> listing(const ScratchDir& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path()))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TransformerConfig small_config(std::int64_t d_ff = 16, std::int64_t encoder_layers = 1) {
  TransformerConfig c;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = d_ff;
  c.encoder_layers = encoder_layers;
  c.decoder_layers = 1;
  c.norm = {"batch"};  // so that buffers (running statistics) are part of the state
  c.max_len = 16;
  return c;
}

constexpr VocabularyOptions kVocab{.source_vocab = 7, .target_vocab = 9};

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.nbytes() == 0 || std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0);
}

// Every parameter and buffer, cloned, by name.
std::vector<std::pair<std::string, Tensor>> snapshot(const Module& m) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, p] : m.named_parameters()) out.emplace_back(name, p->value.clone());
  for (const auto& [name, b] : m.named_buffers()) out.emplace_back(name, b->clone());
  return out;
}

bool same_state(const std::vector<std::pair<std::string, Tensor>>& a,
                const std::vector<std::pair<std::string, Tensor>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].first != b[i].first || !same_bytes(a[i].second, b[i].second)) return false;
  return true;
}

// Running statistics start as 0 and 1 in every model; give them distinct values so
// that a round trip that forgot buffers would be caught.
void scramble_buffers(const Module& m, double base) {
  for (const auto& [name, b] : m.named_buffers())
    for (std::int64_t i = 0; i < b->numel(); ++i) b->set(i, base + 0.01 * double(i));
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string le64(std::uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = char((n >> (8 * i)) & 0xff);
  return s;
}

// A hand-made file: header length, header text, data bytes.
void write_raw(const std::string& path, const std::string& header, const std::string& data) {
  write_bytes(path, le64(header.size()) + header + data);
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("a checkpoint round trip restores every parameter and buffer bit for bit",
          "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  const std::string path = tmp.path_of("model.safetensors");
  Seq2SeqTransformer a(small_config(), kVocab, 1);
  scramble_buffers(a, 0.25);
  REQUIRE_FALSE(a.named_buffers().empty());
  save_checkpoint(a, path);

  Seq2SeqTransformer b(small_config(), kVocab, 2);
  scramble_buffers(b, -3.0);
  REQUIRE_FALSE(same_state(snapshot(a), snapshot(b)));
  Checkpoint ck = load_checkpoint(b, path);
  CHECK(ck.report.ok());
  CHECK(ck.report.str() == "every key of the model and the file matches\n");

  auto sa = snapshot(a), sb = snapshot(b);
  REQUIRE(sa.size() == sb.size());
  for (std::size_t i = 0; i < sa.size(); ++i) {
    INFO(sa[i].first);
    CHECK(same_bytes(sa[i].second, sb[i].second));
  }
  // The file holds exactly the module's state, in registration order.
  REQUIRE(ck.file.tensors.size() == sa.size());
  for (std::size_t i = 0; i < sa.size(); ++i) CHECK(ck.file.tensors[i].first == sa[i].first);
  CHECK(ck.file.metadata.at("format") == "ablate-checkpoint");
  CHECK(ck.file.metadata.at("format_version") == "1");
  CHECK(fs::exists(path));
  CHECK(listing(tmp) == std::vector<std::string>{"model.safetensors"});
}

TEST_CASE("checkpoint metadata and optimizer tensors round trip", "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  const std::string path = tmp.path_of("ckpt.safetensors");
  Seq2SeqTransformer model(small_config(), kVocab, 3);
  const std::string config = "[model]\nd_model = 8\nname = \"quoted \\\" é ✓\"\n";
  Tensor step = Tensor::from_data({}, std::vector<std::int32_t>{1234});
  Tensor moment = Tensor::full({9, 8}, 0.125);
  save_checkpoint(model, path, {{"config", config}, {"step", "1234"}},
                  {{"optimizer.step", step}, {"optimizer.exp_avg.output.weight", moment}});

  Checkpoint ck = load_checkpoint(model, path);  // strict: optimizer.* is not unexpected
  CHECK(ck.report.ok());
  CHECK(ck.file.metadata == std::map<std::string, std::string>{{"config", config},
                                                               {"format", "ablate-checkpoint"},
                                                               {"format_version", "1"},
                                                               {"step", "1234"}});
  REQUIRE(ck.file.find("optimizer.step"));
  CHECK(same_bytes(*ck.file.find("optimizer.step"), step));
  REQUIRE(ck.file.find("optimizer.exp_avg.output.weight"));
  CHECK(same_bytes(*ck.file.find("optimizer.exp_avg.output.weight"), moment));
  CHECK(ck.file.find("optimizer.nothing") == nullptr);

  CHECK_THROWS_WITH(save_checkpoint(model, path, {{"format", "mine"}}),
                    StartsWith(path) && Contains("'format' is reserved"));
  CHECK_THROWS_WITH(save_checkpoint(model, path, {}, {{"output.weight", moment}}),
                    StartsWith(path) && Contains("'output.weight' is given twice"));
}

TEST_CASE("f32, f64, i32 and b8 tensors of rank 0 to 4 round trip bit for bit", "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  const std::string path = tmp.path_of("dtypes.safetensors");
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::pair<std::string, Tensor>> tensors = {
      {"f64", Tensor::from_data({2, 3}, std::vector<double>{-0.0, 1e-310, inf, -inf, nan, 0.1},
                                DType::f64)},
      {"f32", Tensor::from_data({3}, std::vector<float>{-0.0f, 1e-40f, 3.5f})},
      {"i32", Tensor::from_data(
                  {2, 2}, std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), -1, 0,
                                                    std::numeric_limits<std::int32_t>::max()})},
      {"b8", Tensor::from_data({2, 1, 2, 1}, std::vector<double>{1, 0, 0, 1}, DType::b8)},
      {"scalar", Tensor::from_data({}, std::vector<double>{7.0}, DType::f64)},
      {"empty", Tensor::zeros({0, 3}, DType::i32)},
  };
  write_safetensors(path, tensors, {{"note", "dtypes"}});
  SafetensorsFile file = read_safetensors(path);
  REQUIRE(file.tensors.size() == tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    INFO(tensors[i].first);
    CHECK(file.tensors[i].first == tensors[i].first);
    CHECK(same_bytes(file.tensors[i].second, tensors[i].second));
  }
  CHECK(file.metadata == std::map<std::string, std::string>{{"note", "dtypes"}});

  // b8 is "nonzero = true" in memory; the file's BOOL holds 0/1 only.
  Tensor mask = Tensor::zeros({3}, DType::b8);
  static_cast<std::uint8_t*>(mask.raw())[1] = 0xff;
  write_safetensors(path, {{"mask", mask}}, {});
  Tensor back = *read_safetensors(path).find("mask");
  CHECK(static_cast<const std::uint8_t*>(back.raw())[0] == 0);
  CHECK(static_cast<const std::uint8_t*>(back.raw())[1] == 1);
}

TEST_CASE("load reports missing, unexpected and mis-shaped keys by name", "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  const std::string small_path = tmp.path_of("small.safetensors");
  const std::string big_path = tmp.path_of("big.safetensors");
  Seq2SeqTransformer small(small_config(16, 1), kVocab, 1);
  Seq2SeqTransformer big(small_config(24, 2), kVocab, 2);
  save_checkpoint(small, small_path);
  save_checkpoint(big, big_path);

  SECTION("a file with fewer layers and a narrower feed-forward") {
    Checkpoint ck = load_checkpoint(big, small_path, /*strict=*/false);
    CHECK_FALSE(ck.report.ok());
    CHECK(contains(ck.report.missing, "encoder.layers.1.linear1.weight"));
    CHECK(contains(ck.report.missing, "encoder.layers.1.norm1.running_mean"));
    CHECK(ck.report.unexpected.empty());
    CHECK(contains(ck.report.mismatched,
                   "encoder.layers.0.linear1.weight: file F32 [16, 8], model F32 [24, 8]"));
    CHECK(contains(ck.report.mismatched,
                   "decoder.layers.0.linear2.weight: file F32 [8, 16], model F32 [8, 24]"));
    const std::string text = ck.report.str();
    for (const auto& k : ck.report.missing) CHECK_THAT(text, Contains(k));
    for (const auto& k : ck.report.mismatched) CHECK_THAT(text, Contains(k));
    // Not strict: what fits is copied anyway.
    CHECK(same_bytes(big.find_parameter("source_embedding.weight")->value,
                     small.find_parameter("source_embedding.weight")->value));
  }
  SECTION("a file with more layers") {
    Checkpoint ck = load_checkpoint(small, big_path, /*strict=*/false);
    CHECK(ck.report.missing.empty());
    CHECK(contains(ck.report.unexpected, "encoder.layers.1.self_attn.w_q.weight"));
    CHECK(contains(ck.report.unexpected, "encoder.layers.1.norm2.running_var"));
    CHECK_THAT(ck.report.str(), Contains("encoder.layers.1.self_attn.w_q.weight"));
  }
  SECTION("a model in another dtype is a mismatch, not a conversion") {
    Seq2SeqTransformer wide(small_config(16, 1), kVocab, 1);
    wide.to(DType::f64);
    Checkpoint ck = load_checkpoint(wide, small_path, /*strict=*/false);
    CHECK(contains(ck.report.mismatched, "output.weight: file F32 [9, 8], model F64 [9, 8]"));
    CHECK(contains(ck.report.mismatched,
                   "encoder.layers.0.norm1.running_mean: file F32 [8], model F64 [8]"));
    CHECK(ck.report.missing.empty());
    CHECK(ck.report.unexpected.empty());
  }
}

TEST_CASE("a strict load of a file that does not fit throws and changes nothing", "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  const std::string path = tmp.path_of("small.safetensors");
  Seq2SeqTransformer small(small_config(16, 1), kVocab, 1);
  save_checkpoint(small, path);
  Seq2SeqTransformer big(small_config(24, 2), kVocab, 2);
  scramble_buffers(big, 5.0);
  auto before = snapshot(big);
  CHECK_THROWS_WITH(
      load_checkpoint(big, path),
      StartsWith(path + ": checkpoint does not fit the model:\n") &&
          Contains("encoder.layers.1.linear1.weight") &&
          Contains("encoder.layers.0.linear1.weight: file F32 [16, 8], model F32 [24, 8]"));
  CHECK(same_state(before, snapshot(big)));  // even the keys that fit were not copied
}

TEST_CASE("corrupt files throw with the path in the message and never crash", "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  const std::string path = tmp.path_of("bad.safetensors");
  const std::string eight(8, '\1');
  auto fails = [&](const std::string& what) {
    INFO(what);
    CHECK_THROWS_WITH(read_safetensors(path), StartsWith(path + ": ") && Contains(what));
  };
  // A file of `header` (with its length before it) and `data` is refused saying `what`.
  auto header_fails = [&](const std::string& header, const std::string& data,
                          const std::string& what) {
    write_raw(path, header, data);
    fails(what);
  };

  SECTION("a valid file cut short") {
    write_safetensors(path, {{"x", Tensor::ones({4, 4})}}, {});
    std::string bytes = read_bytes(path);
    write_bytes(path, bytes.substr(0, bytes.size() - 4));
    fails("lie outside the data section of 60 bytes");
    write_bytes(path, bytes.substr(0, 5));
    fails("too short for the 8-byte header length");
    write_bytes(path, "");
    fails("file of 0 bytes");
  }
  SECTION("a header length larger than the file") {
    write_bytes(path, le64(999999) + std::string(112, ' '));
    fails("header length 999999 exceeds the file size 120");
    write_bytes(path, le64(std::numeric_limits<std::uint64_t>::max()) + "{}");
    fails("exceeds the file size 10");
  }
  SECTION("a header that is not JSON, or not an object") {
    header_fails("not json at all", eight, "header is not valid JSON");
    header_fails("{\"x\": {\"dtype\": \"F32\"", "", "header is not valid JSON");
    header_fails("[1, 2]", "", "header is not a JSON object");
    header_fails("{\"\xff\xfe\": 1}", "", "header is not valid JSON");
    // A number beyond double's range is nlohmann's out_of_range, not its parse_error
    // (found by the safetensors fuzzer: it escaped as an uncaught exception).
    header_fails("{\"__metadata__\": {\"a\": 1e99999}}", "", "header is not valid JSON");
  }
  SECTION("offsets out of range, overlapping, or not matching dtype × shape") {
    header_fails(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}})", eight,
                 "tensor 'x': data_offsets [8, 16] lie outside the data section of 8 bytes");
    header_fails(R"({"x": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 12]}})",
                 std::string(12, '\0'),
                 "tensor 'x': data_offsets [0, 12] do not match F32 [2, 2] (16 bytes)");
    header_fails(R"({"x": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}})", eight,
                 "data_offsets [4, 0] do not match");
    header_fails(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                  "b": {"dtype": "I32", "shape": [1], "data_offsets": [4, 8]}})",
                 eight, "overlap those of tensor");
    header_fails(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", eight,
                 "bytes [0, 4) of the data section belong to no tensor");
    header_fails(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", eight,
                 "the data section has 8 bytes but its tensors cover 4");
    header_fails(
        R"({"x": {"dtype": "F64", "shape": [4611686018427387904, 4], "data_offsets": [0, 8]}})",
        eight, "is too large to exist");
    header_fails(R"({"x": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", eight,
                 "tensor 'x': shape holds number where only non-negative integers belong");
    header_fails(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0]}})", eight,
                 "is not [begin, end]");
    header_fails(R"({"x": {"dtype": "F32", "shape": [2]}})", eight,
                 "tensor 'x': entry has no \"data_offsets\"");
  }
  SECTION("an unknown dtype, a rank above 4, bad metadata") {
    header_fails(R"({"x": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}})", eight,
                 "tensor 'x': unknown dtype 'F16' (ablate reads F32, F64, I32 and BOOL)");
    header_fails(R"({"x": {"dtype": "BOOL", "shape": [1, 1, 2, 2, 2], "data_offsets": [0, 8]}})",
                 eight, "has rank 5; ablate tensors have rank at most 4");
    header_fails(R"({"__metadata__": {"step": 3}})", "",
                 "\"__metadata__\" value of 'step' is number, not a string");
    header_fails(R"({"__metadata__": [1]})", "", "\"__metadata__\" is not a JSON object");
  }
  SECTION("a NUL in the header, a name given twice, nesting deeper than a header goes") {
    // nlohmann's parser stops at a NUL: what follows it was silently ignored.
    header_fails(std::string(R"({"__metadata__": {"a": "b"}})") + '\0' + R"(, "x": 1)", "",
                 "the header holds a NUL byte at offset 28 of its 37 bytes");
    // nlohmann keeps one of two equal keys: a tensor (or a metadata value) vanished.
    header_fails(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                  "a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                 eight, "the header names 'a' twice");
    header_fails(R"({"__metadata__": {"step": "1", "step": "2"}})", "",
                 "'__metadata__' gives the key 'step' twice");
    // Valid JSON nested 100,000 deep: the error path used to dump() it recursively
    // (a stack overflow); now it is refused while parsing, without building it.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    header_fails(R"({"x": {"dtype": "F32", "shape": )" + deep + R"(, "data_offsets": [0, 0]}})", "",
                 "the header nests deeper than 8 levels");
    header_fails(R"({"__metadata__": {"a": )" + deep + "}}", "",
                 "the header nests deeper than 8 levels");
  }
  SECTION("a long name is echoed cut, with its size") {
    const std::string name(100000, 'n');
    write_raw(path, "{\"" + name + R"(": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}})",
              "");
    CHECK_THROWS_WITH(read_safetensors(path), Contains("(100000 bytes in all)") && !Contains(name));
  }
  SECTION("no file at all, or a directory") {
    fails("cannot open");
    fs::create_directory(path);
    fails("is not a regular file");
  }
}

TEST_CASE("a failed write throws and leaves no temp file and no damage", "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  SECTION("a directory that does not exist") {
    const std::string path = tmp.path_of("no/such/dir/model.safetensors");
    CHECK_THROWS_WITH(
        write_safetensors(path, {{"x", Tensor::ones({2})}}, {}),
        StartsWith(path + ": cannot create") && Contains("No such file or directory"));
    CHECK(listing(tmp).empty());
  }
  SECTION("a rename that fails removes the finished temp file") {
    const std::string path = tmp.path_of("taken");
    fs::create_directory(path);  // rename() cannot replace a directory with a file
    CHECK_THROWS_WITH(write_safetensors(path, {{"x", Tensor::ones({2})}}, {}),
                      StartsWith(path + ": cannot rename"));
    CHECK(listing(tmp) == std::vector<std::string>{"taken"});
  }
  SECTION("invalid input leaves an existing file untouched") {
    const std::string path = tmp.path_of("model.safetensors");
    write_safetensors(path, {{"x", Tensor::ones({2})}}, {});
    const std::string before = read_bytes(path);
    CHECK_THROWS_WITH(write_safetensors(path, {{"y", Tensor()}}, {}),
                      StartsWith(path + ": tensor 'y' is undefined"));
    CHECK_THROWS_WITH(write_safetensors(path, {{"__metadata__", Tensor::ones({1})}}, {}),
                      StartsWith(path));
    CHECK(read_bytes(path) == before);
    CHECK(listing(tmp) == std::vector<std::string>{"model.safetensors"});
  }
}

TEST_CASE("rewriting an existing checkpoint replaces it atomically", "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  const std::string path = tmp.path_of("model.safetensors");
  write_safetensors(path, {{"x", Tensor::full({4}, 1.0)}}, {{"version", "old"}});
  const std::string old_bytes = read_bytes(path);
  std::ifstream reader(path, std::ios::binary);  // a reader that opened the old file

  write_safetensors(path, {{"x", Tensor::full({4}, 2.0)}}, {{"version", "new"}});
  // The old file was replaced by rename(), not overwritten: the open reader still
  // sees every old byte, a new open sees the new file, and no temp file remains.
  std::string seen{std::istreambuf_iterator<char>(reader), std::istreambuf_iterator<char>()};
  CHECK(seen == old_bytes);
  SafetensorsFile now = read_safetensors(path);
  CHECK(now.metadata.at("version") == "new");
  CHECK(now.find("x")->at(3) == 2.0);
  CHECK(listing(tmp) == std::vector<std::string>{"model.safetensors"});
}

TEST_CASE("an independent JSON reader understands the checkpoint's header", "[checkpoint]") {
  ScratchDir tmp("checkpoint");
  const std::string path = tmp.path_of("model.safetensors");
  Seq2SeqTransformer model(small_config(), kVocab, 4);
  save_checkpoint(model, path, {{"step", "7"}});
  const std::string bytes = read_bytes(path);

  REQUIRE(bytes.size() >= 8);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | std::uint8_t(bytes[std::size_t(i)]);
  CHECK((8 + n) % 8 == 0);  // the data section starts aligned
  REQUIRE(8 + n <= bytes.size());
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  const std::string_view data = std::string_view(bytes).substr(8 + n);

  CHECK(header.at("__metadata__").at("format") == "ablate-checkpoint");
  CHECK(header.at("__metadata__").at("format_version") == "1");
  CHECK(header.at("__metadata__").at("step") == "7");

  const std::string name = "encoder.layers.0.linear1.weight";
  const nlohmann::json& entry = header.at(name);
  CHECK(entry.at("dtype") == "F32");
  CHECK(entry.at("shape") == nlohmann::json::array({16, 8}));
  const auto begin = entry.at("data_offsets").at(0).get<std::size_t>();
  const auto end = entry.at("data_offsets").at(1).get<std::size_t>();
  REQUIRE(end - begin == 16 * 8 * sizeof(float));
  REQUIRE(end <= data.size());
  const Tensor& w = model.find_parameter(name)->value;
  CHECK(std::memcmp(data.data() + begin, w.raw(), w.nbytes()) == 0);

  const nlohmann::json& mean = header.at("encoder.layers.0.norm1.running_mean");
  CHECK(mean.at("dtype") == "F32");
  CHECK(mean.at("shape") == nlohmann::json::array({8}));

  // Every entry but the metadata is a tensor, and together they cover the data exactly.
  std::size_t covered = 0;
  for (const auto& [key, value] : header.items())
    if (key != "__metadata__")
      covered += value.at("data_offsets").at(1).get<std::size_t>() -
                 value.at("data_offsets").at(0).get<std::size_t>();
  CHECK(covered == data.size());
}
