#pragma once
// The progress line on stderr while a sweep runs: trials done/total, each running
// trial's step and loss, and an ETA from the steps done so far. On a terminal it is
// redrawn in place (at most 4 times a second) and cut to the terminal's width, so that
// it never wraps (a wrapped line cannot be redrawn and leaves debris); otherwise a
// plain line every 10 s. Before it, one line says what will run and where.
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace ablate::experiments {

// "model.attention.qk=shared model.attention.scale=0.5 seed=1" → "qk=shared scale=0.5
// seed=1": a running trial's swept values, short enough for one line with a trial per
// core (the progress line shows them instead of the trial's hex id).
std::string short_label(const std::string& label);

// "running 6 of 8 trials (2 already done) into runs/quickstart/ with 2 jobs": printed
// before the first progress line, so that a log says at once what it is of.
std::string start_line(std::size_t to_run, std::size_t total, std::size_t already_done,
                       const std::string& run_dir, const std::string& workers);

// `line` cut to `columns` characters (UTF-8 code points), "…" marking the cut.
std::string fit_to_width(const std::string& line, std::size_t columns);

class Progress {
 public:
  // `round`: shown before the counts ("round 2, 3 points open"; "" for none).
  Progress(int total_trials, int already_done, bool enabled, std::string round = "");
  // The line as a terminal `columns` wide shows it: the counts and the ETA always, then
  // as many running trials as fit (each with its loss, else its step only), "+N more"
  // for the rest.
  std::string line(std::size_t columns) const;
  int start(const std::string& id, const std::string& label, std::int64_t steps);
  void update(int slot, std::int64_t step, double loss);
  void finish(int slot, const std::string& status);
  void done();

 private:
  struct Running {
    std::string id, label;
    std::int64_t step = 0, steps = 0;
    double loss = 0;
    bool active = false, has_loss = false;  // no loss before its first step
  };
  void maybe_print(bool force);
  std::string counts() const;
  std::string eta() const;

  std::mutex mutex_;
  std::string round_;
  bool enabled_, tty_;
  int total_, done_, failed_ = 0;
  std::int64_t steps_done_ = 0, steps_started_total_ = 0;
  std::vector<Running> running_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace ablate::experiments
