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
  po::options_description desc;
  desc.add_options()("checkpoint", po::value(&target.path))("input", po::value(&input))(
      "point", po::value(&target.points)->composing()->value_name("KEY=VALUE"),
      "with a run directory: the trial's swept value, once per key; a unique end of the key "
      "is enough (--point norm.kind=layer --point norm.placement=pre)")(
      "seed", po::value(&trial_seed)->value_name("N"),
      "with a run directory: the trial's seed (sweep.seeds)")(
      "beam", po::value(&beam)->value_name("N"),
      "sequence tasks: beam search of width N (default: greedy, as the evaluation)")(
      "length", po::value(&length)->value_name("N"),
      "lm: tokens generated after each prompt (default 200)")(
      "sample-seed", po::value(&sample_seed)->value_name("N"),
      "lm: seed of the sampling (default 0)")(
      "greedy", po::bool_switch(&o.greedy),
      "lm: the most likely token at each step instead of sampling")(
      "data-dir", po::value(&o.data_dir)->value_name("DIR"),
      "where the trial's relative data paths resolve (default: its experiment file's directory)")(
      "out", po::value(&out)->value_name("FILE"),
      "write the TSV to FILE (atomically) instead of stdout")(
      "plugin", po::value(&o.plugins)->composing()->value_name("PATH"),
      "load this plugin (repeatable): a checkpoint trained with one names it, but only a file "
      "given here is ever loaded, and only if its SHA-256 is the recorded one");
  po::variables_map vm;
  if (!parse(args, desc, vm, "predict", "checkpoint", "input")) return 0;
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
