#pragma once
// What `ablate check` says of a group-sequential adaptive design before any data: per
// question, from the same boundaries the rounds will use (stats/group_sequential_design.h),
// how often it decides and how many seeds it spends at true effects of 0, 0.5 and 1 sd of
// the paired differences, and the most it can spend.
#include <string>

namespace ablate::experiments {
struct Experiment;
}

namespace ablate::experiments::cli {

// "" for a file without a group-sequential [sweep.adaptive].
std::string design_preview(const Experiment& e);

}  // namespace ablate::experiments::cli
