// The `ablate` command line: its commands and their exit statuses (command_help.h).
// Errors go to stderr.
#include <boost/program_options.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "autograd/kernels/gemm.h"
#include "experiments/cli/data_command.h"
#include "experiments/cli/demo.h"
#include "experiments/records/provenance.h"
#include "experiments/runner/mpi_sweep.h"
#include "experiments/runner/run_lock.h"
#include "experiments/runner/trial_runner.h"
#include "experiments/stats/adaptive_calibration.h"
#include "experiments/stats/calibration.h"
#include "experiments/stats/group_sequential_calibration.h"

#include "experiments/cli/command_help.h"
#include "experiments/cli/commands.h"

namespace po = boost::program_options;
using namespace ablate::experiments::cli;
using namespace ablate::experiments;

namespace {

// `ablate selftest stats`: the verdict machinery calibrated by simulation
// (stats/calibration.h); exit 1 when a rate misses its bound.
int selftest(const std::vector<std::string>& args) {
  std::string what;
  int datasets = 4000;
  std::uint64_t seed = 20261203;
  po::options_description desc;
  desc.add_options()("what", po::value(&what))(
      "datasets", po::value<int>(&datasets)->default_value(datasets)->value_name("N"),
      "simulated studies per scenario (>= 100)")(
      "seed", po::value<std::uint64_t>(&seed)->default_value(seed)->value_name("S"),
      "seed of the simulation");
  po::variables_map vm;
  if (!parse(args, desc, vm, "selftest", "what")) return 0;
  if (what != "stats") throw po::error("selftest '" + what + "': allowed: stats");
  if (datasets < 100) throw po::error("--datasets must be >= 100");
  const stats::Calibration c = stats::calibrate(datasets, seed);
  std::cout << "Calibration of the verdicts: " << datasets
            << " simulated studies per scenario, seed " << seed << ", α = 0.05\n\n"
            << c.markdown() << "\n"
            << (c.passes() ? "ok: every rate is within its bound\n"
                           : "FAILED: a rate misses its bound\n");
  const stats::GroupSequentialCalibration g = stats::calibrate_group_sequential(datasets, seed);
  std::cout << "\nCalibration of adaptive sweeps, the group-sequential design (the default): "
            << datasets << " simulated studies per scenario, seed " << seed
            << ", first block 5 or 10 seeds, then " << g.design.block << " a round up to "
            << g.design.max_seeds << ", α = " << g.design.alpha << "\n\n"
            << g.markdown() << "\n"
            << (g.passes() ? "ok: every rate of the group-sequential design is within its bound\n"
                           : "FAILED: a rate of the group-sequential design misses its bound\n");
  const stats::AdaptiveCalibration a = stats::calibrate_adaptive(datasets, seed);
  std::cout << "\nCalibration of adaptive sweeps, the confidence sequence (design = "
               "\"confidence_sequence\"): "
            << datasets << " simulated studies per scenario, seed " << seed << ", first block "
            << a.design.first_block << " seeds, then " << a.design.block << " a round up to "
            << a.design.max_seeds << ", α = " << a.design.alpha << "\n\n"
            << a.markdown() << "\n"
            << (a.passes() ? "ok: every rate of the confidence sequence is within its bound\n"
                           : "FAILED: a rate of the confidence sequence misses its bound\n");
  return c.passes() && g.passes() && a.passes() ? 0 : 1;
}

int demo(const std::vector<std::string>& args) {
  DemoOptions o;
  po::options_description desc;
  desc.add_options()("steps", po::value<int>(&o.steps)->default_value(o.steps)->value_name("N"),
                     "training steps (>= 1)")(
      "seed", po::value<std::uint64_t>(&o.seed)->default_value(o.seed)->value_name("S"),
      "random seed")("print-every",
                     po::value<int>(&o.print_every)->default_value(o.print_every)->value_name("N"),
                     "print the loss every N steps");
  po::variables_map vm;
  if (!parse(args, desc, vm, "demo")) return 0;
  if (o.steps < 1 || o.print_every < 1) throw po::error("--steps and --print-every must be >= 1");
  DemoResult r = run_demo(o, std::cout);
  if (!(r.final_loss < 0.5 * r.first_loss)) {
    std::cerr << "ablate demo: the loss did not fall by half (" << r.first_loss << " -> "
              << r.final_loss << ")\n";
    return 1;
  }
  return 0;
}

int data(const std::vector<std::string>& args) {
  return data_command(args, std::cout, std::cerr);
}

// Every command's handler, by name; what each prints for --help is command_help.cpp's.
struct Command {
  const char* name;
  int (*handler)(const std::vector<std::string>& args);
};

const std::vector<Command>& commands() {
  static const std::vector<Command> table{
      {"run", run},           {"check", check},
      {"report", report},     {"compare", compare},
      {"predict", predict},   {"list", cli::list},
      {"data", data},         {"demo", demo},
      {"selftest", selftest}, {"tune-replay", tune_replay},
  };
  return table;
}

// `--version` anywhere before a `--` prints the version, whatever the command.
bool asks_for_version(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;
    if (a == "--version") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << overall_help();
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  set_invoked_as(argv[0]);
  set_command_line(argc, argv);  // recorded in every summary.json and trials.json it writes
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << overall_help();
    return 0;
  }
  if (command == "--version" || asks_for_version(args)) {
    std::cout << "ablate " << code_version() << "\n";
    return 0;
  }
  if (command == "data" && !args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << help_head(help_of("data")) << help_tail(help_of("data"));
    return 0;
  }
  std::unique_ptr<MpiSession> mpi;
  if (command == "run" && launched_by_mpi()) {
    mpi = std::make_unique<MpiSession>(argc, argv);
    set_mpi_session(mpi.get());
  }
  try {
    ablate::kernels::gemm_backend();  // validates ABLATE_GEMM before any work
    for (const Command& c : commands())
      if (command == c.name) return c.handler(args);
    std::cerr << "ablate: unknown command '" << command << "'\n\n" << overall_help();
    return 2;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "ablate " << command << ": " << e.what() << " (see '" << invoked_as() << " "
              << command << " --help')\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "ablate " << command << ": " << e.what() << "\n";
    return 2;
  } catch (const RunDirectoryLocked& e) {
    std::cerr << "ablate " << command << ": " << e.what() << "\n";
    return kExitLocked;
  } catch (const std::exception& e) {
    std::cerr << "ablate " << command << ": " << e.what() << "\n";
    return 1;
  }
}
