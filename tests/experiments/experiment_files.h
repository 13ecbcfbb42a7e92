#pragma once
// Helpers for experiment-file tests: a scratch directory per test, a tiny valid
// experiment, and running the `ablate` CLI as a child process.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/build_paths.h"
#include "tests/scratch_dir.h"

namespace ablate::experiments::testing {

// A scratch directory per test, unique to the object (tests/scratch_dir.h).
using ::ablate_tests::ScratchDir;

// A small, fast, valid experiment: override or append lines to vary it.
inline std::string tiny_experiment(const std::string& name = "tiny",
                                   const std::string& extra = "") {
  return "name = \"" + name +
         "\"\nseed = 3\n\n"
         "[task]\nkind = \"reverse\"\nvocab = 6\nmin_length = 2\nmax_length = 5\nvalidation_size = "
         "32\ntest_size = 32\n\n"
         "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\n\n"
         "[train]\nsteps = 30\nbatch = 8\nlr = 3e-3\neval_every = 10\n" +
         extra;
}

// `toml` (tiny_experiment's, or sweep_experiment's) with `steps` training steps
// instead of 30: the runs a test kills or signals mid-sweep train long enough that the
// signal lands before their last trial ends, however fast the machine.
inline std::string with_steps(std::string toml, int steps) {
  toml.replace(toml.find("steps = 30\n"), 11, "steps = " + std::to_string(steps) + "\n");
  return toml;
}

// The tiny experiment swept over 2 × 2 points × 2 seeds (8 trials).
inline std::string sweep_experiment(const std::string& name) {
  return tiny_experiment(name) +
         "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\n\"model.norm.kind\" = "
         "[\"layer\", \"batch\"]\n"
         "seeds = [0, 1]\n";
}

// The trial directory of a one-trial run ("" when it has none yet).
inline std::string only_trial(const std::string& run_dir) {
  for (const auto& d : std::filesystem::directory_iterator(run_dir + "/trials"))
    return d.path().string();
  return "";
}

// Trials of a run directory with a summary.json (finished, ok or not).
inline int finished_trials(const std::string& run_dir) {
  namespace fs = std::filesystem;
  int n = 0;
  if (!fs::exists(run_dir + "/trials")) return 0;
  for (const auto& d : fs::directory_iterator(run_dir + "/trials"))
    n += fs::exists(d.path() / "summary.json");
  return n;
}

// Starts `cli run file --out out --jobs 1 --quiet` as a child process and returns its
// pid, for the tests that signal or kill a run midway; its output goes to `log` when
// one is named (so the test can read what it said), else to the test's own.
inline pid_t start_run(const std::string& cli, const std::string& file, const std::string& out,
                       const std::string& log = "") {
  pid_t child = ::fork();
  if (child == 0) {
    if (!log.empty()) {
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execl(cli.c_str(), cli.c_str(), "run", file.c_str(), "--out", out.c_str(), "--jobs", "1",
            "--quiet", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return child;
}

// Waits until `happened()` — a trial count, a file a child process's run writes —
// for as long as it takes: a loaded machine only makes it later, so a test acts on
// the event itself, never on a guess of how long it takes. Returns false if `child`
// exits first (still to be waited for) or nothing happens for `hang_guard`, which only
// catches a hang (the child is then killed).
template <class Event>
bool wait_for(Event happened, pid_t child,
              std::chrono::minutes hang_guard = std::chrono::minutes(5)) {
  const auto give_up = std::chrono::steady_clock::now() + hang_guard;
  while (!happened()) {
    siginfo_t exited{};
    if (::waitid(P_PID, id_t(child), &exited, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        exited.si_pid == child)
      return happened();  // it may have happened just before the exit
    if (std::chrono::steady_clock::now() > give_up) {
      ::kill(child, SIGKILL);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// The trial ids `ablate check` lists, in order.
inline std::vector<std::string> ids_of(const std::string& check_output) {
  std::vector<std::string> ids;
  std::regex id("\n  ([0-9a-f]{16})  ");
  for (auto it = std::sregex_iterator(check_output.begin(), check_output.end(), id);
       it != std::sregex_iterator(); ++it)
    ids.push_back((*it)[1].str());
  return ids;
}

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command, capturing its output.
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  std::string full = command + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// docs/reference/NAME.md as committed, for the tests that check a page shows a generated
// table (the key tables, the calibration tables, the commands and exit statuses).
inline std::string reference_page(const std::string& name) {
  const std::string path = std::string(ABLATE_TEST_DATA_DIR) + "/../docs/reference/" + name + ".md";
  if (!std::filesystem::is_regular_file(path))
    throw std::runtime_error("no reference page " + path);
  return read_text(path);
}

// Every page of docs/reference/, by name (the file name without .md), in name order.
inline std::vector<std::pair<std::string, std::string>> reference_pages() {
  std::vector<std::pair<std::string, std::string>> pages;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ABLATE_TEST_DATA_DIR) +
                                                               "/../docs/reference"))
    if (entry.path().extension() == ".md")
      pages.emplace_back(entry.path().stem().string(), read_text(entry.path().string()));
  std::sort(pages.begin(), pages.end());
  return pages;
}

// results.csv without its last two columns (wall_seconds, steps_per_second — timings
// differ from run to run; everything else must not).
inline std::string results_without_timings(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line)) {
    for (int i = 0; i < 2; ++i) line = line.substr(0, line.rfind(','));
    out += line + "\n";
  }
  return out;
}

// A trial's summary.json without its timings (wall time, speed, peak RSS, and the
// seconds of its final and best evaluations) and without resumed_from_step: what must
// not depend on where it ran, or on whether it was stopped and resumed on the way.
// Without `provenance` too: it records the command line that made the trial (another
// --out, another argv), not a result; provenance_test.cpp checks it.
inline nlohmann::json summary_without_timings(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  j.erase("provenance");
  for (const char* key : {"wall_seconds", "steps_per_second", "peak_rss_mib", "resumed_from_step"})
    j.erase(key);
  for (const char* part : {"final", "best"})
    if (j.contains(part)) j[part].erase("seconds");
  return j;
}

// Every trial of run directory `a` has the same summary.json (timings aside) in `b`;
// returns the ids that differ or are missing there.
inline std::vector<std::string> summaries_differing(const std::string& a, const std::string& b) {
  std::vector<std::string> differing;
  for (const auto& d : std::filesystem::directory_iterator(a + "/trials")) {
    std::string id = d.path().filename().string();
    std::string other = b + "/trials/" + id + "/summary.json";
    if (!std::filesystem::exists(other) ||
        summary_without_timings(read_text(d.path().string() + "/summary.json")) !=
            summary_without_timings(read_text(other)))
      differing.push_back(id);
  }
  return differing;
}

// The lines of a text, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A line split at every `separator` (no quoting: the files compared here have none).
inline std::vector<std::string> fields_of(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::size_t from = 0;
  for (std::size_t at; (at = line.find(separator, from)) != std::string::npos; from = at + 1)
    fields.push_back(line.substr(from, at - from));
  fields.push_back(line.substr(from));
  return fields;
}

// The rows of a TSV text (predictions.tsv, `ablate predict`'s output), header skipped,
// each split at its tabs.
inline std::vector<std::vector<std::string>> tsv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> lines = lines_of(text);
  for (std::size_t i = 1; i < lines.size(); ++i) rows.push_back(fields_of(lines[i], '\t'));
  return rows;
}

// One line of a CSV file ablate writes, split at its commas: a field in double quotes
// may hold commas and doubled quotes (report_text.h's csv_field writes them so; no
// field holds a newline).
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// The rows of a CSV file ablate writes (results.csv, claims.csv), its header first.
inline std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : lines_of(text)) rows.push_back(csv_fields(line));
  return rows;
}

}  // namespace ablate::experiments::testing
