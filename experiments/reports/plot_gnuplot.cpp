#include "experiments/reports/plot_gnuplot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace ablate::experiments {

std::string gp_string(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "''";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

std::string gp_comment(const std::string& text) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

std::string gp_number(double value) {
  // gnuplot reads "nan"/"inf" inconsistently; callers drop non-finite values, this is
  // a last guard that makes such a value an undefined point rather than a bad file.
  if (!std::isfinite(value)) return "NaN";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

std::string gp_render(const std::string& stem, int width, int height, const std::string& body) {
  std::string size = std::to_string(width) + "," + std::to_string(height);
  return "set terminal svg size " + size + " noenhanced background '#ffffff'\n" + "set output " +
         gp_string(stem + ".svg") + "\n" + body + "set terminal pngcairo size " + size +
         " noenhanced background '#ffffff'\n" + "set output " + gp_string(stem + ".png") + "\n" +
         "replot\n" + "set output\n";
}

std::string gp_render_each(const std::string& stem, int width, int height, const std::string& body) {
  std::string size = std::to_string(width) + "," + std::to_string(height);
  std::string script;
  for (const auto& [terminal, ext] : {std::pair{"svg", ".svg"}, std::pair{"pngcairo", ".png"}})
    script += std::string("set terminal ") + terminal + " size " + size + " noenhanced background '#ffffff'\n" +
              "set output " + gp_string(stem + ext) + "\n" + body + "set output\n";
  return script;
}

namespace {

// Closes a descriptor when the scope ends, so every early throw below cleans up.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

struct SpawnActions {
  posix_spawn_file_actions_t a;
  SpawnActions() { posix_spawn_file_actions_init(&a); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&a); }
};

std::string failure(const std::string& dir, const std::string& script, const std::string& why,
                    const std::string& err) {
  std::string msg = dir + "/" + script + ": gnuplot " + why;
  std::string e = err.size() > 4000 ? err.substr(0, 4000) + "..." : err;
  while (!e.empty() && (e.back() == '\n' || e.back() == ' ')) e.pop_back();
  if (!e.empty()) msg += ":\n" + e;
  return msg;
}

}  // namespace

void run_gnuplot(const std::string& dir, const std::string& script) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(
        failure(dir, script, std::string("not started: pipe: ") + std::strerror(errno), ""));
  Fd read_end{fds[0]}, write_end{fds[1]};

  SpawnActions actions;
  // An argument vector, not a shell command: the script name needs no quoting.
  posix_spawn_file_actions_addopen(&actions.a, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions.a, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions.a, write_end.fd, 2);
  posix_spawn_file_actions_addchdir_np(&actions.a, dir.c_str());
  std::string program = "gnuplot";
  std::string arg = script;
  char* argv[] = {program.data(), arg.data(), nullptr};
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, "gnuplot", &actions.a, nullptr, argv, environ);
  if (rc != 0)
    throw std::runtime_error(failure(dir, script,
                                     std::string("could not be started (") + std::strerror(rc) +
                                         "); install it (Debian: gnuplot-nox)",
                                     ""));
  ::close(write_end.fd);
  write_end.fd = -1;

  std::string err;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(read_end.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    err.append(buf, std::size_t(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw std::runtime_error(failure(dir, script, "lost (waitpid failed)", err));
  }
  if (WIFSIGNALED(status))
    throw std::runtime_error(
        failure(dir, script, "was killed by signal " + std::to_string(WTERMSIG(status)), err));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(
        failure(dir, script, "exited with status " + std::to_string(WEXITSTATUS(status)), err));
}

}  // namespace ablate::experiments
