#include "nn/transformer/transformer_models.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "nn/interrupt.h"
#include "nn/transformer/incremental_decode.h"

namespace ablate::nn {

const std::vector<std::string>& readout_names() {
  static const std::vector<std::string> names{"mean", "flatten"};
  return names;
}

Readout readout_named(const std::string& name) {
  const auto& names = readout_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw std::invalid_argument("no readout '" + name + "'");
  return Readout(it - names.begin());
}

namespace {

// Dropout's generator is a fork of the seed's stream: initialisation and dropout
// draws never interleave, so changing dropout does not change the initial weights.
constexpr std::uint64_t kDropoutStream = 0x64726f70;  // "drop"

std::unique_ptr<PositionEncoding> make_positions(const TransformerConfig& c,
                                                 const BuildContext& ctx) {
  return position_registry().create(c.positions.kind, c.positions.options, ctx);
}

// What the first layer sees: the embeddings with the positions added (for schemes
// that act there; the others act inside attention, or nowhere), then embedding
// dropout (null: none).
Var embedded(PositionEncoding& positions, Dropout* dropout, const Var& embeddings) {
  Var x = positions.action() == PositionAction::added_to_embeddings
              ? positions.add_to_embeddings(embeddings)
              : embeddings;
  return dropout ? dropout->forward(x) : x;
}

std::unique_ptr<Dropout> make_embedding_dropout(const TransformerConfig& c, Generator& gen) {
  return std::make_unique<Dropout>(c.embedding_dropout, gen, c.spatial_embedding_dropout);
}

void check_ids(const Tensor& ids, const char* what) {
  if (ids.dtype() != DType::i32 || ids.shape().rank() != 2)
    throw ShapeError(std::string(what) + ": expected i32 ids [batch, length], got " +
                     dtype_name(ids.dtype()) + " " + ids.shape().str());
}

}  // namespace

Tensor token_mask(const Tensor& ids, std::int32_t pad) {
  Tensor mask = Tape::current().alloc(ids.shape(), DType::b8);
  const std::int32_t* p = ids.data<std::int32_t>();
  auto* m = mask.data<std::uint8_t>();
  for (std::int64_t i = 0, n = ids.numel(); i < n; ++i) m[i] = p[i] != pad;
  return mask;
}

// ---- Seq2SeqTransformer --------------------------------------------------------------

Seq2SeqTransformer::Seq2SeqTransformer(const TransformerConfig& config,
                                       const VocabularyOptions& vocab, std::uint64_t seed)
    : init_(seed), dropout_(Generator(seed).fork(kDropoutStream)), config_(config), vocab_(vocab) {
  BuildContext ctx = make_build_context(config, init_, dropout_);
  add_random_stream("dropout", dropout_);
  if (vocab.source_vocab <= 0 || vocab.target_vocab <= 0)
    throw std::invalid_argument("seq2seq: vocabulary sizes must be positive");
  if (vocab.share_embeddings && vocab.source_vocab != vocab.target_vocab)
    throw std::invalid_argument(
        "seq2seq: sharing embeddings needs equal source and target vocabularies (" +
        std::to_string(vocab.source_vocab) + " vs " + std::to_string(vocab.target_vocab) + ")");
  auto table = [&](std::int64_t v) {
    return std::make_unique<Embedding>(v, config.d_model, init_, vocab.pad, config.scale_embeddings,
                                       config.dtype);
  };
  if (vocab.share_embeddings) {
    src_embed_ = tgt_embed_ = &add_module("embedding", table(vocab.source_vocab));
  } else {
    src_embed_ = &add_module("source_embedding", table(vocab.source_vocab));
    tgt_embed_ = &add_module("target_embedding", table(vocab.target_vocab));
  }
  src_positions_ = &add_module("source_positions", make_positions(config, ctx));
  tgt_positions_ = &add_module("target_positions", make_positions(config, ctx));
  if (config.embedding_dropout > 0)
    embedding_dropout_ = &add_module("embedding_dropout", make_embedding_dropout(config, dropout_));
  encoder_ = &add_module("encoder",
                         std::make_unique<TransformerEncoder>(config, ctx, config.encoder_layers));
  decoder_ = &add_module("decoder",
                         std::make_unique<TransformerDecoder>(config, ctx, config.decoder_layers));
  if (!vocab.tie_output)
    output_ = &add_module("output", std::make_unique<Linear>(config.d_model, vocab.target_vocab,
                                                             true, init_, config.dtype));
}

Var Seq2SeqTransformer::embed(Embedding& table, PositionEncoding& positions, const Tensor& ids) {
  return embedded(positions, embedding_dropout_, table.forward(ids));
}

Var Seq2SeqTransformer::encode(const Tensor& src) {
  check_ids(src, "seq2seq source");
  return encoder_->forward(embed(*src_embed_, *src_positions_, src), token_mask(src, vocab_.pad),
                           false, src_positions_);
}

Var Seq2SeqTransformer::embed_target(const Tensor& tgt_in) {
  return embed(*tgt_embed_, *tgt_positions_, tgt_in);
}

Var Seq2SeqTransformer::project_output(const Var& h) {
  return output_ ? output_->forward(h) : matmul(h, leaf(tgt_embed_->weight()), false, true);
}

Var Seq2SeqTransformer::decode(const Tensor& tgt_in, const Var& memory, const Tensor& src) {
  check_ids(tgt_in, "seq2seq target");
  Var h = decoder_->forward(embed_target(tgt_in), memory, token_mask(tgt_in, vocab_.pad),
                            token_mask(src, vocab_.pad), tgt_positions_);
  return project_output(h);
}

Var Seq2SeqTransformer::forward(const Tensor& src, const Tensor& tgt_in) {
  return decode(tgt_in, encode(src), src);
}

Var Seq2SeqTransformer::forward_embedded(const Var& src_emb, const Var& tgt_emb,
                                         const Tensor& src_mask, const Tensor& tgt_mask) {
  Var memory = encoder_->forward(src_emb, src_mask, false, src_positions_);
  return decoder_->forward(tgt_emb, memory, tgt_mask, src_mask, tgt_positions_);
}

Tensor Seq2SeqTransformer::greedy_decode(const Tensor& src, std::int64_t max_len,
                                         DecodeMethod method, std::vector<Tensor>* step_logits) {
  check_ids(src, "greedy_decode source");
  NoGradGuard no_grad;
  std::int64_t B = src.shape()[0];
  // The full recompute re-runs the decoder on the whole prefix at every step. On one tape
  // those steps would pile up (O(max_len²) activations: 1.6 GB per evaluation of a
  // d_model 256 model, all of it page-faulted in), so the steps run on this thread's
  // decoding tape, reset between steps, with the encoder output kept as a constant.
  thread_local Tape decoding_tape;
  TapeScope scope(decoding_tape);
  decoding_tape.reset();
  Tensor memory_value = encode(src).value().clone();
  const char* refused = method == DecodeMethod::full_recompute ? "" : why_not_incremental(*this);
  std::optional<IncrementalDecoder> incremental;
  if (!refused) {
    incremental.emplace(*this, src, memory_value, max_len);
    ++decode_path_.incremental;
  } else {
    ++decode_path_.full_recompute;
    if (*refused && decode_path_.why_not_incremental.empty())
      decode_path_.why_not_incremental = refused;
  }
  std::int64_t V = vocab_.target_vocab;
  // The logits [B, V] of the position after the prefix [B, L].
  auto next_logits = [&](const std::vector<std::int32_t>& prefix, std::int64_t L) {
    decoding_tape.reset();
    if (incremental) return incremental->step(prefix, L);
    Tensor all = decode(Tensor::from_data({B, L}, prefix), constant(memory_value), src).value();
    Tensor last = decoding_tape.alloc({B, V}, all.dtype());
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t v = 0; v < V; ++v) last.set(b * V + v, all.at((b * L + L - 1) * V + v));
    return last;
  };
  // prefix [B, 1 + t]: BOS then the tokens chosen so far.
  std::vector<std::int32_t> prefix(std::size_t(B), vocab_.bos);
  std::vector<bool> done(std::size_t(B), false);
  Tensor out = Tensor::full({B, max_len}, vocab_.pad, DType::i32);
  for (std::int64_t t = 0; t < max_len; ++t) {
    throw_if_interrupted();  // up to max_len decoder calls: a stop must not wait for them
    std::int64_t L = t + 1;
    Tensor logits = next_logits(prefix, L);
    if (step_logits) step_logits->push_back(logits.clone());
    bool all_done = true;
    std::vector<std::int32_t> next(std::size_t(B * (L + 1)));
    for (std::int64_t b = 0; b < B; ++b) {
      std::int64_t base = b * V, best = 0;
      for (std::int64_t v = 1; v < V; ++v)
        if (logits.at(base + v) > logits.at(base + best)) best = v;
      std::int32_t token = done[std::size_t(b)] ? vocab_.pad : std::int32_t(best);
      if (!done[std::size_t(b)]) out.set(b * max_len + t, token);
      if (token == vocab_.eos) done[std::size_t(b)] = true;
      all_done = all_done && done[std::size_t(b)];
      std::copy(prefix.begin() + b * L, prefix.begin() + (b + 1) * L, next.begin() + b * (L + 1));
      next[std::size_t(b * (L + 1) + L)] = token;
    }
    prefix = std::move(next);
    if (all_done) {
      Tensor trimmed = Tensor::empty({B, t + 1}, DType::i32);
      for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t j = 0; j <= t; ++j) trimmed.set(b * (t + 1) + j, out.at(b * max_len + j));
      return trimmed;
    }
  }
  return out;
}

// ---- EncoderClassifier ---------------------------------------------------------------

EncoderClassifier::EncoderClassifier(const TransformerConfig& config, std::int64_t vocab,
                                     std::int64_t classes, std::int32_t pad, std::uint64_t seed)
    : init_(seed), dropout_(Generator(seed).fork(kDropoutStream)), pad_(pad) {
  BuildContext ctx = make_build_context(config, init_, dropout_);
  add_random_stream("dropout", dropout_);
  embed_ =
      &add_module("embedding", std::make_unique<Embedding>(vocab, config.d_model, init_, pad,
                                                           config.scale_embeddings, config.dtype));
  positions_ = &add_module("positions", make_positions(config, ctx));
  if (config.embedding_dropout > 0)
    embedding_dropout_ = &add_module("embedding_dropout", make_embedding_dropout(config, dropout_));
  encoder_ = &add_module("encoder",
                         std::make_unique<TransformerEncoder>(config, ctx, config.encoder_layers));
  head_ = &add_module("head",
                      std::make_unique<Linear>(config.d_model, classes, true, init_, config.dtype));
}

Var EncoderClassifier::forward(const Tensor& ids) {
  check_ids(ids, "classifier input");
  Tensor mask = token_mask(ids, pad_);
  Var h = encoder_->forward(embedded(*positions_, embedding_dropout_, embed_->forward(ids)), mask,
                            false, positions_);
  // Masked mean over time: Σ_t h·m / Σ_t m.
  std::int64_t B = ids.shape()[0], T = ids.shape()[1];
  Tape& tape = Tape::current();
  Tensor weights = tape.alloc({B, T, 1}, h.dtype());
  for (std::int64_t b = 0; b < B; ++b) {
    double count = 0;
    for (std::int64_t t = 0; t < T; ++t) count += mask.at(b * T + t);
    for (std::int64_t t = 0; t < T; ++t)
      weights.set(b * T + t, count > 0 ? mask.at(b * T + t) / count : 0.0);
  }
  return head_->forward(sum(h * constant(weights), 1));
}

// ---- EncoderRegressor ----------------------------------------------------------------

EncoderRegressor::EncoderRegressor(const TransformerConfig& config, std::int64_t in_features,
                                   std::int64_t horizon, std::int64_t out_features,
                                   std::uint64_t seed, Readout readout, std::int64_t lookback)
    : init_(seed),
      dropout_(Generator(seed).fork(kDropoutStream)),
      horizon_(horizon),
      out_features_(out_features),
      readout_(readout),
      lookback_(lookback) {
  if (readout == Readout::flatten && lookback < 1)
    throw std::invalid_argument("EncoderRegressor: the flatten readout needs the lookback (>= 1)");
  BuildContext ctx = make_build_context(config, init_, dropout_);
  add_random_stream("dropout", dropout_);
  input_ = &add_module(
      "input", std::make_unique<Linear>(in_features, config.d_model, true, init_, config.dtype));
  positions_ = &add_module("positions", make_positions(config, ctx));
  if (config.embedding_dropout > 0)
    embedding_dropout_ = &add_module("embedding_dropout", make_embedding_dropout(config, dropout_));
  encoder_ = &add_module("encoder",
                         std::make_unique<TransformerEncoder>(config, ctx, config.encoder_layers));
  const std::int64_t head_in =
      readout == Readout::flatten ? lookback * config.d_model : config.d_model;
  head_ = &add_module(
      "head", std::make_unique<Linear>(head_in, horizon * out_features, true, init_, config.dtype));
}

Var EncoderRegressor::forward(const Var& x) {
  if (x.shape().rank() != 3)
    throw ShapeError("regressor input: expected [batch, lookback, features], got " +
                     x.shape().str());
  if (readout_ == Readout::flatten && x.shape()[1] != lookback_)
    throw ShapeError("regressor input: the flatten readout was built for " +
                     std::to_string(lookback_) + " steps, got " + x.shape().str());
  Var h = encoder_->forward(embedded(*positions_, embedding_dropout_, input_->forward(x)), Tensor(),
                            false, positions_);
  Var pooled = readout_ == Readout::flatten
                   ? reshape(h, {x.shape()[0], h.shape()[1] * h.shape()[2]})
                   : mean(h, 1);
  Var y = head_->forward(pooled);
  return reshape(y, {x.shape()[0], horizon_, out_features_});
}

// ---- DecoderLanguageModel ------------------------------------------------------------

DecoderLanguageModel::DecoderLanguageModel(const TransformerConfig& config, std::int64_t vocab,
                                           std::int32_t pad, bool tie_output, std::uint64_t seed,
                                           std::int64_t output_vocab)
    : init_(seed),
      dropout_(Generator(seed).fork(kDropoutStream)),
      pad_(pad),
      vocab_(vocab),
      output_vocab_(output_vocab == 0 ? vocab : output_vocab) {
  if (vocab <= 0 || output_vocab_ <= 0 || output_vocab_ > vocab)
    throw std::invalid_argument("decoder: the output vocabulary (" + std::to_string(output_vocab_) +
                                ") must be positive and at most the input vocabulary (" +
                                std::to_string(vocab) + ")");
  BuildContext ctx = make_build_context(config, init_, dropout_);
  add_random_stream("dropout", dropout_);
  embed_ =
      &add_module("embedding", std::make_unique<Embedding>(vocab, config.d_model, init_, pad,
                                                           config.scale_embeddings, config.dtype));
  positions_ = &add_module("positions", make_positions(config, ctx));
  if (config.embedding_dropout > 0)
    embedding_dropout_ = &add_module("embedding_dropout", make_embedding_dropout(config, dropout_));
  layers_ = &add_module("decoder",
                        std::make_unique<TransformerEncoder>(config, ctx, config.decoder_layers));
  if (!tie_output)
    output_ = &add_module("output", std::make_unique<Linear>(config.d_model, output_vocab_, true,
                                                             init_, config.dtype));
}

Var DecoderLanguageModel::forward(const Tensor& ids) {
  check_ids(ids, "language model input");
  Var h = layers_->forward(embedded(*positions_, embedding_dropout_, embed_->forward(ids)),
                           token_mask(ids, pad_), true, positions_);
  if (output_) return output_->forward(h);
  Var table = leaf(embed_->weight());
  return matmul(h, output_vocab_ == vocab_ ? table : slice(table, 0, 0, output_vocab_), false,
                true);
}

}  // namespace ablate::nn
