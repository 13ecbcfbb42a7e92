#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "experiments/cli/command_help.h"
#include "experiments/cli/commands.h"

namespace ablate::experiments::cli {

// Parses `args` against `desc` (+ the positional arguments `positional`, one, and
// `rest`, any number); returns false after printing the command's help. The positional
// arguments are options only to Boost: the help names them as the usage line does.
bool parse(const std::vector<std::string>& args, po::options_description& desc,
           po::variables_map& vm, const char* command, const char* positional, const char* rest) {
  desc.add_options()("help,h", "show this help");
  po::positional_options_description pos;
  if (positional) pos.add(positional, 1);
  if (rest) pos.add(rest, -1);
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    const CommandHelp& help = help_of(command);
    po::options_description options("options");
    for (const auto& option : desc.options())
      if ((!positional || option->long_name() != positional) &&
          (!rest || option->long_name() != rest))
        options.add(option);
    std::cout << help_head(help) << options << help_tail(help);
    return false;
  }
  if (positional && !vm.count(positional))
    throw po::error(std::string("missing the ") + positional + " argument");
  return true;
}

namespace {
MpiSession* g_mpi = nullptr;
std::string g_invoked_as = "ablate";

// Whether `ablate` found on PATH is this very executable.
bool on_path_as_ablate() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  const char* path = std::getenv("PATH");
  if (ec || !path) return false;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "ablate";
    if (::access(candidate.c_str(), X_OK) != 0) continue;
    return fs::canonical(candidate, ec) == self && !ec;  // the first one is what runs
  }
  return false;
}
}  // namespace

void set_invoked_as(const char* argv0) {
  const std::string given = argv0 ? argv0 : "ablate";
  g_invoked_as = given.find('/') == std::string::npos || on_path_as_ablate() ? "ablate" : given;
}
const std::string& invoked_as() {
  return g_invoked_as;
}

void set_mpi_session(MpiSession* session) {
  g_mpi = session;
}
MpiSession* mpi_session() {
  return g_mpi;
}

}  // namespace ablate::experiments::cli
