#pragma once
// `ablate run FILE --only-ids IDS`: exactly the listed trials of FILE's design (any trial
// its budget allows: `ablate check --budget`), run as one plain sweep — no tuning stage
// to wait for, no adaptive rounds. The reproduce tier reruns committed trials of a
// two-stage or adaptive file this way: the ones it names, whatever the design would
// choose from a partial rerun.
#include <string>

#include "experiments/config/experiment.h"

namespace ablate::experiments {

// `e` with only the trials whose ids `ids_file` lists (one a line; blank lines and
// `#` comments skipped), in the design's order. A ConfigError (exit 2) names the line
// of an id that is not a trial of the design, and an ids file that lists none.
Experiment only_listed_trials(const Experiment& e, const std::string& ids_file);

}  // namespace ablate::experiments
