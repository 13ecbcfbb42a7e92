// `ablate tune-replay`: [tune.halving] schedules replayed on recorded runs
// (reports/tune_replay.h).
#include <iostream>
#include <string>

#include "experiments/reports/tune_replay.h"

#include "experiments/cli/commands.h"

namespace ablate::experiments::cli {

namespace {

// "0.25,0.5/0.5": the rungs, then the fraction kept.
HalvingSchedule parse_schedule(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos)
    throw po::error("--halving " + text + ": give RUNGS/KEEP, e.g. 0.25,0.5/0.5");
  HalvingSchedule s;
  try {
    std::size_t at = 0;
    while (at < slash) {
      std::size_t comma = std::min(text.find(',', at), slash);
      s.rungs.push_back(std::stod(text.substr(at, comma - at)));
      at = comma + 1;
    }
    s.keep = std::stod(text.substr(slash + 1));
  } catch (const std::exception&) {
    throw po::error("--halving " + text + ": not numbers; give RUNGS/KEEP, e.g. 0.25,0.5/0.5");
  }
  bool valid = !s.rungs.empty() && s.keep >= 0.01 && s.keep <= 0.99;
  for (std::size_t i = 0; i < s.rungs.size(); ++i)
    valid = valid && s.rungs[i] > 0 && s.rungs[i] < 1 && (i == 0 || s.rungs[i] > s.rungs[i - 1]);
  if (!valid)
    throw po::error("--halving " + text +
                    ": rungs increasing in (0, 1), keep in [0.01, 0.99], as [tune.halving] "
                    "allows");
  return s;
}

}  // namespace

int tune_replay(const std::vector<std::string>& args) {
  std::string root;
  std::vector<std::string> schedules{"0.25/0.6", "0.5/0.6", "0.25/0.5", "0.25,0.5/0.5",
                                     "0.25,0.5/0.6"};
  po::options_description desc;
  desc.add_options()("root", po::value(&root))(
      "halving", po::value(&schedules)->multitoken()->value_name("RUNGS/KEEP"),
      "the schedules to replay, e.g. 0.25,0.5/0.5 (rungs at 1/4 and 1/2 of train.steps, half "
      "kept at each); default: 0.25/0.6 0.5/0.6 0.25/0.5 0.25,0.5/0.5 0.25,0.5/0.6");
  po::variables_map vm;
  if (!parse(args, desc, vm, "tune-replay", "root")) return 0;
  std::vector<HalvingSchedule> parsed;
  for (const std::string& s : schedules) parsed.push_back(parse_schedule(s));
  std::cout << replay_markdown(replay_runs(root, parsed), parsed);
  return 0;
}

}  // namespace ablate::experiments::cli
