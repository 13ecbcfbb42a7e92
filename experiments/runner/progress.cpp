#include "experiments/runner/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

namespace {

std::size_t code_points(const std::string& text) {
  return std::size_t(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// The terminal's width: stderr's, else $COLUMNS, else 80.
std::size_t terminal_columns() {
  winsize size{};
  if (::ioctl(2, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"); columns && std::atoi(columns) > 0)
    return std::size_t(std::atoi(columns));
  return 80;
}

}  // namespace

std::string fit_to_width(const std::string& line, std::size_t columns) {
  if (code_points(line) <= columns) return line;
  std::string out;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const bool starts_code_point = (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
    if (starts_code_point && ++kept > (columns ? columns - 1 : 0)) break;
    out += line[i];
  }
  return columns ? out + "…" : out;
}

std::string start_line(std::size_t to_run, std::size_t total, std::size_t already_done,
                       const std::string& run_dir, const std::string& workers) {
  std::ostringstream s;
  s << "running " << to_run << " of " << total << " trial" << (total == 1 ? "" : "s");
  if (already_done) s << " (" << already_done << " already done)";
  s << " into " << run_dir << "/ with " << workers;
  return s.str();
}

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
      running_[i] = {id, label, 0, steps, 0, true, false};
      return int(i);
    }
  running_.push_back({id, label, 0, steps, 0, true, false});
  return int(running_.size() - 1);
}

void Progress::update(int slot, std::int64_t step, double loss) {
  std::lock_guard<std::mutex> g(mutex_);
  running_[std::size_t(slot)].step = step;
  running_[std::size_t(slot)].loss = loss;
  running_[std::size_t(slot)].has_loss = true;
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

std::string Progress::counts() const {
  std::ostringstream s;
  s << "[" << (round_.empty() ? "" : round_ + ": ") << done_ << "/" << total_ << " trials";
  if (failed_) s << ", " << failed_ << " failed";
  s << "]";
  return s.str();
}

std::string Progress::eta() const {
  std::int64_t current = 0, remaining = 0;
  for (const Running& r : running_)
    if (r.active) {
      current += r.step;
      remaining += r.steps - r.step;
    }
  double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  std::int64_t progressed = steps_done_ + current;
  if (progressed <= 0 || seconds <= 1) return "";
  // Trials not started yet are assumed as long as the average started one.
  int started = done_ + int(std::count_if(running_.begin(), running_.end(),
                                          [](const Running& r) { return r.active; }));
  double per_step = seconds / double(progressed);
  double average = started ? double(steps_started_total_) / double(started) : 0;
  double left = double(remaining) + average * double(total_ - started);
  int eta = int(per_step * left);
  char text[32];
  std::snprintf(text, sizeof text, "  ETA %dm%02ds", eta / 60, eta % 60);
  return text;
}

std::string Progress::line(std::size_t columns) const {
  const std::string head = counts(), tail = eta();
  const std::size_t active = std::size_t(
      std::count_if(running_.begin(), running_.end(), [](const Running& r) { return r.active; }));
  std::string trials;
  std::size_t seen = 0, shown = 0;
  for (const Running& r : running_) {
    if (!r.active) continue;
    ++seen;
    const std::string swept = short_label(r.label);
    const std::string name = "  " + (swept.empty() ? r.id.substr(0, 6) : swept);
    std::ostringstream step, loss;
    step << " step " << r.step << "/" << r.steps;
    loss.precision(3);
    if (r.has_loss) loss << " loss " << r.loss;
    // Room for "  +N more" is kept while trials after this one may not fit.
    const std::size_t more = seen < active ? 10 : 0;
    const std::size_t room = columns - std::min(columns, code_points(head + trials + tail));
    if (code_points(name + step.str() + loss.str()) + more <= room)
      trials += name + step.str() + loss.str();
    else if (code_points(name + step.str()) + more <= room)
      trials += name + step.str();
    else
      continue;
    ++shown;
  }
  if (shown < active) trials += "  +" + std::to_string(active - shown) + " more";
  return fit_to_width(head + trials + tail, columns);
}

void Progress::maybe_print(bool force) {
  if (!enabled_) return;
  auto now = Clock::now();
  auto since = std::chrono::duration<double>(now - last_print_).count();
  if (tty_) {
    if (!force && since < 0.25) return;
    std::fprintf(stderr, "\r\033[K%s", line(terminal_columns() - 1).c_str());
  } else {
    if (since < 10.0) return;
    std::fprintf(stderr, "%s\n", line(std::string::npos).c_str());
  }
  std::fflush(stderr);
  last_print_ = now;
}

void Progress::done() {
  std::lock_guard<std::mutex> g(mutex_);
  if (!enabled_) return;
  if (tty_) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s\n", line(tty_ ? terminal_columns() - 1 : std::string::npos).c_str());
}

}  // namespace ablate::experiments
