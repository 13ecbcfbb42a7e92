// `ablate predict`: new inputs decoded with a trained trial's checkpoint.
#include <iostream>
#include <string>

#include "experiments/io/atomic_file.h"
#include "experiments/runner/predict.h"
#include "experiments/runner/predict_target.h"

#include "experiments/cli/commands.h"

namespace ablate::experiments::cli {

int predict(const std::vector<std::string>& args) {
  PredictOptions o;
  PredictTarget target;
  std::string input, out;
  std::int64_t beam = 0, length = 0;
  std::uint64_t sample_seed = 0, trial_seed = 0;
  po::options_description desc(
      "ablate predict CHECKPOINT|TRIAL_DIR|RUN_DIR [--point KEY=VALUE]... [--seed N] INPUT");
  desc.add_options()("checkpoint", po::value(&target.path),
                     "a trial's checkpoint.safetensors (train.checkpoint = true), its trial "
                     "directory, or a run directory with --point and --seed")(
      "point", po::value(&target.points)->composing(),
      "with a run directory: the trial's swept value KEY=VALUE, once per key "
      "(--point model.norm.kind=layer --point model.norm.placement=pre)")(
      "seed", po::value(&trial_seed), "with a run directory: the trial's seed (sweep.seeds)")(
      "input", po::value(&input),
      "one input a line: sources (sequence tasks) or prompts (lm); - = stdin")(
      "beam", po::value(&beam),
      "sequence tasks: beam search of width N (default: greedy, as the evaluation)")(
      "length", po::value(&length), "lm: tokens generated after each prompt (default 200)")(
      "sample-seed", po::value(&sample_seed), "lm: seed of the sampling (default 0)")(
      "greedy", po::bool_switch(&o.greedy),
      "lm: the most likely token at each step instead of sampling")(
      "data-dir", po::value(&o.data_dir),
      "where the trial's relative data paths resolve (default: its experiment file's directory)")(
      "out", po::value(&out), "write the TSV to FILE (atomically) instead of stdout")(
      "plugin", po::value(&o.plugins)->composing(),
      "load this plugin (repeatable): a checkpoint trained with one names it, but only a file "
      "given "
      "here is ever loaded, and only if its SHA-256 is the recorded one");
  po::variables_map vm;
  if (!parse(args, desc, vm, "checkpoint", "input")) return 0;
  if (!vm.count("input")) throw po::error("missing the input argument");
  if (vm.count("beam")) o.beam = beam;
  if (vm.count("length")) o.length = length;
  if (vm.count("sample-seed")) o.sample_seed = sample_seed;
  if (vm.count("seed")) target.seed = trial_seed;
  o.checkpoint = checkpoint_of(target);
  const std::string input_name = input == "-" ? "<stdin>" : input;
  const PredictionTable table = experiments::predict(o, read_input_lines(input), input_name);
  // On stderr, so that stdout stays the TSV.
  for (const std::string& line : unseen_symbols_report(table, input_name))
    std::cerr << "ablate predict: " << line << "\n";
  const std::string tsv = table.tsv();
  if (out.empty())
    std::cout << tsv;
  else
    write_file_atomically(out, tsv);
  return 0;
}

}  // namespace ablate::experiments::cli
