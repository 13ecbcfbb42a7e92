#pragma once
// Token embedding: a [vocab, d_model] table looked up by i32 ids. Options: a padding
// id whose row gets no gradient; scaling by sqrt(d_model) as in "Attention Is All You
// Need" (§3.4); pretrained vectors from a word2vec text file; freezing.
#include <map>
#include <string>

#include "nn/module.h"

namespace ablate::nn {

class Embedding : public Module {
 public:
  // "weight" [vocab, dim] ~ N(0, 1/dim) (keeps ×sqrt(dim) outputs at unit scale); the
  // padding row starts at zero.
  Embedding(std::int64_t vocab, std::int64_t dim, Generator& gen, std::int64_t padding_index = -1,
            bool scale_by_sqrt_dim = false, DType dtype = DType::f32);

  // ids i32 [...] → [..., dim].
  Var forward(const Tensor& ids);

  // Loads rows from a word2vec text file ("count dim" header line optional, then
  // "word v1 … vdim" per line) for the words in `vocabulary` (word → row). Returns how
  // many rows were loaded. Throws naming the file and line for a malformed line or a
  // dimension mismatch. With freeze, the table gets no gradient afterwards.
  std::int64_t load_word2vec(const std::string& path,
                             const std::map<std::string, std::int64_t>& vocabulary, bool freeze);

  Parameter& weight() { return *weight_; }
  std::int64_t vocab() const { return vocab_; }
  std::int64_t dim() const { return dim_; }

 private:
  std::int64_t vocab_, dim_, padding_index_;
  bool scale_;
  Parameter* weight_;
};

}  // namespace ablate::nn
