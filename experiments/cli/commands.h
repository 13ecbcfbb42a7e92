#pragma once
// The commands of the `ablate` executable (cli/main.cpp's table), one file per group:
// command_run.cpp (run, check), command_reports.cpp (report, compare),
// command_predict.cpp (predict); the others in
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

// Parses `args` against `desc` (+ one positional argument named `positional`, if
// given); returns false after printing help.
bool parse(const std::vector<std::string>& args, po::options_description& desc,
           po::variables_map& vm, const char* positional = nullptr, const char* rest = nullptr);

// Set by main() when started by mpirun: `run` then spreads the sweep over the ranks.
void set_mpi_session(MpiSession* session);
MpiSession* mpi_session();

}  // namespace ablate::experiments::cli
