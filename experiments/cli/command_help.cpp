#include "experiments/cli/command_help.h"

#include <stdexcept>

namespace ablate::experiments::cli {

const std::vector<CommandHelp>& command_helps() {
  static const std::vector<CommandHelp> helps{
      {"run", "run FILE [KEY=VALUE ...] [options]",
       "run an experiment file's sweep into <out>/<name>/ (skips finished trials,\n"
       "continues stopped ones)",
       "  FILE         the experiment file (.toml)\n"
       "  KEY=VALUE    overrides of the file's values, applied in order: a bare word is a\n"
       "               string (model.norm.kind=rms), anything else a TOML value\n"
       "               (train.steps=2000, 'sweep.seeds=[0,1,2]'); an override of a swept key\n"
       "               replaces its axis (docs/reference/commands.md, \"Overrides\")\n",
       "  ablate run experiments/studies/quickstart.toml --jobs 2\n"
       "      # the quickstart sweep; table in runs/quickstart/summary.md\n"
       "  ablate run experiments/studies/quickstart.toml --quick\n"
       "      # its [quick] variant, into runs/quickstart-quick/\n"
       "  ablate run experiments/studies/norms.toml model.norm.placement=post train.steps=400\n"
       "      # one placement only, shorter training\n"
       "  ablate run experiments/studies/quickstart.toml --dry-run\n"
       "      # what would run, resume or be skipped\n"},
      {"check", "check FILE [KEY=VALUE ...] [options]",
       "validate an experiment file and list its trials, without running",
       "  FILE         the experiment file (.toml)\n"
       "  KEY=VALUE    overrides, as for `ablate run`\n",
       "  ablate check experiments/studies/quickstart.toml\n"
       "  ablate check experiments/studies/norms.toml model.norm.kind=rms\n"},
      {"report", "report DIR [options]",
       "rebuild results.csv, comparisons.csv, summary.md, report.html and plots of a\n"
       "run directory (or of a results folder, from its record.jsonl)",
       "  DIR          a run directory (<out>/<name>) or a results folder with a record.jsonl\n",
       "  ablate report runs/quickstart\n"
       "  ablate report experiments/studies/results/quickstart\n"},
      {"compare", "compare DIR... [options]",
       "compare the points of several runs against one baseline (comparisons.csv, .md,\n"
       "report.html)",
       "  DIR...       run directories (<out>/<name>) or results folders\n",
       "  ablate compare runs/quickstart runs/norms --out comparison\n"},
      {"tune-replay", "tune-replay ROOT [options]",
       "replay [tune.halving] schedules on the recorded runs below ROOT (record.jsonl or\n"
       "trials.json): choices changed, verdicts changed, tuning CPU saved",
       "  ROOT         a folder of results folders or run directories\n",
       "  ablate tune-replay experiments/studies/results\n"
       "  ablate tune-replay runs --halving 0.25/0.6 0.25,0.5/0.5\n"},
      {"predict", "predict (CHECKPOINT | TRIAL_DIR | RUN_DIR --point KEY=VALUE... --seed N) INPUT",
       "decode new inputs (one a line; - = stdin) with a trained trial's\n"
       "checkpoint.safetensors: a TSV of predictions (sequence tasks) or continuations (lm)",
       "  CHECKPOINT   a trial's checkpoint.safetensors (train.checkpoint = true)\n"
       "  TRIAL_DIR    a trial's directory (<run>/trials/<id>), which holds it\n"
       "  RUN_DIR      a run directory: the trial is named by --point and --seed\n"
       "  INPUT        one input a line: sources (sequence tasks) or prompts (lm); - = stdin\n",
       "  ablate predict runs/norms --point norm.kind=rms --point norm.placement=pre --seed 0 "
       "in.txt\n"
       "      # the trial of that point and seed\n"
       "  echo '3 1 2' | ablate predict runs/quickstart/trials/<id> -\n"
       "      # a trial by its directory; the input from stdin\n"},
      {"list", "list [AXIS] [options]",
       "every registered component (attention, positions, norms, ...) and its options,\n"
       "and every plain key (widths, placement, steps, ...)",
       "  AXIS         only this axis (norm, positions, attention, task, ...)\n",
       "  ablate list\n  ablate list norm\n"},
      {"data", "data (list | get NAME... | get all | path NAME)",
       "fetch and convert the real datasets (pinned versions, checked SHA-256)",
       "  list         the datasets, whether each is in the cache, and their files\n"
       "  get NAME...  fetch, check, convert and keep in the cache (all = every one)\n"
       "  path NAME    the dataset's directory (its files are data:NAME/<file> in experiments)\n",
       "  ablate data list\n  ablate data get cmudict\n"},
      {"demo", "demo [options]",
       "train a tiny attention model with the autograd tape and print its loss", "",
       "  ablate demo --steps 200\n"},
      {"selftest", "selftest stats [options]",
       "run the verdict rules on simulated studies of known truth and print\n"
       "their error rates, coverage and power against their bounds",
       "  stats        the verdict machinery (the only thing to test so far)\n",
       "  ablate selftest stats --datasets 1000\n"},
  };
  return helps;
}

const CommandHelp& help_of(const std::string& command) {
  for (const CommandHelp& h : command_helps())
    if (command == h.name) return h;
  throw std::logic_error("no help for the command " + command);
}

const std::vector<ExitStatus>& exit_statuses() {
  static const std::vector<ExitStatus> statuses{
      {0, "done: every trial finished (ok or diverged), or the command did what it says"},
      {1, "a trial failed, a report could not be written, or a check failed (demo, selftest)"},
      {2, "bad usage, a bad experiment file or bad input: nothing was written"},
      {kExitLocked, "another `ablate run` is writing the run directory: wait, or use --out"},
      {130, "stopped by SIGINT (Ctrl-C): finished trials kept, the rest resume"},
      {143, "stopped by SIGTERM (e.g. a scheduler's time limit): likewise"},
  };
  return statuses;
}

namespace {

// `text` with every line after the first indented by `indent` spaces.
// (Built by appending: GCC 12 warns falsely, -Wrestrict, on "literal" + std::string.)
std::string hanging(const char* text, std::size_t indent) {
  std::string out;
  for (const char* p = text; *p; ++p) {
    out += *p;
    if (*p == '\n') out.append(indent, ' ');
  }
  return out;
}

// "  NAME" padded to `width` columns.
std::string column(const std::string& name, std::size_t width) {
  std::string out = "  ";
  out += name;
  out.append(width > name.size() ? width - name.size() : 1, ' ');
  return out;
}

}  // namespace

std::string overall_help() {
  std::string out = "usage: ablate <command> [arguments] [options]\n\ncommands:\n";
  for (const CommandHelp& c : command_helps()) {
    out += column(c.name, 12);
    out += hanging(c.summary, 14);
    out += "\n";
  }
  out +=
      "\n'ablate <command> --help' shows a command's arguments, options and examples;\n"
      "'ablate --version' (or 'ablate <command> --version') the version.\n\nexit status:\n";
  for (const ExitStatus& s : exit_statuses()) {
    out += column(std::to_string(s.code), 5);
    out += s.meaning;
    out += "\n";
  }
  return out;
}

std::string help_head(const CommandHelp& help) {
  std::string out = std::string("usage: ablate ") + help.usage + "\n\n" + help.summary + "\n";
  if (*help.arguments) out += std::string("\narguments:\n") + help.arguments;
  return out + "\n";
}

std::string help_tail(const CommandHelp& help) {
  return std::string("\nexamples:\n") + help.examples +
         "\nexit status: 0 done, 1 a trial or check failed, 2 bad usage or input, " +
         std::to_string(kExitLocked) +
         " run directory locked,\n130/143 stopped by SIGINT/SIGTERM ('ablate --help' says more)\n";
}

}  // namespace ablate::experiments::cli
