#pragma once
// The commands of the `ablate` executable (cli/main.cpp's table), one file per group:
// command_run.cpp (run, check), command_reports.cpp (report, compare),
// command_predict.cpp (predict), command_list.cpp (list), command_tune_replay.cpp
// (tune-replay); the others in
// main.cpp. Each takes the arguments after its name and returns the exit status.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace ablate::experiments {
class MpiSession;
}

namespace ablate::experiments::cli {

namespace po = boost::program_options;

int run(const std::vector<std::string>& args);
int check(const std::vector<std::string>& args);
int report(const std::vector<std::string>& args);
int compare(const std::vector<std::string>& args);
int predict(const std::vector<std::string>& args);
int list(const std::vector<std::string>& args);
int tune_replay(const std::vector<std::string>& args);

// Parses `args` against `desc` (+ the positional arguments `positional`, one, and
// `rest`, any number); returns false after printing `command`'s help (command_help.h).
bool parse(const std::vector<std::string>& args, po::options_description& desc,
           po::variables_map& vm, const char* command, const char* positional = nullptr,
           const char* rest = nullptr);

// The command that starts this executable from the user's shell, for the commands a
// message tells them to run: "ablate" when that name on PATH is this executable, else
// the path it was started by (build/experiments/ablate before it is installed).
void set_invoked_as(const char* argv0);
const std::string& invoked_as();

// Set by main() when started by mpirun: `run` then spreads the sweep over the ranks.
void set_mpi_session(MpiSession* session);
MpiSession* mpi_session();

}  // namespace ablate::experiments::cli
