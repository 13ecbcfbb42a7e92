// The `ablate` command line. Exit status: 0 when everything finished (trials ok or
// diverged), 1 when a trial failed (or the demo did not learn), 2 for bad usage or a
// bad experiment file. Errors go to stderr.
#include <boost/program_options.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "autograd/kernels/gemm.h"
#include "experiments/cli/data_command.h"
#include "experiments/cli/demo.h"
#include "experiments/config/plain_keys.h"
#include "experiments/config/setting_keys.h"
#include "experiments/plugins/plugin.h"
#include "experiments/records/provenance.h"
#include "experiments/runner/mpi_sweep.h"
#include "experiments/runner/trial_runner.h"
#include "experiments/stats/adaptive_calibration.h"
#include "experiments/stats/calibration.h"
#include "experiments/tasks/task.h"
#include "nn/registry_listing.h"

#include "experiments/cli/commands.h"

namespace po = boost::program_options;
using namespace ablate::experiments::cli;
using namespace ablate::experiments;

namespace {

int list(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  po::options_description desc("ablate list");
  std::string markdown_table;
  desc.add_options()("plugin", po::value(&plugins)->composing(),
                     "also list what this plugin adds (repeatable)")(
      "keys-markdown", po::value(&markdown_table),
      "print the Markdown table of the keys of TABLE (\"\", model, model.layers, model.attention, "
      "model.norm, train, report, study, study.attention), as experiments/README.md holds it")(
      "fuzz-dictionary",
      "print the experiment-file fuzzer's dictionary of keys and names (tests/fuzz/)");
  po::variables_map vm;
  if (!parse(args, desc, vm)) return 0;
  if (vm.count("fuzz-dictionary")) {
    std::cout << fuzz_dictionary();
    return 0;
  }
  if (vm.count("keys-markdown")) {
    const std::string settings = setting_keys_markdown(markdown_table);
    std::cout << (settings.empty() ? plain_keys_markdown(markdown_table) : settings);
    return 0;
  }
  std::vector<const Plugin*> loaded;
  for (const std::string& path : plugins) {
    try {
      loaded.push_back(&load_plugin(path));
    } catch (const PluginError& e) {
      std::cerr << "ablate list: --plugin " << e.what() << "\n";
      return 2;
    }
  }
  std::cout << ablate::nn::format_registry_listing() << "task\n";
  for (const auto& entry : task_registry().entries()) {
    std::cout << "  " << entry.name
              << std::string(entry.name.size() < 16 ? 16 - entry.name.size() : 1, ' ')
              << entry.description << "\n";
    for (const auto& o : entry.options)
      std::cout << "      " << o.key << " = " << ablate::nn::option_to_string(o.default_value)
                << "  (" << o.doc << ")\n";
  }
  std::cout << "plain keys (every other sweepable value: dotted path, type = default, [allowed])\n"
            << format_plain_keys()
            << "run settings ([report], [study]: dotted path, type = default, [allowed]; in no "
               "trial's id)\n"
            << format_setting_keys();
  for (const Plugin* p : loaded) {
    std::cout << "\nplugin " << p->path << " (built for ablate " << p->built_for << ", SHA-256 "
              << p->sha256.substr(0, 16) << "…) adds:\n";
    for (const std::string& c : p->components) std::cout << "  " << c << "\n";
  }
  return 0;
}

// `ablate selftest stats`: the verdict machinery calibrated by simulation
// (stats/calibration.h); exit 1 when a rate misses its bound.
int selftest(const std::vector<std::string>& args) {
  std::string what;
  int datasets = 4000;
  std::uint64_t seed = 20261203;
  po::options_description desc("ablate selftest stats");
  desc.add_options()("what", po::value(&what), "what to test: stats")(
      "datasets", po::value<int>(&datasets)->default_value(datasets),
      "simulated studies per scenario (>= 100)")(
      "seed", po::value<std::uint64_t>(&seed)->default_value(seed), "seed of the simulation");
  po::variables_map vm;
  if (!parse(args, desc, vm, "what")) return 0;
  if (what != "stats") throw po::error("selftest '" + what + "': allowed: stats");
  if (datasets < 100) throw po::error("--datasets must be >= 100");
  const stats::Calibration c = stats::calibrate(datasets, seed);
  std::cout << "Calibration of the verdicts: " << datasets
            << " simulated studies per scenario, seed " << seed << ", α = 0.05\n\n"
            << c.markdown() << "\n"
            << (c.passes() ? "ok: every rate is within its bound\n"
                           : "FAILED: a rate misses its bound\n");
  const stats::AdaptiveCalibration a = stats::calibrate_adaptive(datasets, seed);
  std::cout << "\nCalibration of adaptive sweeps: " << datasets
            << " simulated studies per scenario, seed " << seed << ", first block "
            << a.design.first_block << " seeds, then " << a.design.block << " a round up to "
            << a.design.max_seeds << ", α = " << a.design.alpha << "\n\n"
            << a.markdown() << "\n"
            << (a.passes() ? "ok: every rate of the adaptive design is within its bound\n"
                           : "FAILED: a rate of the adaptive design misses its bound\n");
  return c.passes() && a.passes() ? 0 : 1;
}

int demo(const std::vector<std::string>& args) {
  DemoOptions o;
  po::options_description desc("ablate demo");
  desc.add_options()("steps", po::value<int>(&o.steps)->default_value(o.steps),
                     "training steps (>= 1)")(
      "seed", po::value<std::uint64_t>(&o.seed)->default_value(o.seed), "random seed")(
      "print-every", po::value<int>(&o.print_every)->default_value(o.print_every),
      "print the loss every N steps");
  po::variables_map vm;
  if (!parse(args, desc, vm)) return 0;
  if (o.steps < 1 || o.print_every < 1) throw po::error("--steps and --print-every must be >= 1");
  DemoResult r = run_demo(o, std::cout);
  if (!(r.final_loss < 0.5 * r.first_loss)) {
    std::cerr << "ablate demo: the loss did not fall by half (" << r.first_loss << " -> "
              << r.final_loss << ")\n";
    return 1;
  }
  return 0;
}

// Every command, once: its name, how it is called, what it does (continuation lines
// of the summary are indented under its first) and its handler. The usage text and the
// dispatch are both made from this table.
struct Command {
  const char* name;
  const char* synopsis;
  const char* summary;
  int (*handler)(const std::vector<std::string>& args);
};

int data(const std::vector<std::string>& args) {
  return data_command(args, std::cout, std::cerr);
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table{
      {"run", "run FILE",
       "run an experiment file's sweep into <out>/<name>/ (skips finished trials)", run},
      {"check", "check FILE", "validate an experiment file and list its trials, without running",
       check},
      {"report", "report DIR",
       "rebuild results.csv, comparisons.csv, summary.md and plots of a run directory", report},
      {"compare", "compare DIR...",
       "compare the points of several runs against one baseline (comparisons.csv, .md)", compare},
      {"predict", "predict CHECKPOINT INPUT",
       "decode new inputs (one a line; - = stdin) with a trained trial's\n"
       "checkpoint.safetensors: a TSV of predictions (sequence tasks) or continuations (lm)",
       cli::predict},
      {"list", "list",
       "every registered component (attention, positions, norms, ...) and its options,\n"
       "and every plain key (widths, placement, steps, ...)",
       list},
      {"data", "data", "fetch and convert the real datasets (list, get NAME, path NAME)", data},
      {"demo", "demo", "train a tiny attention model with the autograd tape and print its loss",
       demo},
      {"selftest", "selftest stats",
       "run the verdict rules on simulated studies of known truth and print\n"
       "their error rates, coverage and power against their bounds",
       selftest},
  };
  return table;
}

std::string usage() {
  std::string out = "usage: ablate <command> [options]\n\ncommands:\n";
  for (const Command& c : commands()) {
    const std::string synopsis = c.synopsis;
    out += "  " + synopsis + std::string(synopsis.size() <= 11 ? 13 - synopsis.size() : 2, ' ');
    for (const char* p = c.summary; *p; ++p)
      out += *p == '\n' ? std::string("\n") + std::string(15, ' ') : std::string(1, *p);
    out += "\n";
  }
  return out +
         "\nRun 'ablate <command> --help' for a command's options. Exit status: 0 done, 1 a trial\n"
         "failed, 2 bad usage or a bad experiment file.\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << usage();
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  set_command_line(argc, argv);  // recorded in every summary.json and trials.json it writes
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << usage();
    return 0;
  }
  if (command == "--version") {
    std::cout << "ablate " << code_version() << "\n";
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
    std::cerr << "ablate: unknown command '" << command << "'\n\n" << usage();
    return 2;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "ablate " << command << ": " << e.what() << " (see 'ablate " << command
              << " --help')\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "ablate " << command << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ablate " << command << ": " << e.what() << "\n";
    return 1;
  }
}
