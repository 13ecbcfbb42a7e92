#pragma once
// Complete models: an encoder–decoder for sequence-to-sequence tasks, an encoder with
// a classification or regression head, and a decoder-only language model. Each owns
// its generators (initialisation from the seed, dropout from a fork of it), so the
// same config and seed give the same model and the same training run.
#include <string>
#include <vector>

#include "nn/layers/embedding.h"
#include "nn/transformer/decode_path_record.h"
#include "nn/transformer/transformer_stacks.h"

namespace ablate::nn {

struct VocabularyOptions {
  std::int64_t source_vocab = 0;
  std::int64_t target_vocab = 0;
  std::int32_t pad = 0, bos = 1, eos = 2;
  bool share_embeddings = false;  // one table for source and target (same vocabulary)
  bool tie_output = false;        // output projection = target embedding table
};

// Token mask b8 [B, T]: true where ids != pad. In the tape's arena.
Tensor token_mask(const Tensor& ids, std::int32_t pad);

class Seq2SeqTransformer : public Module {
 public:
  Seq2SeqTransformer(const TransformerConfig& config, const VocabularyOptions& vocab,
                     std::uint64_t seed);

  // src [B, Ts], tgt_in [B, Tt] (i32 ids, pad-padded) → logits [B, Tt, target_vocab].
  Var forward(const Tensor& src, const Tensor& tgt_in);
  Var encode(const Tensor& src);
  Var decode(const Tensor& tgt_in, const Var& memory, const Tensor& src);
  // The Transformer body alone, on embeddings (what torch.nn.Transformer computes):
  // src_emb [B, Ts, D], tgt_emb [B, Tt, D] → [B, Tt, D].
  Var forward_embedded(const Var& src_emb, const Var& tgt_emb, const Tensor& src_mask,
                       const Tensor& tgt_mask);
  // Greedy decoding, no gradient: [B, ≤ max_len] ids starting after BOS; finished
  // rows are padded. Runs on a per-thread tape of its own, reset between steps, so the
  // current tape is untouched and memory stays at one step's size.
  //   automatic       incrementally (cached keys and values, the newest position alone:
  //                   nn/transformer/incremental_decode.h) where that gives the full
  //                   recompute's bits, else the full recompute; decode_path_record() says
  //                   which ran and why not
  //   full_recompute  the decoder over the whole prefix at every step (O(max_len²))
  // step_logits (optional) receives each step's logits [B, target_vocab] of the newest
  // position, the numbers the tokens were chosen from.
  enum class DecodeMethod { automatic, full_recompute };
  Tensor greedy_decode(const Tensor& src, std::int64_t max_len,
                       DecodeMethod method = DecodeMethod::automatic,
                       std::vector<Tensor>* step_logits = nullptr);
  const DecodePathRecord& decode_path_record() const { return decode_path_; }

  const VocabularyOptions& vocabulary() const { return vocab_; }
  const TransformerConfig& config() const { return config_; }
  TransformerEncoder& encoder() { return *encoder_; }
  TransformerDecoder& decoder() { return *decoder_; }
  PositionEncoding& target_positions() { return *tgt_positions_; }
  // Target ids [B, T] → the decoder's input [B, T, D] (embeddings, positions, dropout).
  Var embed_target(const Tensor& tgt_in);
  // The decoder's output [..., D] → logits [..., target_vocab].
  Var project_output(const Var& h);

 private:
  Var embed(Embedding& table, PositionEncoding& positions, const Tensor& ids);
  Generator init_, dropout_;
  TransformerConfig config_;
  VocabularyOptions vocab_;
  Embedding* src_embed_;
  Embedding* tgt_embed_;
  PositionEncoding* src_positions_;
  PositionEncoding* tgt_positions_;
  TransformerEncoder* encoder_;
  TransformerDecoder* decoder_;
  Linear* output_ = nullptr;  // null when tied
  Dropout* embedding_dropout_ = nullptr;
  DecodePathRecord decode_path_;
};

// Encoder over token ids with a classification head on the masked mean of its outputs.
class EncoderClassifier : public Module {
 public:
  EncoderClassifier(const TransformerConfig& config, std::int64_t vocab, std::int64_t classes,
                    std::int32_t pad, std::uint64_t seed);
  Var forward(const Tensor& ids);  // [B, T] → logits [B, classes]

 private:
  Generator init_, dropout_;
  std::int32_t pad_;
  Embedding* embed_;
  PositionEncoding* positions_;
  TransformerEncoder* encoder_;
  Linear* head_;
  Dropout* embedding_dropout_ = nullptr;
};

// Encoder over real-valued sequences [B, L, F] with a regression head: the mean of
// the encoder outputs → [B, horizon, out_features] (multi-step forecasting).
// How the regressor's head reads the encoder's [B, T, d_model] output:
//   mean     the mean over time, then a linear map. Without positions the encoder is
//            permutation-equivariant, so the mean makes the whole model invariant to
//            the order of the input steps: it cannot forecast from order at all.
//   flatten  all T × d_model values at once (a linear map of every step's encoding in
//            its place, as DLinear-style heads do): the order is kept.
enum class Readout { mean, flatten };
// Every readout's name, in the enum's order ("mean", "flatten"), and the readout a name
// gives (std::invalid_argument for another): configuration declares its choices with them.
const std::vector<std::string>& readout_names();
Readout readout_named(const std::string& name);

class EncoderRegressor : public Module {
 public:
  // `lookback` (the input's T) sizes the flatten readout's head; mean accepts any T.
  EncoderRegressor(const TransformerConfig& config, std::int64_t in_features, std::int64_t horizon,
                   std::int64_t out_features, std::uint64_t seed, Readout readout = Readout::mean,
                   std::int64_t lookback = 0);
  Var forward(const Var& x);

 private:
  Generator init_, dropout_;
  std::int64_t horizon_, out_features_;
  Readout readout_;
  std::int64_t lookback_;
  Linear* input_;
  PositionEncoding* positions_;
  TransformerEncoder* encoder_;
  Linear* head_;
  Dropout* embedding_dropout_ = nullptr;
};

// Decoder-only model: causal self-attention layers, logits for the next token. A
// language model predicts its whole input vocabulary; a decoder-only model of a
// sequence task reads source and target tokens but predicts target tokens only:
// `output_vocab` (0 = vocab) logits, for the first output_vocab ids of the input
// vocabulary (with tie_output, the first output_vocab rows of the embedding table).
class DecoderLanguageModel : public Module {
 public:
  DecoderLanguageModel(const TransformerConfig& config, std::int64_t vocab, std::int32_t pad,
                       bool tie_output, std::uint64_t seed, std::int64_t output_vocab = 0);
  Var forward(const Tensor& ids);  // [B, T] → logits [B, T, output_vocab]

  std::int32_t pad() const { return pad_; }
  std::int64_t output_vocab() const { return output_vocab_; }

 private:
  Generator init_, dropout_;
  std::int32_t pad_;
  std::int64_t vocab_, output_vocab_;
  Embedding* embed_;
  PositionEncoding* positions_;
  TransformerEncoder* layers_;
  Linear* output_ = nullptr;
  Dropout* embedding_dropout_ = nullptr;
};

}  // namespace ablate::nn
