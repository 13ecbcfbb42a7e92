// The three activations share the Linear–activation–dropout–Linear frame, so they are
// one class with the activation as a function.
#include "nn/feed_forward.h"

namespace ablate::nn {

namespace {

enum class Activation { relu, gelu_erf, gelu_tanh, glu };

class PositionwiseFeedForward : public FeedForward {
 public:
  PositionwiseFeedForward(const BuildContext& c, Activation act) : act_(act), d_ff_(c.d_ff) {
    if (c.d_ff <= 0) throw std::invalid_argument("ffn: d_ff must be positive");
    std::int64_t inner = act == Activation::glu ? 2 * c.d_ff : c.d_ff;
    linear1_ = &add_module("linear1",
                           std::make_unique<Linear>(c.d_model, inner, true, c.init_rng(), c.dtype));
    linear2_ = &add_module(
        "linear2", std::make_unique<Linear>(c.d_ff, c.d_model, true, c.init_rng(), c.dtype));
    if (c.dropout > 0)
      dropout_ =
          &add_module("dropout", std::make_unique<Dropout>(c.dropout, c.dropout_generator()));
  }

  Var forward(const Var& x) override {
    Var h = act_ == Activation::relu ? linear1_->forward_relu(x) : linear1_->forward(x);
    switch (act_) {
      case Activation::relu:
        break;  // fused into linear1
      case Activation::gelu_erf:
        h = gelu_erf(h);
        break;
      case Activation::gelu_tanh:
        h = gelu_tanh(h);
        break;
      case Activation::glu: {
        int last = h.shape().rank() - 1;
        h = slice(h, last, 0, d_ff_) * sigmoid(slice(h, last, d_ff_, 2 * d_ff_));
        break;
      }
    }
    if (dropout_) h = dropout_->forward(h);
    return linear2_->forward(h);
  }

 private:
  Activation act_;
  std::int64_t d_ff_;
  Linear* linear1_;
  Linear* linear2_;
  Dropout* dropout_ = nullptr;
};

}  // namespace

FeedForwardRegistry& feed_forward_registry() {
  static FeedForwardRegistry registry = [] {
    FeedForwardRegistry r("ffn");
    r.add({"relu",
           "Linear, ReLU, Linear (Vaswani et al. 2017)",
           {},
           [](const Options&, const BuildContext& c) {
             return std::make_unique<PositionwiseFeedForward>(c, Activation::relu);
           }});
    r.add({"gelu",
           "Linear, GELU, Linear (BERT, GPT)",
           {{"approximate",
             std::string("none"),
             "exact erf form, or the tanh approximation",
             std::nullopt,
             std::nullopt,
             {"none", "tanh"}}},
           [](const Options& o, const BuildContext& c) {
             return std::make_unique<PositionwiseFeedForward>(
                 c, o.get_string("approximate") == "tanh" ? Activation::gelu_tanh
                                                          : Activation::gelu_erf);
           }});
    r.add({"glu",
           "gated linear unit: a ⊙ sigmoid(b) (Dauphin et al. 2017)",
           {},
           [](const Options&, const BuildContext& c) {
             return std::make_unique<PositionwiseFeedForward>(c, Activation::glu);
           }});
    return r;
  }();
  return registry;
}

}  // namespace ablate::nn
