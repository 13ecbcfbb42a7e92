// Incremental greedy decoding (nn/transformer/incremental_decode.h) against the full
// recompute: the same tokens and the same logits, bit for bit, over a matrix of models,
// batch sizes, lengths, padded sources and early EOS; the kernel facts the cached keys
// and values rely on; and the configurations that must fall back, with a reason.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "autograd/kernels/gemm.h"
#include "autograd/kernels/small_gemm.h"
#include "nn/transformer/incremental_decode.h"
#include "nn/transformer/transformer_models.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

constexpr std::int32_t kPad = 0, kEos = 2;
using Method = Seq2SeqTransformer::DecodeMethod;

// One decoder layer (what incremental decoding supports).
TransformerConfig one_decoder_layer(std::int64_t d_model, std::int64_t heads, std::int64_t d_ff,
                                    std::int64_t encoder_layers, const char* placement) {
  TransformerConfig c;
  c.d_model = d_model;
  c.heads = heads;
  c.d_ff = d_ff;
  c.encoder_layers = encoder_layers;
  c.decoder_layers = 1;
  c.placement = placement;
  return c;
}

// The quickstart's model (experiments/studies/quickstart.toml).
TransformerConfig quickstart() {
  return one_decoder_layer(32, 2, 64, 1, "post");
}

// A replication-size model (d_model 64, 4 heads, d_ff 256, pre-norm; g2p's but for its
// second decoder layer).
TransformerConfig replication_size() {
  return one_decoder_layer(64, 4, 256, 2, "pre");
}

// A random model made "trained-ish", as beam_search_test.cpp does: sharper output
// distributions and a bias towards EOS, so rows finish at different steps.
std::unique_ptr<Seq2SeqTransformer> peaked(const TransformerConfig& c, std::int64_t vocab,
                                           std::uint64_t seed, bool tie = false) {
  auto model = std::make_unique<Seq2SeqTransformer>(
      c,
      VocabularyOptions{
          .source_vocab = vocab, .target_vocab = vocab, .share_embeddings = tie, .tie_output = tie},
      seed);
  model->eval();
  if (Parameter* w = model->find_parameter("output.weight"))
    for (std::int64_t i = 0; i < w->value.numel(); ++i) w->value.set(i, 4.0 * w->value.at(i));
  if (Parameter* b = model->find_parameter("output.bias"))
    b->value.set(kEos, b->value.at(kEos) + 1.0);
  return model;
}

// Sources of lengths between 1 and max_src, pad-padded to the longest.
Tensor padded_sources(std::int64_t B, std::int64_t max_src, std::int64_t vocab,
                      std::uint64_t seed) {
  std::mt19937 rng{std::uint32_t(seed)};
  std::vector<std::int32_t> ids(std::size_t(B * max_src), kPad);
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int64_t len = 1 + std::int64_t(rng() % std::uint32_t(max_src));
    for (std::int64_t j = 0; j < len; ++j)
      ids[std::size_t(b * max_src + j)] = 3 + std::int32_t(rng() % std::uint32_t(vocab - 3));
  }
  return Tensor::from_data({B, max_src}, ids);
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.raw(), b.raw(), std::size_t(a.numel()) * dtype_size(a.dtype())) == 0;
}

// Decodes with both methods; requires the same tokens and the same logits at every step.
// Returns the automatic decoding's record.
DecodePathRecord decode_both(Seq2SeqTransformer& model, const Tensor& src, std::int64_t max_len) {
  std::vector<Tensor> full_logits, auto_logits;
  Tensor full = model.greedy_decode(src, max_len, Method::full_recompute, &full_logits);
  Tensor fast = model.greedy_decode(src, max_len, Method::automatic, &auto_logits);
  REQUIRE(same_bits(full, fast));
  REQUIRE(full_logits.size() == auto_logits.size());
  for (std::size_t t = 0; t < full_logits.size(); ++t) {
    INFO("step " << t);
    REQUIRE(same_bits(full_logits[t], auto_logits[t]));
  }
  return model.decode_path_record();
}

struct Case {
  std::string name;
  TransformerConfig config;
  std::int64_t vocab = 13;
  bool tie = false;
};

std::vector<Case> supported_cases() {
  std::vector<Case> cases;
  cases.push_back({"quickstart", quickstart()});
  Case shared{"quickstart, shared QK, unscaled", quickstart()};
  shared.config.attention.qk = Component{"shared"};
  shared.config.attention.scale = Component{"none"};
  cases.push_back(shared);
  cases.push_back({"replication size, pre-norm", replication_size(), 40});
  Case wide_vocab{"replication size, 100-token vocabulary (oneDNN for the logits)",
                  replication_size(), 100};
  cases.push_back(wide_vocab);
  Case v1{"learned positions", replication_size(), 40};
  v1.config.positions = Component{"learned"};
  cases.push_back(v1);
  Case v2{"rms, post", replication_size(), 40};
  v2.config.norm = Component{"rms"};
  v2.config.placement = "post";
  cases.push_back(v2);
  Case v3{"gelu", replication_size(), 40};
  v3.config.ffn = Component{"gelu"};
  cases.push_back(v3);
  Case v4{"qk_norm", replication_size(), 40};
  v4.config.attention.qk = Component{"qk_norm"};
  cases.push_back(v4);
  Case v5{"tied", replication_size(), 40, true};
  cases.push_back(v5);
  Case variants{"learned positions, rms norm, gelu, qk_norm, tied output", replication_size(), 40,
                true};
  variants.config.positions = Component{"learned"};
  variants.config.norm = Component{"rms"};
  variants.config.placement = "post";
  variants.config.ffn = Component{"gelu"};
  variants.config.attention.qk = Component{"qk_norm"};
  cases.push_back(variants);
  // Keys projected from every row at each step (not kept): a deeper decoder, a norm
  // before the self-attention that is not row-stable, projections wider than 64.
  Case g2p{"the g2p model: two decoder layers", replication_size(), 40};
  g2p.config.decoder_layers = 2;
  cases.push_back(g2p);
  Case three{"three decoder layers, post, shared QK", quickstart(), 20};
  three.config.decoder_layers = 3;
  three.config.attention.qk = Component{"shared"};
  cases.push_back(three);
  Case rms_pre{"rms, pre", replication_size(), 40};
  rms_pre.config.norm = Component{"rms"};
  cases.push_back(rms_pre);
  Case wide{"d_model 128, 2 heads", one_decoder_layer(128, 2, 256, 1, "post"), 40};
  cases.push_back(wide);
  Case dyt{"dyt norm, post", quickstart(), 20};
  dyt.config.norm = Component{"dyt"};
  cases.push_back(dyt);
  Case bare{"no positions, no projections, batch norm, glu, post", quickstart(), 20};
  bare.config.positions = Component{"none"};
  bare.config.attention.qk = Component{"identity"};
  bare.config.attention.v = Component{"identity"};
  bare.config.attention.output_projection = false;
  bare.config.norm = Component{"batch"};
  bare.config.ffn = Component{"glu"};
  cases.push_back(bare);
  return cases;
}

}  // namespace

TEST_CASE("incremental greedy decoding gives the full recompute's tokens and logits bit for bit") {
  std::uint64_t seed = 1;
  for (const Case& c : supported_cases()) {
    DYNAMIC_SECTION(c.name) {
      auto model = peaked(c.config, c.vocab, seed, c.tie);
      REQUIRE(why_not_incremental(*model) == nullptr);
      for (std::int64_t B : {1, 3, 16, 64})
        for (std::int64_t max_len : {1, 7, 40}) {
          INFO(c.name << ", batch " << B << ", max_len " << max_len);
          const Tensor src = padded_sources(B, 9, c.vocab, ++seed);
          const std::int64_t before = model->decode_path_record().incremental;
          decode_both(*model, src, max_len);
          REQUIRE(model->decode_path_record().incremental == before + 1);
        }
    }
  }
}

TEST_CASE("incremental decoding past 64 positions (oneDNN for the attention scores)") {
  Case c{"quickstart, no EOS", quickstart()};
  auto model = peaked(c.config, c.vocab, 77);
  Parameter* bias = model->find_parameter("output.bias");
  bias->value.set(kEos, -100.0);  // no row finishes: every step runs
  for (std::int64_t B : {1, 5}) {
    INFO("batch " << B);
    const DecodePathRecord record = decode_both(*model, padded_sources(B, 9, c.vocab, 5), 90);
    REQUIRE(record.incremental > 0);
  }
}

TEST_CASE(
    "configurations incremental decoding does not reproduce fall back to the full recompute") {
  std::vector<std::pair<std::string, TransformerConfig>> refused;
  TransformerConfig rotary = quickstart();
  rotary.positions = Component{"rotary"};
  refused.push_back({"inside attention", rotary});
  TransformerConfig alibi = quickstart();
  alibi.positions = Component{"alibi"};
  refused.push_back({"inside attention", alibi});
  TransformerConfig narrow = quickstart();
  narrow.d_model = 8;
  narrow.d_ff = 16;
  refused.push_back({"multiple of 16", narrow});
  TransformerConfig learned_scale = quickstart();
  learned_scale.attention.scale = Component{"learned"};
  refused.push_back({"learned", learned_scale});
  for (auto& [reason, config] : refused) {
    INFO(reason);
    auto model = peaked(config, 13, 3);
    REQUIRE(why_not_incremental(*model) != nullptr);
    const DecodePathRecord record = decode_both(*model, padded_sources(4, 7, 13, 9), 12);
    REQUIRE(record.incremental == 0);
    REQUIRE(record.why_not_incremental.find(reason) != std::string::npos);
  }
}

// The premise of the one-layer limit: below the top layer the full recompute's own rows
// change bits with the prefix length, so no cache of an earlier step's keys can be its.
// If this fails, the full recompute became prefix-stable and deeper decoders could decode
// incrementally too.
TEST_CASE("a two-layer decoder's full recompute is not prefix-stable") {
  TransformerConfig c = replication_size();
  c.decoder_layers = 2;
  Seq2SeqTransformer model(c, {.source_vocab = 40, .target_vocab = 40}, 5);
  model.eval();
  NoGradGuard no_grad;
  Tape tape;
  TapeScope scope(tape);
  const std::int64_t B = 4, L = 24, V = 40;
  const Tensor src = padded_sources(B, 9, V, 1);
  std::vector<std::int32_t> tgt(std::size_t(B * L));
  std::mt19937 rng(2);
  for (auto& x : tgt) x = 3 + std::int32_t(rng() % 37);
  const Tensor memory = model.encode(src).value().clone();
  const Tensor full =
      model.decode(Tensor::from_data({B, L}, tgt), constant(memory), src).value().clone();
  std::int64_t differing = 0;
  for (std::int64_t l = 1; l < L; ++l) {
    std::vector<std::int32_t> prefix(std::size_t(B * l));
    for (std::int64_t b = 0; b < B; ++b)
      std::copy_n(tgt.begin() + b * L, l, prefix.begin() + b * l);
    const Tensor part =
        model.decode(Tensor::from_data({B, l}, prefix), constant(memory), src).value();
    for (std::int64_t b = 0; b < B; ++b)
      differing += std::memcmp(part.data<float>() + (b * l + l - 1) * V,
                               full.data<float>() + (b * L + l - 1) * V, std::size_t(V) * 4) != 0;
  }
  REQUIRE(differing > 0);
}

// What the cached self-attention keys and values rely on (nn/transformer/row_plan.h): at
// the K/V projections' shapes (N = H·d ≤ 64, K = d_model), small_gemm and oneDNN give a
// row the same bits whatever M is, so a key computed at step j is the one the full
// recompute computes at step t with B·(t+1) rows, whichever kernel that is.
TEST_CASE("K/V projection rows have the same bits on small_gemm and oneDNN at every M") {
  REQUIRE(kernels::gemm_backend() == kernels::GemmBackend::onednn);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  for (const auto& shape : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {32, 32}, {64, 64}, {16, 32}, {48, 64}, {32, 64}}) {
    // Named copies, not structured bindings: the lambda below captures them, which
    // clang (the sanitizer build) refuses for bindings before C++20's P1091 lands there.
    const std::int64_t N = shape.first, K = shape.second;
    INFO("N " << N << " K " << K);
    const std::int64_t max_rows = 2600;  // B 64 × 40 positions
    std::vector<float> a(std::size_t(max_rows * K)), w(std::size_t(N * K)), bias{};
    bias.resize(std::size_t(N));
    for (auto& x : a) x = normal(rng);
    for (auto& x : w) x = normal(rng);
    for (auto& x : bias) x = normal(rng);
    // As the linear op runs it: the bias as C's starting value, accumulated into.
    auto product = [&](std::int64_t M, bool small) {
      std::vector<float> c(std::size_t(M * N));
      for (std::int64_t r = 0; r < M; ++r) std::copy(bias.begin(), bias.end(), c.begin() + r * N);
      if (small)
        kernels::small_gemm(false, true, M, N, K, a.data(), K, w.data(), K, c.data(), N, true);
      else
        kernels::gemm<float>(false, true, M, N, K, a.data(), K, w.data(), K, c.data(), N, true);
      return c;
    };
    const std::vector<float> reference = product(max_rows, false);  // oneDNN
    REQUIRE_FALSE(kernels::small_gemm_fits(max_rows, N, K));
    for (std::int64_t M : {1, 2, 3, 7, 15, 16, 17, 33, 64, 100, 255, 256, 257, 1000, 2599}) {
      INFO("M " << M);
      const std::vector<float> c = product(M, false);
      REQUIRE(std::memcmp(c.data(), reference.data(), std::size_t(M * N) * 4) == 0);
      if (kernels::small_gemm_fits(M, N, K)) {
        const std::vector<float> s = product(M, true);
        REQUIRE(std::memcmp(s.data(), reference.data(), std::size_t(M * N) * 4) == 0);
      }
    }
  }
}
