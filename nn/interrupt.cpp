#include "nn/interrupt.h"

#include <atomic>

namespace ablate::nn {

namespace {
std::atomic<bool (*)()> g_asked{nullptr};
}

void set_interrupt_check(bool (*asked)()) {
  g_asked.store(asked);
}

void throw_if_interrupted() {
  if (bool (*asked)() = g_asked.load(std::memory_order_relaxed); asked && asked())
    throw Interrupted("interrupted: asked to stop");
}

}  // namespace ablate::nn
