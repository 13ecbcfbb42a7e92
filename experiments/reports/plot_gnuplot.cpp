#include "experiments/reports/plot_gnuplot.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "experiments/io/atomic_file.h"

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

std::string gp_lines(const std::vector<std::string>& lines) {
  std::string out = "\"";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out += "\\n";
    for (char c : lines[i]) {
      if (c == '\\' || c == '"')
        out += std::string("\\") + c;
      else
        out += (c == '\n' || c == '\r') ? ' ' : c;
    }
  }
  return out + "\"";
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

namespace {

// The image files go where the variables svg_file and png_file say: render_plot sets
// them to temporary names; run by hand, the script writes <stem>.svg and <stem>.png.
std::string output_variables(const std::string& stem) {
  return "if (!exists(\"svg_file\")) svg_file = " + gp_string(stem + ".svg") + "\n" +
         "if (!exists(\"png_file\")) png_file = " + gp_string(stem + ".png") + "\n";
}

}  // namespace

std::string gp_render(const std::string& stem, int width, int height, const std::string& body) {
  std::string size = std::to_string(width) + "," + std::to_string(height);
  return output_variables(stem) + "set terminal svg size " + size +
         " noenhanced background '#ffffff'\n" + "set output svg_file\n" + body +
         "set terminal pngcairo size " + size + " noenhanced background '#ffffff'\n" +
         "set output png_file\nreplot\nset output\n";
}

std::string gp_render_each(const std::string& stem, int width, int height,
                           const std::string& body) {
  std::string size = std::to_string(width) + "," + std::to_string(height);
  std::string script = output_variables(stem);
  for (const auto& [terminal, var] :
       {std::pair{"svg", "svg_file"}, std::pair{"pngcairo", "png_file"}})
    script += std::string("set terminal ") + terminal + " size " + size +
              " noenhanced background '#ffffff'\n" + "set output " + var + "\n" + body +
              "set output\n";
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

std::string failure(const std::string& dir, const std::string& script, const std::string& why,
                    const std::string& err) {
  std::string msg = dir + "/" + script + ": gnuplot " + why;
  std::string e = err.size() > 4000 ? err.substr(0, 4000) + "..." : err;
  while (!e.empty() && (e.back() == '\n' || e.back() == ' ')) e.pop_back();
  if (!e.empty()) msg += ":\n" + e;
  return msg;
}

}  // namespace

void run_gnuplot(const std::string& dir, const std::string& script,
                 const std::string& definitions) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(
        failure(dir, script, std::string("not started: pipe: ") + std::strerror(errno), ""));
  Fd read_end{fds[0]}, write_end{fds[1]};

  std::string program = "gnuplot", e_flag = "-e", defs = definitions, arg = script;
  char* with_defs[] = {program.data(), e_flag.data(), defs.data(), arg.data(), nullptr};
  char* plain[] = {program.data(), arg.data(), nullptr};
  char** argv = definitions.empty() ? plain : with_defs;
  // fork + exec rather than posix_spawn, for PR_SET_PDEATHSIG: if this process is
  // killed (kill -9 mid-sweep), gnuplot dies with it instead of finishing a temporary
  // image after the next run has cleaned up. The child calls only async-signal-safe
  // functions. An argument vector, not a shell command: no quoting needed.
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error(
        failure(dir, script, std::string("not started: fork: ") + std::strerror(errno), ""));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    sigset_t none;  // a run blocks SIGINT and SIGTERM in its threads (stop_signal.cpp)
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::getppid() != parent) ::_exit(126);  // the parent died before prctl
    int null_in = ::open("/dev/null", O_RDONLY), null_out = ::open("/dev/null", O_WRONLY);
    if (null_in < 0 || null_out < 0 || ::dup2(null_in, 0) < 0 || ::dup2(null_out, 1) < 0 ||
        ::dup2(write_end.fd, 2) < 0 || ::chdir(dir.c_str()) != 0)
      ::_exit(126);
    ::execvp("gnuplot", argv);
    ::_exit(127);  // not installed
  }
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
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    throw GnuplotMissing(
        failure(dir, script, "could not be started; install it (Debian: gnuplot-nox)", err));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(
        failure(dir, script, "exited with status " + std::to_string(WEXITSTATUS(status)), err));
}

namespace {

// gnuplot does not report a failed write (a full disk, a file-size limit): it exits 0
// leaving a truncated image. A complete PNG ends with its IEND chunk, an SVG with
// </svg>.
bool image_complete(const std::string& path, const std::string& ext) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const std::exception&) {
    return false;
  }
  if (ext == ".png") {
    static const std::string iend("IEND\xae\x42\x60\x82", 8);
    return bytes.size() >= 8 && bytes.compare(bytes.size() - 8, 8, iend) == 0;
  }
  std::size_t end = bytes.find_last_not_of(" \n\r\t");
  return end != std::string::npos && end >= 5 && bytes.compare(end - 5, 6, "</svg>") == 0;
}

}  // namespace

void render_plot(const std::string& dir, const std::string& stem) {
  // Temporary names (".tmp." is what a run's stale-file cleanup removes), renamed into
  // place only when complete: a plot is either the new image or the previous one.
  std::string tag = ".tmp." + std::to_string(::getpid());
  std::string svg = stem + ".svg" + tag, png = stem + ".png" + tag;
  auto discard = [&] {
    std::filesystem::remove(dir + "/" + svg);
    std::filesystem::remove(dir + "/" + png);
  };
  try {
    run_gnuplot(dir, stem + ".gp", "svg_file=" + gp_string(svg) + "; png_file=" + gp_string(png));
  } catch (...) {
    discard();
    throw;
  }
  for (const auto& [file, ext] :
       {std::pair{svg, std::string(".svg")}, std::pair{png, std::string(".png")}})
    if (!image_complete(dir + "/" + file, ext)) {
      discard();
      throw std::runtime_error(dir + "/" + stem + ext +
                               ": gnuplot wrote an incomplete image (is the disk full?)");
    }
  std::filesystem::rename(dir + "/" + svg, dir + "/" + stem + ".svg");
  std::filesystem::rename(dir + "/" + png, dir + "/" + stem + ".png");
}

}  // namespace ablate::experiments
