// The `ablate` command line. Exit status: 0 when everything finished (trials ok or
// diverged), 1 when a trial failed (or the demo did not learn), 2 for bad usage or a
// bad experiment file. Errors go to stderr.
#include <boost/program_options.hpp>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "autograd/kernels/gemm.h"
#include "experiments/config/experiment.h"
#include "experiments/config/plain_keys.h"
#include "experiments/config/setting_keys.h"
#include "experiments/cli/data_command.h"
#include "experiments/cli/demo.h"
#include "experiments/tasks/task.h"
#include "experiments/reports/compare_runs.h"
#include "experiments/reports/report.h"
#include "experiments/reports/run_record.h"
#include "experiments/plugins/plugin.h"
#include "experiments/io/atomic_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/runner/mpi_sweep.h"
#include "experiments/runner/predict.h"
#include "experiments/runner/resume_state.h"
#include "experiments/runner/stop_signal.h"
#include "experiments/runner/sweep_runner.h"
#include "experiments/runner/trial_order.h"
#include "experiments/runner/trial_runner.h"
#include "experiments/stats/calibration.h"
#include "experiments/study/study_runner.h"
#include "nn/registry_listing.h"

namespace po = boost::program_options;
using namespace ablate::experiments;

namespace {

// Parses `args` against `desc` (+ one positional argument named `positional`, if
// given); returns false after printing help.
bool parse(const std::vector<std::string>& args, po::options_description& desc,
           po::variables_map& vm, const char* positional = nullptr, const char* rest = nullptr) {
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

void print_run_summary(const RunSummary& s) {
  const RunDir run(s.run_dir);
  std::cout << s.run_dir << ": " << s.total << " trials (" << s.skipped << " already done, " << s.ok
            << " ok, " << s.diverged << " diverged, " << s.failed << " failed)\n"
            << "  table:   " << run.summary_table() << "\n"
            << "  results: " << run.results() << "\n  compared: " << run.comparisons() << "\n"
            << "  plots:   " << run.plots() << "/\n";
  if (std::filesystem::exists(run.claims())) std::cout << "  claims:  " << run.claims() << "\n";
  if (s.resumed)
    std::cout << "  " << s.resumed << " trial" << (s.resumed == 1 ? "" : "s")
              << " continued from a saved state (resumed_from_step in summary.json)\n";
  for (const auto& [backend, n] : s.other_backend)
    std::cout << "  " << n << " finished trial" << (n == 1 ? "" : "s") << " trained with the GEMM backend " << backend
              << " ran again with " << ablate::kernels::gemm_backend_name(ablate::kernels::gemm_backend())
              << " (ABLATE_GEMM): one run's results come from one backend\n";
  if (s.not_in_experiment)
    std::cout << "  " << s.not_in_experiment << " trials from an earlier version of this file (or of the data "
              << "or plugins it reads) are not in this experiment: kept in trials/, left out of the reports "
              << "(earlier versions of the file in history/)\n";
}

// The command that runs the same again (and so resumes it).
std::string run_command_line(const std::string& file, const RunOptions& o) {
  auto quoted = [](const std::string& arg) {
    if (arg.find_first_of(" \t'\"[]{}*?$&;|<>()\\") == std::string::npos) return arg;
    std::string q = "'";
    for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on " " + std::string.
  std::string line = "ablate run ";
  line += quoted(file);
  auto append = [&](const char* flag, const std::string& value) {
    line += flag;
    line += quoted(value);
  };
  for (const std::string& p : o.plugins) append(" --plugin ", p);
  if (o.out_given) append(" --out ", o.out);
  if (o.quick) line += " --quick";
  for (const std::string& v : o.overrides) append(" ", v);
  return line;
}

// The run's summary lines, and the exit status: 128 + the signal that stopped it, 1
// when a trial failed, else 0.
int report_run(const RunSummary& s, const std::string& file, const RunOptions& o) {
  print_run_summary(s);
  if (s.stopped_by) {
    std::cout << "stopped by " << (s.stopped_by == SIGINT ? "SIGINT" : "SIGTERM") << ": "
              << s.skipped + s.ok + s.diverged + s.failed << " of " << s.total << " trials finished and kept, "
              << s.interrupted << " interrupted (saved at their last step; they continue from there), the reports "
              << "cover the finished ones; "
              << "resume with: " << run_command_line(file, o) << "\n";
    return 128 + s.stopped_by;
  }
  return s.failed ? 1 : 0;
}

// "K/N" with 1 <= K <= N.
void parse_shard(const std::string& text, RunOptions& o) {
  int k = 0, n = 0;
  char slash = 0, extra = 0;
  std::istringstream in(text);
  if (!(in >> k >> slash >> n) || slash != '/' || (in >> extra) || n < 1 || k < 1 || k > n)
    throw po::error("--shard '" + text + "': expected K/N with 1 <= K <= N, e.g. --shard 2/8");
  o.shard = k;
  o.shards = n;
}

// Set in main() when started by mpirun: `run` then spreads the sweep over the ranks.
MpiSession* g_mpi = nullptr;

int run(const std::vector<std::string>& args) {
  std::string file, shard;
  RunOptions o;
  bool dry_run = false;
  po::options_description desc("ablate run FILE");
  desc.add_options()("file", po::value(&file), "experiment file (.toml)")(
      "jobs,j", po::value(&o.jobs)->default_value(0), "trials side by side (0 = number of cores)")(
      "out", po::value(&o.out)->default_value("runs"), "outputs go to <out>/<name>/")(
      "force", po::bool_switch(&o.force), "rerun finished trials")(
      "shard", po::value(&shard), "K/N: run only the K-th of N slices of the trials (job arrays)")(
      "dry-run", po::bool_switch(&dry_run), "validate and list the trials, run nothing")(
      "plugin", po::value(&o.plugins)->composing(), "load a plugin (repeatable; see nn/README.md)")(
      "overrides", po::value(&o.overrides)->composing(),
      "KEY=VALUE ... after FILE: TOML values overriding the file's (model.d_model=64 'sweep.seeds=[0,1]')")(
      "quick", po::bool_switch(&o.quick), "the file's [quick] variant: the same study at reduced size, as <name>-quick")(
      "quiet,q", "no progress line");
  po::variables_map vm;
  if (!parse(args, desc, vm, "file", "overrides")) return 0;
  o.progress = !vm.count("quiet");
  o.out_given = !vm["out"].defaulted();
  if (o.jobs < 0) throw po::error("--jobs must be >= 0");
  if (!shard.empty()) parse_shard(shard, o);
  // Under mpirun only rank 0 prints or runs a study; the others serve trials or exit.
  bool worker_rank = g_mpi && g_mpi->rank() != 0;
  if (worker_rank && (dry_run || is_study_file(file))) return 0;
  if (g_mpi && !dry_run && !is_study_file(file)) {
    MpiRunResult m;
    {
      StopOnSignals stop_on_signals;  // on every rank: mpirun passes SIGTERM on to each
      m = run_experiment_mpi(file, o);
    }
    if (m.is_worker) return 0;
    return report_run(m.summary, file, o);
  }
  if (!dry_run && is_study_file(file)) {
    StudySummary s = run_study(file, o);
    std::cout << s.run_dir << ": study written\n"
              << "  report:  " << s.run_dir << "/study.md\n"
              << "  values:  " << s.run_dir << "/study.json\n"
              << "  plots:   " << RunDir(s.run_dir).plots() << "/\n";
    if (s.training_ran)
      std::cout << "  training sweep: " << s.training.total << " trials (" << s.training.skipped
                << " already done, " << s.training.ok << " ok, " << s.training.diverged
                << " diverged, " << s.training.failed << " failed), table in "
                << RunDir(s.run_dir).summary_table() << "\n";
    return s.training.failed ? 1 : 0;
  }
  Experiment e = load_experiment(file, load_options(o));
  if (dry_run) {
    std::vector<std::size_t> listed;
    if (o.shards > 0) listed = shard_trials(e.trials, o.shard, o.shards);
    else
      for (std::size_t i = 0; i < e.trials.size(); ++i) listed.push_back(i);
    // What a real run would do: finished trials are skipped unless --force.
    const std::string run_dir = o.out + "/" + e.name;
    std::vector<bool> done(e.trials.size(), false);
    std::size_t finished = 0;
    std::vector<bool> resumes(e.trials.size());
    for (std::size_t i : listed) {
      const TrialDir trial = RunDir(run_dir).trial(e.trials[i].id);
      const std::string& dir = trial.path();
      finished += done[i] = !o.force && trial_finished(dir) && trained_under_other_backend(dir).empty();
      resumes[i] = !done[i] && !o.force && std::filesystem::exists(trial.resume_state());
    }
    std::cout << listed.size() - finished << " of " << listed.size() << " trials would run into " << run_dir << "/";
    if (o.shards > 0) std::cout << " (shard " << o.shard << " of " << o.shards << ")";
    std::cout << "; " << finished << " already done" << (finished ? " (--force reruns them)" : "") << "\n";
    for (std::size_t i : listed) {
      const Trial& t = e.trials[i];
      std::cout << "  " << t.id << (done[i] ? "  done  " : resumes[i] ? "  resume" : "  to run") << "  seed " << t.config.trial_seed << "  "
                << t.point_label() << (t.tune.empty() ? "" : "  tune: " + t.tune_label()) << "\n";
    }
    return 0;
  }
  RunSummary s;
  {
    StopOnSignals stop_on_signals;
    s = run_experiment(e, o);
  }
  return report_run(s, file, o);
}

int check(const std::vector<std::string>& args) {
  std::string file;
  po::options_description desc("ablate check FILE");
  std::vector<std::string> plugins, overrides;
  desc.add_options()("file", po::value(&file), "experiment file (.toml)")(
      "plugin", po::value(&plugins)->composing(), "load a plugin (repeatable)")(
      "overrides", po::value(&overrides)->composing(), "KEY=VALUE ... after FILE: overrides of the file's values")(
      "quick", "the file's [quick] variant (as run --quick)");
  po::variables_map vm;
  if (!parse(args, desc, vm, "file", "overrides")) return 0;
  LoadOptions load;
  load.plugins = plugins;
  load.overrides = overrides;
  load.quick = vm.count("quick") > 0;
  Experiment e = load_experiment(file, load);
  std::cout << file << ": ok, " << e.trials.size() << " trials";
  if (!e.swept_keys.empty() || !e.tune_keys.empty()) {
    std::cout << " (";
    for (std::size_t i = 0; i < e.swept_keys.size(); ++i) std::cout << (i ? " × " : "") << e.swept_keys[i];
    for (const std::string& k : e.tune_keys) std::cout << (e.swept_keys.empty() && &k == &e.tune_keys.front() ? "" : " × ") << k << " (tuned)";
    std::cout << " × " << e.seeds.size() << " seeds)";
  }
  std::cout << "\n";
  for (const Trial& t : e.trials)
    std::cout << "  " << t.id << "  seed " << t.config.trial_seed << "  " << t.point_label()
              << (t.tune.empty() ? "" : "  tune: " + t.tune_label()) << "\n";
  return 0;
}

int report(const std::vector<std::string>& args) {
  std::string dir, from_results;
  po::options_description desc("ablate report DIR");
  desc.add_options()("dir", po::value(&dir), "run directory (<out>/<name>), or a results folder with a record.jsonl")(
      "from-results", po::value(&from_results),
      "FILE: first derive DIR/record.jsonl from DIR/results.csv and the experiment file FILE it was run from (a "
      "results folder kept without its run directory; see experiments/studies/results/README.md)");
  po::variables_map vm;
  if (!parse(args, desc, vm, "dir")) return 0;
  if (!std::filesystem::is_directory(dir)) throw po::error("no such run directory: " + dir);
  const RunDir run(dir);
  const bool run_directory = std::filesystem::exists(run.trial_index());
  if (!from_results.empty()) {
    if (run_directory)
      throw po::error("--from-results: " + dir + " is a run directory (it has trials.json): its record is written "
                      "from the trials themselves");
    derive_run_record(dir, load_experiment(from_results, LoadOptions{}));
  }
  if (!run_directory && !std::filesystem::exists(run.record()))
    throw std::invalid_argument(dir + ": neither a run directory (no trials.json; run `ablate run` first) nor a "
                                "results folder (no record.jsonl; see --from-results)");
  ReportSummary r = run_directory ? write_reports(dir) : rebuild_reports_from_record(dir);
  std::cout << dir << ": " << r.finished << " of " << r.expected << " trials finished";
  if (r.failed) std::cout << ", " << r.failed << " failed";
  if (r.missing) std::cout << ", " << r.missing << " missing";
  std::cout << (run_directory ? "" : " (rebuilt from " + run.record() + ")");
  std::cout << "\n  table:   " << run.summary_table() << "\n  results: " << run.results()
            << "\n  compared: " << run.comparisons() << "\n";
  for (const std::string& id : r.missing_ids) std::cout << "  missing: " << id << "\n";
  return r.failed ? 1 : 0;
}

int compare(const std::vector<std::string>& args) {
  CompareOptions o;
  double margin = 0;
  po::options_description desc("ablate compare RUN_DIR [RUN_DIR...]");
  desc.add_options()("dirs", po::value(&o.run_dirs)->multitoken(), "run directories (<out>/<name>)")(
      "baseline", po::value(&o.baseline),
      "point_id (or a unique prefix) of the point every other is compared with; default: the first run's baseline")(
      "metric", po::value(&o.metric), "the test metric of the table (default: the first run's)")(
      "equivalence-margin", po::value(&margin), "equivalence margin δ of the metric (default: the first run's)")(
      "out", po::value(&o.out_dir)->default_value("comparison"), "directory for comparisons.csv and comparisons.md");
  po::variables_map vm;
  if (!parse(args, desc, vm, nullptr, "dirs")) return 0;
  if (vm.count("equivalence-margin")) {
    if (!(margin > 0)) throw po::error("--equivalence-margin must be > 0");
    o.equivalence_margin = margin;
  }
  std::cout << compare_runs(o);
  std::cout << "\n  table:   " << o.out_dir << "/comparisons.md\n  data:    " << o.out_dir << "/comparisons.csv\n";
  return 0;
}

int predict_command(const std::vector<std::string>& args) {
  PredictOptions o;
  std::string input, out;
  std::int64_t beam = 0, length = 0;
  std::uint64_t seed = 0;
  po::options_description desc("ablate predict CHECKPOINT INPUT");
  desc.add_options()("checkpoint", po::value(&o.checkpoint), "a trial's checkpoint.safetensors (train.checkpoint = true)")(
      "input", po::value(&input), "one input a line: sources (sequence tasks) or prompts (lm); - = stdin")(
      "beam", po::value(&beam), "sequence tasks: beam search of width N (default: greedy, as the evaluation)")(
      "length", po::value(&length), "lm: tokens generated after each prompt (default 200)")(
      "seed", po::value(&seed), "lm: seed of the sampling (default 0)")(
      "greedy", po::bool_switch(&o.greedy), "lm: the most likely token at each step instead of sampling")(
      "data-dir", po::value(&o.data_dir),
      "where the trial's relative data paths resolve (default: its experiment file's directory)")(
      "out", po::value(&out), "write the TSV to FILE (atomically) instead of stdout")(
      "plugin", po::value(&o.plugins)->composing(),
      "load this plugin (repeatable): a checkpoint trained with one names it, but only a file given "
      "here is ever loaded, and only if its SHA-256 is the recorded one");
  po::variables_map vm;
  if (!parse(args, desc, vm, "checkpoint", "input")) return 0;
  if (!vm.count("input")) throw po::error("missing the input argument");
  if (vm.count("beam")) o.beam = beam;
  if (vm.count("length")) o.length = length;
  if (vm.count("seed")) o.seed = seed;
  const std::string tsv = predict(o, read_input_lines(input), input == "-" ? "<stdin>" : input).tsv();
  if (out.empty()) std::cout << tsv;
  else write_file_atomically(out, tsv);
  return 0;
}

int list(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  po::options_description desc("ablate list");
  std::string markdown_table;
  desc.add_options()("plugin", po::value(&plugins)->composing(), "also list what this plugin adds (repeatable)")(
      "keys-markdown", po::value(&markdown_table),
      "print the Markdown table of the keys of TABLE (\"\", model, model.layers, model.attention, "
      "model.norm, train, report, study, study.attention), as experiments/README.md holds it")(
      "fuzz-dictionary", "print the experiment-file fuzzer's dictionary of keys and names (tests/fuzz/)");
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
    std::cout << "  " << entry.name << std::string(entry.name.size() < 16 ? 16 - entry.name.size() : 1, ' ')
              << entry.description << "\n";
    for (const auto& o : entry.options)
      std::cout << "      " << o.key << " = " << ablate::nn::option_to_string(o.default_value) << "  (" << o.doc << ")\n";
  }
  std::cout << "plain keys (every other sweepable value: dotted path, type = default, [allowed])\n"
            << format_plain_keys()
            << "run settings ([report], [study]: dotted path, type = default, [allowed]; in no trial's id)\n"
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
      "datasets", po::value<int>(&datasets)->default_value(datasets), "simulated studies per scenario (>= 100)")(
      "seed", po::value<std::uint64_t>(&seed)->default_value(seed), "seed of the simulation");
  po::variables_map vm;
  if (!parse(args, desc, vm, "what")) return 0;
  if (what != "stats") throw po::error("selftest '" + what + "': allowed: stats");
  if (datasets < 100) throw po::error("--datasets must be >= 100");
  const stats::Calibration c = stats::calibrate(datasets, seed);
  std::cout << "Calibration of the verdicts: " << datasets << " simulated studies per scenario, seed " << seed
            << ", α = 0.05\n\n"
            << c.markdown() << "\n"
            << (c.passes() ? "ok: every rate is within its bound\n" : "FAILED: a rate misses its bound\n");
  return c.passes() ? 0 : 1;
}

int demo(const std::vector<std::string>& args) {
  DemoOptions o;
  po::options_description desc("ablate demo");
  desc.add_options()("steps", po::value<int>(&o.steps)->default_value(o.steps), "training steps (>= 1)")(
      "seed", po::value<std::uint64_t>(&o.seed)->default_value(o.seed), "random seed")(
      "print-every", po::value<int>(&o.print_every)->default_value(o.print_every), "print the loss every N steps");
  po::variables_map vm;
  if (!parse(args, desc, vm)) return 0;
  if (o.steps < 1 || o.print_every < 1) throw po::error("--steps and --print-every must be >= 1");
  DemoResult r = run_demo(o, std::cout);
  if (!(r.final_loss < 0.5 * r.first_loss)) {
    std::cerr << "ablate demo: the loss did not fall by half (" << r.first_loss << " -> " << r.final_loss << ")\n";
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

int data(const std::vector<std::string>& args) { return data_command(args, std::cout, std::cerr); }

const std::vector<Command>& commands() {
  static const std::vector<Command> table{
      {"run", "run FILE", "run an experiment file's sweep into <out>/<name>/ (skips finished trials)", run},
      {"check", "check FILE", "validate an experiment file and list its trials, without running", check},
      {"report", "report DIR", "rebuild results.csv, comparisons.csv, summary.md and plots of a run directory",
       report},
      {"compare", "compare DIR...", "compare the points of several runs against one baseline (comparisons.csv, .md)",
       compare},
      {"predict", "predict CHECKPOINT INPUT",
       "decode new inputs (one a line; - = stdin) with a trained trial's\n"
       "checkpoint.safetensors: a TSV of predictions (sequence tasks) or continuations (lm)",
       predict_command},
      {"list", "list",
       "every registered component (attention, positions, norms, ...) and its options,\n"
       "and every plain key (widths, placement, steps, ...)",
       list},
      {"data", "data", "fetch and convert the real datasets (list, get NAME, path NAME)", data},
      {"demo", "demo", "train a tiny attention model with the autograd tape and print its loss", demo},
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
    for (const char* p = c.summary; *p; ++p) out += *p == '\n' ? std::string("\n") + std::string(15, ' ') : std::string(1, *p);
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
    g_mpi = mpi.get();
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
    std::cerr << "ablate " << command << ": " << e.what() << " (see 'ablate " << command << " --help')\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "ablate " << command << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ablate " << command << ": " << e.what() << "\n";
    return 1;
  }
}
