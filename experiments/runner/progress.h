#pragma once
// The progress line on stderr while a sweep runs: trials done/total, each running
// trial's step and loss, and an ETA from the steps done so far. On a terminal it is
// redrawn in place (at most 4 times a second); otherwise a plain line every 10 s.
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace ablate::experiments {

// "model.attention.qk=shared model.attention.scale=0.5 seed=1" → "qk=shared scale=0.5
// seed=1": a running trial's swept values, short enough for one line with a trial per
// core (the progress line shows them instead of the trial's hex id).
std::string short_label(const std::string& label);

class Progress {
 public:
  // `round`: shown before the counts ("round 2, 3 points open"; "" for none).
  Progress(int total_trials, int already_done, bool enabled, std::string round = "");
  int start(const std::string& id, const std::string& label, std::int64_t steps);
  void update(int slot, std::int64_t step, double loss);
  void finish(int slot, const std::string& status);
  void done();

 private:
  struct Running {
    std::string id, label;
    std::int64_t step = 0, steps = 0;
    double loss = 0;
    bool active = false;
  };
  void maybe_print(bool force);
  std::string line() const;

  std::mutex mutex_;
  std::string round_;
  bool enabled_, tty_;
  int total_, done_, failed_ = 0;
  std::int64_t steps_done_ = 0, steps_started_total_ = 0;
  std::vector<Running> running_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace ablate::experiments
