// The `ablate` command line. Exit status: 0 success, 1 a run that did not do what it
// should (e.g. the demo's loss did not fall), 2 bad usage or input.
#include <boost/program_options.hpp>
#include <iostream>
#include <string>

#include "autograd/kernels/gemm.h"
#include "experiments/demo.h"
#include "nn/registry_listing.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage =
    "usage: ablate <command> [options]\n"
    "\n"
    "commands:\n"
    "  demo      train a tiny attention model with the autograd tape and print its loss\n"
    "  list      every registered component (attention, positions, norms, ...) and its options\n"
    "\n"
    "Run 'ablate <command> --help' for a command's options.\n";

int demo(const std::vector<std::string>& args) {
  ablate::experiments::DemoOptions o;
  po::options_description desc("ablate demo options");
  desc.add_options()("help,h", "show this help")(
      "steps", po::value<int>(&o.steps)->default_value(o.steps), "training steps (>= 1)")(
      "seed", po::value<std::uint64_t>(&o.seed)->default_value(o.seed), "random seed")(
      "print-every", po::value<int>(&o.print_every)->default_value(o.print_every),
      "print the loss every N steps");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (o.steps < 1 || o.print_every < 1) {
    std::cerr << "ablate demo: --steps and --print-every must be >= 1\n";
    return 2;
  }
  auto r = ablate::experiments::run_demo(o, std::cout);
  if (!(r.final_loss < 0.5 * r.first_loss)) {
    std::cerr << "ablate demo: the loss did not fall by half (" << r.first_loss << " -> "
              << r.final_loss << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    ablate::kernels::gemm_backend();  // validates ABLATE_GEMM before any work
  } catch (const std::invalid_argument& e) {
    std::cerr << "ablate: " << e.what() << "\n";
    return 2;
  }
  try {
    if (command == "demo") return demo(args);
    if (command == "list") {
      if (!args.empty()) {
        std::cerr << "ablate list: takes no arguments\n";
        return 2;
      }
      std::cout << ablate::nn::format_registry_listing();
      return 0;
    }
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "--version") {
      std::cout << "ablate 0.1.0\n";
      return 0;
    }
    std::cerr << "ablate: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const po::error& e) {
    std::cerr << "ablate " << command << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ablate " << command << ": error: " << e.what() << "\n";
    return 1;
  }
}
