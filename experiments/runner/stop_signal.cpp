#include "experiments/runner/stop_signal.h"

#include <atomic>
#include <csignal>

#include "nn/interrupt.h"

namespace ablate::experiments {

namespace {

std::atomic<int> g_stop{0};
struct sigaction g_previous_int, g_previous_term;

// Async-signal-safe: an atomic store, and for a second SIGINT the default action.
void on_signal(int signal) {
  if (g_stop.exchange(signal) != 0 && signal == SIGINT) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}

bool stop_asked() {
  return g_stop.load(std::memory_order_relaxed) != 0;
}

}  // namespace

StopOnSignals::StopOnSignals() {
  g_stop = 0;
  struct sigaction action = {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
  nn::set_interrupt_check(stop_asked);
}

StopOnSignals::~StopOnSignals() {
  nn::set_interrupt_check(nullptr);
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

int stop_signal() {
  return g_stop.load(std::memory_order_relaxed);
}

void throw_if_stopped() {
  if (stop_signal()) throw nn::Interrupted("interrupted: asked to stop");
}

}  // namespace ablate::experiments
