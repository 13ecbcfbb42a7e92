#include "nn/layers/embedding.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "nn/init.h"

namespace ablate::nn {

Embedding::Embedding(std::int64_t vocab, std::int64_t dim, Generator& gen,
                     std::int64_t padding_index, bool scale_by_sqrt_dim, DType dtype)
    : vocab_(vocab), dim_(dim), padding_index_(padding_index), scale_(scale_by_sqrt_dim) {
  if (vocab <= 0 || dim <= 0)
    throw std::invalid_argument("Embedding: vocab and dim must be positive, got " +
                                std::to_string(vocab) + " and " + std::to_string(dim));
  if (padding_index >= vocab)
    throw std::invalid_argument("Embedding: padding index " + std::to_string(padding_index) +
                                " is outside the vocabulary of " + std::to_string(vocab));
  Tensor w = init::normal({vocab, dim}, gen, dtype, 1.0 / std::sqrt(double(dim)));
  if (padding_index >= 0)
    for (std::int64_t d = 0; d < dim; ++d) w.set(padding_index * dim + d, 0.0);
  weight_ = &add_parameter("weight", w);
}

Var Embedding::forward(const Tensor& ids) {
  Var e = gather_rows(leaf(*weight_), ids, padding_index_);
  return scale_ ? e * std::sqrt(double(dim_)) : e;
}

std::int64_t Embedding::load_word2vec(const std::string& path,
                                      const std::map<std::string, std::int64_t>& vocabulary,
                                      bool freeze) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open word2vec file");
  std::string line;
  std::int64_t line_no = 0, loaded = 0;
  std::vector<double> values;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string word;
    fields >> word;
    values.clear();
    double v;
    while (fields >> v) values.push_back(v);
    if (!fields.eof())
      throw std::runtime_error(path + ":" + std::to_string(line_no) +
                               ": a vector entry is not a number");
    if (line_no == 1 && values.size() == 1) continue;  // "count dim" header
    if (std::int64_t(values.size()) != dim_)
      throw std::runtime_error(path + ":" + std::to_string(line_no) + ": vector for '" + word +
                               "' has " + std::to_string(values.size()) +
                               " values, the embedding has " + std::to_string(dim_));
    auto it = vocabulary.find(word);
    if (it == vocabulary.end()) continue;
    if (it->second < 0 || it->second >= vocab_)
      throw std::out_of_range("word2vec vocabulary maps '" + word + "' to row " +
                              std::to_string(it->second) + ", outside the table of " +
                              std::to_string(vocab_));
    for (std::int64_t d = 0; d < dim_; ++d)
      weight_->value.set(it->second * dim_ + d, values[std::size_t(d)]);
    ++loaded;
  }
  if (freeze) weight_->requires_grad = false;
  return loaded;
}

}  // namespace ablate::nn
