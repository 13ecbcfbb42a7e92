// `ablate run` and `ablate check`.
#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "autograd/kernels/gemm.h"
#include "experiments/analysis/design_verdicts.h"
#include "experiments/config/experiment.h"
#include "experiments/config/halving_reader.h"
#include "experiments/records/provenance.h"
#include "experiments/records/run_dir.h"
#include "experiments/runner/adaptive_sweep.h"
#include "experiments/runner/experiment_runner.h"
#include "experiments/runner/listed_trials.h"
#include "experiments/runner/missing_checkpoints.h"
#include "experiments/runner/mpi_sweep.h"
#include "experiments/runner/stop_signal.h"
#include "experiments/runner/sweep_runner.h"
#include "experiments/runner/trial_order.h"
#include "experiments/runner/tuned_sweep.h"
#include "experiments/study/study_runner.h"

#include "experiments/cli/commands.h"
#include "experiments/cli/design_preview.h"

namespace ablate::experiments::cli {

namespace {

void print_run_summary(const RunSummary& s) {
  const RunDir run(s.run_dir);
  std::cout << s.run_dir << ": " << s.total << " trials (" << s.skipped << " already done, " << s.ok
            << " ok, " << s.diverged << " diverged, " << s.failed << " failed"
            << (s.pruned ? ", " + std::to_string(s.pruned) + " stopped by halving" : "") << ")\n"
            << "  table:   " << run.summary_table() << "\n"
            << "  results: " << run.results() << "\n  compared: " << run.comparisons() << "\n"
            << "  plots:   " << run.plots() << "/\n"
            << "  page:    " << run.report_html() << "  (open in a browser)\n";
  if (std::filesystem::exists(run.claims())) std::cout << "  claims:  " << run.claims() << "\n";
  if (!s.adaptive_note.empty()) std::cout << "  adaptive design: " << s.adaptive_note << "\n";
  if (s.resumed)
    std::cout << "  " << s.resumed << " trial" << (s.resumed == 1 ? "" : "s")
              << " continued from a saved state (resumed_from_step in summary.json)\n";
  for (const auto& [backend, n] : s.other_backend)
    std::cout << "  " << n << " finished trial" << (n == 1 ? "" : "s")
              << " trained with the GEMM backend " << backend << " ran again with "
              << ablate::kernels::gemm_backend_name(ablate::kernels::gemm_backend())
              << " (ABLATE_GEMM): one run's results come from one backend\n";
  if (s.not_in_experiment)
    std::cout << "  " << s.not_in_experiment
              << " trials from an earlier version of this file (or of the data "
              << "or plugins it reads) are not in this experiment: kept in trials/, left out of "
                 "the reports "
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
  std::string line = quoted(invoked_as());
  line += " run ";
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
              << s.skipped + s.ok + s.diverged + s.failed << " of " << s.total
              << " trials finished and kept, " << s.interrupted
              << " interrupted (saved at their last step; they continue from there), the reports "
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

// A study: its analytic parts, then its training sweep (study_runner.h).
// A stop (SIGINT/SIGTERM) reaches its training sweep as it reaches any run's.
int run_study_command(const std::string& file, const RunOptions& o, const std::string& only_ids) {
  StudySummary s;
  {
    StopOnSignals stop_on_signals;
    s = run_study(file, o, only_ids);
  }
  if (s.training.stopped_by) return report_run(s.training, file, o);
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

// The sweep points of `e` (its trials are each point at every seed — and [tune] setting).
std::size_t point_count(const Experiment& e) {
  std::set<std::map<std::string, std::string>> points;
  for (const Trial& t : e.trials) points.emplace(t.point.begin(), t.point.end());
  return points.size();
}

// What `check` lists of a two-stage [tune], and what follows it.
std::string tuning_stages_text(const Experiment& e) {
  const std::size_t points = point_count(e);
  std::string seeds;
  for (std::uint64_t s : e.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(s);
  return "tuning stage: listed (" + std::to_string(points) + " points × " +
         std::to_string(e.trials.size() / points / e.tune_seeds.size()) + " settings × " +
         std::to_string(e.tune_seeds.size()) +
         " tune.seeds); then each point's chosen setting on sweep.seeds " + seeds + " (" +
         std::to_string(points * e.seeds.size()) + " trials" +
         (e.adaptive ? ", the adaptive design's first block" : "") + ")";
}

// --dry-run: the trials a real run would run, resume or skip (of an adaptive design,
// those of its current round: the next is decided by this one's results).
void print_dry_run(Experiment e, const RunOptions& o) {
  if (!e.tune_seeds.empty() && !e.exact_trials) {
    std::optional<Experiment> second = second_stage(e, run_dir_of(e, o));
    std::cout << (second ? "tuning stage done: each point's setting chosen; the sweep's seeds"
                         : "tuning stage: every setting on tune.seeds; each point's setting "
                           "is chosen once these have their results")
              << "\n";
    if (second) e = std::move(*second);
  }
  if (e.adaptive) {
    const CurrentRound round = current_round(e, run_dir_of(e, o));
    std::cout << "adaptive design, " << schedule_status(round.schedule) << "\n";
    e.trials = round.trials;
  }
  std::vector<std::size_t> listed;
  if (o.shards > 0)
    listed = shard_trials(e.trials, o.shard, o.shards);
  else
    for (std::size_t i = 0; i < e.trials.size(); ++i) listed.push_back(i);
  // What a real run would do: finished trials are skipped unless --force.
  const std::string run_dir = run_dir_of(e, o);
  std::vector<bool> done(e.trials.size(), false);
  std::size_t finished = 0;
  std::vector<bool> resumes(e.trials.size());
  for (std::size_t i : listed) {
    const TrialDir trial = RunDir(run_dir).trial(e.trials[i].id);
    const std::string& dir = trial.path();
    // A finished trial lacking the checkpoint its config now asks for trains again.
    finished += done[i] = !o.force && trial_finished(dir) &&
                          trained_under_other_backend(dir).empty() &&
                          !finished_without_checkpoint(e.trials[i], dir);
    resumes[i] = !done[i] && !o.force && std::filesystem::exists(trial.resume_state());
  }
  std::cout << listed.size() - finished << " of " << listed.size() << " trials would run into "
            << run_dir << "/";
  if (o.shards > 0) std::cout << " (shard " << o.shard << " of " << o.shards << ")";
  std::cout << "; " << finished << " already done" << (finished ? " (--force reruns them)" : "")
            << "\n";
  for (std::size_t i : listed) {
    const Trial& t = e.trials[i];
    std::cout << "  " << t.id
              << (done[i]      ? "  done  "
                  : resumes[i] ? "  resume"
                               : "  to run")
              << "  seed " << t.config.trial_seed << "  " << t.point_label()
              << (t.tune.empty() ? "" : "  tune: " + t.tune_label()) << "\n";
  }
}

}  // namespace

int run(const std::vector<std::string>& args) {
  std::string file, shard, only_ids;
  RunOptions o;
  bool dry_run = false;
  po::options_description desc;
  desc.add_options()("file", po::value(&file))("overrides", po::value(&o.overrides)->composing())(
      "jobs,j", po::value(&o.jobs)->default_value(0)->value_name("N"),
      "trials side by side (0 = number of cores); results are the same whatever N is")(
      "out", po::value(&o.out)->default_value("runs")->value_name("DIR"),
      "outputs go to DIR/<name>/")("force", po::bool_switch(&o.force), "rerun finished trials")(
      "shard", po::value(&shard)->value_name("K/N"),
      "run only the K-th of N slices of the trials (job arrays)")(
      "dry-run", po::bool_switch(&dry_run), "validate and list the trials, run nothing")(
      "plugin", po::value(&o.plugins)->composing()->value_name("PATH"),
      "load a plugin (repeatable; see nn/README.md)")(
      "quick", po::bool_switch(&o.quick),
      "the file's [quick] variant: the same study at reduced size, as <name>-quick")(
      "only-ids", po::value(&only_ids)->value_name("IDS"),
      "run only the trials whose ids the file IDS lists (one a line), as one plain sweep: "
      "any the design allows (`check`'s budget), no tuning stage or rounds")("quiet,q",
                                                                             "no progress line");
  po::variables_map vm;
  if (!parse(args, desc, vm, "run", "file", "overrides")) return 0;
  o.progress = !vm.count("quiet");
  set_overrides(o.overrides);  // recorded with the command line (records/provenance.h)
  o.out_given = !vm["out"].defaulted();
  if (o.jobs < 0) throw po::error("--jobs must be >= 0");
  if (!shard.empty()) parse_shard(shard, o);
  // Under mpirun only rank 0 prints or runs a study; the others serve trials or exit.
  const bool worker_rank = mpi_session() && mpi_session()->rank() != 0;
  if (worker_rank && (dry_run || is_study_file(file))) return 0;
  if (mpi_session() && !only_ids.empty())
    throw po::error("--only-ids runs locally: run it without mpirun");
  if (mpi_session() && !dry_run && !is_study_file(file)) {
    MpiRunResult m;
    {
      StopOnSignals stop_on_signals;  // on every rank: mpirun passes SIGTERM on to each
      m = run_experiment_mpi(file, o);
    }
    if (m.is_worker) return 0;
    return report_run(m.summary, file, o);
  }
  if (!dry_run && is_study_file(file)) return run_study_command(file, o, only_ids);
  Experiment e = load_experiment(file, load_options(o));
  if (!only_ids.empty()) e = only_listed_trials(e, only_ids);
  if (dry_run) {
    print_dry_run(e, o);
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
  po::options_description desc;
  std::vector<std::string> plugins, overrides;
  desc.add_options()("file", po::value(&file))("overrides", po::value(&overrides)->composing())(
      "plugin", po::value(&plugins)->composing()->value_name("PATH"), "load a plugin (repeatable)")(
      "quick", "the file's [quick] variant (as run --quick)")(
      "budget",
      "with [sweep.adaptive] or tune.seeds: list every trial the design allows, not only the "
      "first block or tuning stage");
  po::variables_map vm;
  if (!parse(args, desc, vm, "check", "file", "overrides")) return 0;
  LoadOptions load;
  load.plugins = plugins;
  load.overrides = overrides;
  load.quick = vm.count("quick") > 0;
  Experiment e = load_experiment(file, load);
  std::cout << file << ": ok, " << e.trials.size() << " trials";
  if (!e.swept_keys.empty() || !e.tune_keys.empty()) {
    std::cout << " (";
    for (std::size_t i = 0; i < e.swept_keys.size(); ++i)  // `seed` is easily taken for `seeds`
      std::cout << (i ? " × " : "") << e.swept_keys[i]
                << (e.swept_keys[i] == "seed" ? " (the data seed)" : "");
    for (const std::string& k : e.tune_keys)
      std::cout << (e.swept_keys.empty() && &k == &e.tune_keys.front() ? "" : " × ") << k
                << " (tuned)";
    std::cout << " × " << (e.tune_seeds.empty() ? e.seeds.size() : e.tune_seeds.size())
              << (e.tune_seeds.empty() ? " seeds)" : " tuning seeds)");
  }
  std::cout << "\n";
  if (!e.tune_seeds.empty()) std::cout << "  " << tuning_stages_text(e) << "\n";
  if (e.halving) std::cout << "  " << halving_preview(e) << "\n";
  // The listed trials are the first block; the rest follow from its results.
  const bool budget = (e.adaptive || !e.tune_seeds.empty()) && vm.count("budget");
  const std::vector<Trial> listed = budget ? budget_trials(e) : e.trials;
  if (e.adaptive) {
    // With a tuning stage, e.trials are its trials and the compared seeds come after.
    const std::size_t at_most = point_count(e) * std::size_t(e.adaptive->max_seeds);
    std::cout << "  " << adaptive_design_text(*e.adaptive) << " (at most " << at_most << " trials"
              << (e.tune_seeds.empty()
                      ? ""
                      : " after the tuning stage's " + std::to_string(e.trials.size()) + ", " +
                            std::to_string(at_most + e.trials.size()) + " in all")
              << "): listed "
              << (budget                 ? "is every trial the budget allows"
                  : e.tune_seeds.empty() ? "is the first block; the seeds after it follow from "
                                           "its results (`ablate run FILE --dry-run` shows the "
                                           "next round)"
                                         : "is the tuning stage; the first block and the rounds "
                                           "follow from its results")
              << "\n"
              << design_preview(e);
  }
  for (const Trial& t : listed)
    std::cout << "  " << t.id << "  seed " << t.config.trial_seed << "  " << t.point_label()
              << (t.tune.empty() ? "" : "  tune: " + t.tune_label()) << "\n";
  return 0;
}

}  // namespace ablate::experiments::cli
