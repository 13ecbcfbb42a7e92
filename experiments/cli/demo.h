#pragma once
// A small end-to-end run through the tape, for `ablate demo`: a one-layer attention
// model learns to reverse short token sequences. It stands in for the default
// experiment until the TOML experiment runner exists.
#include <cstdint>
#include <iosfwd>

namespace ablate::experiments {

struct DemoOptions {
  int steps = 300;
  std::uint64_t seed = 0;
  int print_every = 25;
};

struct DemoResult {
  double first_loss = 0, final_loss = 0, final_accuracy = 0;
};

DemoResult run_demo(const DemoOptions& options, std::ostream& out);

}  // namespace ablate::experiments
