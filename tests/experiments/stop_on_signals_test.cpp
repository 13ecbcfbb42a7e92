// StopOnSignals (experiments/runner/stop_signal.h): while a run has it, SIGINT and
// SIGTERM reach only its waiting thread — never a thread that computes (one delivered
// inside oneDNN's GEMM corrupted the heap) — and still ask the run to stop; afterwards
// the signal mask and handlers are the ones from before.
#include <catch2/catch.hpp>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "experiments/runner/stop_signal.h"
#include "nn/interrupt.h"

using ablate::experiments::stop_signal;
using ablate::experiments::StopOnSignals;

namespace {

bool blocks(int signal) {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return sigismember(&mask, signal) == 1;
}

// Waits up to 10 s for the run to be asked to stop.
bool stop_asked_within_seconds() {
  for (int i = 0; i < 1000 && !stop_signal(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return stop_signal() != 0;
}

}  // namespace

TEST_CASE("threads started during a run block SIGINT and SIGTERM, as does the one that starts them",
          "[signals]") {
  StopOnSignals stop;
  CHECK(blocks(SIGINT));
  CHECK(blocks(SIGTERM));
  bool worker_blocks_int = false, worker_blocks_term = false;
  std::thread worker([&] {
    worker_blocks_int = blocks(SIGINT);
    worker_blocks_term = blocks(SIGTERM);
  });
  worker.join();
  CHECK(worker_blocks_int);
  CHECK(worker_blocks_term);
}

TEST_CASE("a SIGTERM sent to the process asks the run to stop, and the workers' loops see it",
          "[signals]") {
  StopOnSignals stop;
  REQUIRE(stop_signal() == 0);
  REQUIRE(kill(getpid(), SIGTERM) == 0);
  REQUIRE(stop_asked_within_seconds());
  CHECK(stop_signal() == SIGTERM);
  bool interrupted = false;
  std::thread worker([&] {
    try {
      ablate::nn::throw_if_interrupted();
    } catch (const ablate::nn::Interrupted&) {
      interrupted = true;
    }
  });
  worker.join();
  CHECK(interrupted);
}

TEST_CASE("after a run the signal mask and the handlers are the ones from before", "[signals]") {
  sigset_t before_mask, after_mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &before_mask);
  struct sigaction before_int, before_term, after_int, after_term;
  sigaction(SIGINT, nullptr, &before_int);
  sigaction(SIGTERM, nullptr, &before_term);
  { StopOnSignals stop; }
  pthread_sigmask(SIG_BLOCK, nullptr, &after_mask);
  sigaction(SIGINT, nullptr, &after_int);
  sigaction(SIGTERM, nullptr, &after_term);
  for (int signal : {SIGINT, SIGTERM})
    CHECK(sigismember(&before_mask, signal) == sigismember(&after_mask, signal));
  CHECK(after_int.sa_handler == before_int.sa_handler);
  CHECK(after_term.sa_handler == before_term.sa_handler);
}
