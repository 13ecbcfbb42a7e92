#include "experiments/runner/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace ablate::experiments {

using Clock = std::chrono::steady_clock;

Progress::Progress(int total_trials, int already_done, bool enabled, std::string round)
    : round_(std::move(round)),
      enabled_(enabled),
      tty_(::isatty(2) != 0),
      total_(total_trials),
      done_(already_done),
      start_(Clock::now()),
      last_print_(Clock::now()) {}

std::string short_label(const std::string& label) {
  std::istringstream in(label);
  std::string item, out;
  while (in >> item) {
    const std::size_t eq = item.find('='), dot = item.rfind('.', eq);
    if (!out.empty()) out += ' ';
    out.append(item, dot == std::string::npos || dot > eq ? 0 : dot + 1);
  }
  return out;
}

int Progress::start(const std::string& id, const std::string& label, std::int64_t steps) {
  std::lock_guard<std::mutex> g(mutex_);
  steps_started_total_ += steps;
  for (std::size_t i = 0; i < running_.size(); ++i)
    if (!running_[i].active) {
      running_[i] = {id, label, 0, steps, 0, true};
      return int(i);
    }
  running_.push_back({id, label, 0, steps, 0, true});
  return int(running_.size() - 1);
}

void Progress::update(int slot, std::int64_t step, double loss) {
  std::lock_guard<std::mutex> g(mutex_);
  running_[std::size_t(slot)].step = step;
  running_[std::size_t(slot)].loss = loss;
  maybe_print(false);
}

void Progress::finish(int slot, const std::string& status) {
  std::lock_guard<std::mutex> g(mutex_);
  Running& r = running_[std::size_t(slot)];
  steps_done_ += r.steps;  // an early stop counts as done: the ETA looks forward
  r.active = false;
  ++done_;
  if (status == "failed") ++failed_;
  if (enabled_ && !tty_ && status != "ok")
    std::fprintf(stderr, "trial %s (%s): %s\n", r.id.c_str(), r.label.c_str(), status.c_str());
  maybe_print(true);
}

std::string Progress::line() const {
  std::ostringstream s;
  s << "[" << (round_.empty() ? "" : round_ + ": ") << done_ << "/" << total_ << " trials";
  if (failed_) s << ", " << failed_ << " failed";
  s << "]";
  std::int64_t current = 0, remaining = 0;
  for (const Running& r : running_)
    if (r.active) {
      const std::string swept = short_label(r.label);
      s << "  " << (swept.empty() ? r.id.substr(0, 6) : swept) << " step " << r.step << "/"
        << r.steps << " loss ";
      s.precision(3);
      s << r.loss;
      current += r.step;
      remaining += r.steps - r.step;
    }
  double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  std::int64_t progressed = steps_done_ + current;
  // Trials not started yet are assumed as long as the average started one.
  int started = done_ + int(std::count_if(running_.begin(), running_.end(),
                                          [](const Running& r) { return r.active; }));
  if (progressed > 0 && seconds > 1) {
    double per_step = seconds / double(progressed);
    double average = started ? double(steps_started_total_) / double(started) : 0;
    double left = double(remaining) + average * double(total_ - started);
    int eta = int(per_step * left);
    s << "  ETA " << eta / 60 << "m" << (eta % 60 < 10 ? "0" : "") << eta % 60 << "s";
  }
  return s.str();
}

void Progress::maybe_print(bool force) {
  if (!enabled_) return;
  auto now = Clock::now();
  auto since = std::chrono::duration<double>(now - last_print_).count();
  if (tty_) {
    if (!force && since < 0.25) return;
    std::fprintf(stderr, "\r\033[K%s", line().c_str());
  } else {
    if (since < 10.0) return;
    std::fprintf(stderr, "%s\n", line().c_str());
  }
  std::fflush(stderr);
  last_print_ = now;
}

void Progress::done() {
  std::lock_guard<std::mutex> g(mutex_);
  if (!enabled_) return;
  if (tty_) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s\n", line().c_str());
}

}  // namespace ablate::experiments
