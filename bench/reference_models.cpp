#include "bench/reference_models.h"

namespace ablate::bench {

ReferenceModel::ReferenceModel(const ReferenceConfig& config, std::uint64_t seed)
    : config_(config) {
  nn::TransformerConfig t;
  t.d_model = config.d_model;
  t.heads = config.heads;
  t.d_ff = config.d_ff;
  t.encoder_layers = config.encoder_layers;
  t.decoder_layers = config.decoder_layers;
  t.max_len = config.length;
  nn::VocabularyOptions vocab;
  vocab.source_vocab = vocab.target_vocab = config.vocab;
  model_ = std::make_unique<nn::Seq2SeqTransformer>(t, vocab, seed);
  optimizer_ = nn::optimizer_registry().create("adam", {}, model_->named_parameters());

  std::int64_t B = config.batch, T = config.length;
  Generator g(seed + 1);
  std::vector<std::int32_t> src(std::size_t(B * T)), tgt(std::size_t(B * T));
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < T; ++t) {
      // Tokens 3.. (0, 1, 2 are pad, BOS, EOS).
      src[std::size_t(b * T + t)] =
          std::int32_t(3 + g.next_u64() % std::uint64_t(config.vocab - 3));
      tgt[std::size_t(b * T + t)] = t == 0 ? vocab.bos : src[std::size_t(b * T + t - 1)];
    }
  src_ = Tensor::from_data({B, T}, src);
  tgt_in_ = Tensor::from_data({B, T}, tgt);
  targets_ = Tensor::from_data({B * T}, src);
}

Var ReferenceModel::loss() {
  Var logits = model_->forward(src_, tgt_in_);
  return cross_entropy(reshape(logits, {config_.batch * config_.length, config_.vocab}), targets_,
                       model_->vocabulary().pad);
}

double ReferenceModel::train_step() {
  Tape& tape = Tape::current();
  Var l = loss();
  double value = l.item();
  tape.backward(l);
  tape.reset();
  optimizer_->step(1e-4);
  optimizer_->zero_grad();
  return value;
}

double ReferenceModel::forward_only() {
  NoGradGuard no_grad;
  double value = loss().item();
  Tape::current().reset();
  return value;
}

}  // namespace ablate::bench
