#pragma once
// A stop asked for from outside (Ctrl-C, a scheduler's SIGTERM) reaching nn's long
// loops. Decoding runs one model call per generated token — up to max_len of them per
// batch — so a caller that only looked between its own steps could wait minutes. nn
// knows nothing of signals: the application installs what "asked to stop" means
// (experiments/runner/stop_signal.h does), and the loops ask between iterations.
#include <stdexcept>

namespace ablate::nn {

// Thrown by throw_if_interrupted(): the work in progress is abandoned, not finished.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `asked` (async-signal-safe to read, e.g. an atomic flag) is consulted by every
// throw_if_interrupted() from then on, on every thread; nullptr (the default) never
// interrupts.
void set_interrupt_check(bool (*asked)());

// Throws Interrupted when the installed check says so. Cheap: one atomic load and a call.
void throw_if_interrupted();

}  // namespace ablate::nn
