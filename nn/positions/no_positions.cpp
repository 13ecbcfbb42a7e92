// `none`: no position information at all (a bag of tokens, as an ablation baseline).
#include "nn/positions/position_encoding.h"

namespace ablate::nn {

namespace {
class NoPositions : public PositionEncoding {
 public:
  PositionAction action() const override { return PositionAction::none; }
};
}  // namespace

void register_no_positions(PositionRegistry& r) {
  r.add({"none",
         "no position information (the model sees a bag of tokens)",
         {},
         [](const Options&, const BuildContext&) { return std::make_unique<NoPositions>(); }});
}

}  // namespace ablate::nn
