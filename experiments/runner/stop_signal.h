#pragma once
// Ctrl-C (SIGINT) or a scheduler's SIGTERM during `ablate run`: the first asks running
// trials to stop at their next step boundary — they save their state there and are left
// unfinished (no summary.json; the next run continues them, resume_state.h). A trial
// that is evaluating stops inside it too, within one decoding step or batch
// (nn/interrupt.h): it saves nothing there, and the next run continues it from the
// state it saved last (every train.resume_every steps), or from step 0 — both give the
// results of an uninterrupted run. No new trial starts, and the run ends normally: reports for what
// finished, the lock released, one line saying what was kept and how to resume, exit 128 + the
// signal. A second SIGINT ends the process at once.
#include <signal.h>

#include <atomic>
#include <thread>

namespace ablate::experiments {

// Installs the handlers for its lifetime (restoring the previous ones after). Construct
// it on the thread that starts the workers, before it starts them: it blocks the two
// signals there, the workers inherit that, and a thread of its own waits for them.
class StopOnSignals {
 public:
  StopOnSignals();
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  sigset_t previous_mask_;
  std::atomic<bool> done_{false};
  std::thread waiter_;
};

// The signal that asked the run to stop (SIGINT or SIGTERM), or 0.
int stop_signal();

// Throws nn::Interrupted when a signal asked the run to stop: for loops that a stop
// must not wait for (evaluation batches, language-model sampling; nn's decoding loops
// ask the same through nn::throw_if_interrupted while the handlers are installed).
void throw_if_stopped();

}  // namespace ablate::experiments
