#include <iostream>

#include "experiments/cli/commands.h"

namespace ablate::experiments::cli {

// Parses `args` against `desc` (+ one positional argument named `positional`, if
// given); returns false after printing help.
bool parse(const std::vector<std::string>& args, po::options_description& desc,
           po::variables_map& vm, const char* positional, const char* rest) {
  desc.add_options()("help,h", "show this help");
  po::positional_options_description pos;
  if (positional) pos.add(positional, 1);
  if (rest) pos.add(rest, -1);
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc;
    return false;
  }
  if (positional && !vm.count(positional))
    throw po::error(std::string("missing the ") + positional + " argument");
  return true;
}

namespace {
MpiSession* g_mpi = nullptr;
}  // namespace

void set_mpi_session(MpiSession* session) {
  g_mpi = session;
}
MpiSession* mpi_session() {
  return g_mpi;
}

}  // namespace ablate::experiments::cli
