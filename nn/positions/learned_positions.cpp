// Learned absolute positions (BERT, GPT): a trained max_len × d table added to the
// token embeddings. Sequences longer than max_len are an error.
#include "nn/init.h"
#include "nn/positions/position_encoding.h"

namespace ablate::nn {

namespace {

class LearnedPositions : public PositionEncoding {
 public:
  LearnedPositions(std::int64_t max_len, std::int64_t d, Generator& gen, DType dtype)
      : max_len_(max_len), d_(d) {
    table_ = &add_parameter("weight", init::normal({max_len, d}, gen, dtype, 0.02));
  }
  PositionAction action() const override { return PositionAction::added_to_embeddings; }
  Var add_to_embeddings(const Var& x) override {
    std::int64_t T = x.shape()[1];
    check_length(T, "learned");
    return x + slice(leaf(*table_), 0, 0, T);
  }
  std::int64_t max_len() const override { return max_len_; }

 private:
  std::int64_t max_len_, d_;
  Parameter* table_;
};

}  // namespace

void register_learned_positions(PositionRegistry& r) {
  r.add({"learned",
         "trained max_len × d_model table added to the embeddings (BERT, GPT)",
         {{"max_len", std::int64_t(512), "longest sequence (rows of the table)", 1, 1e7}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<LearnedPositions>(o.get_int("max_len"), c.d_model, c.init_rng(),
                                                     c.dtype);
         }});
}

}  // namespace ablate::nn
