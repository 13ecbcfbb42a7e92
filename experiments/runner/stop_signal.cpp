#include "experiments/runner/stop_signal.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <csignal>
#include <ctime>

#include "nn/interrupt.h"

namespace ablate::experiments {

namespace {

std::atomic<int> g_stop{0};
struct sigaction g_previous_int, g_previous_term;

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// Records the stop; a second SIGINT ends the process at once, by the default action
// (unblocked first: the waiting thread blocks it). Async-signal-safe: it is also the
// handler, for threads that existed before the signals were blocked (a library's idle
// pool, started when it was loaded) — they may still be the one a signal is delivered to.
void note_stop(int signal) {
  if (g_stop.exchange(signal) != 0 && signal == SIGINT) {
    std::signal(SIGINT, SIG_DFL);
    sigset_t interrupt;
    sigemptyset(&interrupt);
    sigaddset(&interrupt, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &interrupt, nullptr);
    std::raise(SIGINT);
  }
}

bool stop_asked() {
  return g_stop.load(std::memory_order_relaxed) != 0;
}

}  // namespace

// Why a waiting thread rather than the handler alone: the kernel delivers a signal to
// any thread that does not block it, and one delivered to a thread inside oneDNN's
// GEMM corrupted the heap — a 2-job run stopped by Ctrl-C aborted with "corrupted size
// vs. prev_size while consolidating" in the free() at the end of dnnl_sgemm, about once
// in ten tries on a loaded machine (2026-12-06; 43 runs without the signal did not). So this
// thread, and every thread started from now on (the trial workers, OpenMP's), blocks
// SIGINT and SIGTERM, and a thread that computes nothing takes them.
StopOnSignals::StopOnSignals() {
  g_stop = 0;
  struct sigaction action = {};
  action.sa_handler = note_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
  nn::set_interrupt_check(stop_asked);
  const sigset_t stops = stop_signals();
  pthread_sigmask(SIG_BLOCK, &stops, &previous_mask_);
  waiter_ = std::thread([this, stops] {
    while (!done_.load()) {
      const timespec tick{0, 50'000'000};  // how soon the destructor's join returns
      if (const int signal = sigtimedwait(&stops, nullptr, &tick); signal > 0) note_stop(signal);
    }
  });
}

StopOnSignals::~StopOnSignals() {
  done_ = true;
  waiter_.join();
  // A signal that came after the waiter's last look: the run is over, nothing to stop.
  const sigset_t stops = stop_signals();
  const timespec now{0, 0};
  while (sigtimedwait(&stops, nullptr, &now) > 0) {
  }
  nn::set_interrupt_check(nullptr);
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

int stop_signal() {
  return g_stop.load(std::memory_order_relaxed);
}

void throw_if_stopped() {
  if (stop_signal()) throw nn::Interrupted("interrupted: asked to stop");
}

}  // namespace ablate::experiments
