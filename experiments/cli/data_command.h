#pragma once
// `ablate data list | get NAME... | get all | path NAME`: the datasets of datasets.h.
#include <ostream>
#include <string>
#include <vector>

namespace ablate::experiments {

// Returns the exit status: 0 done, 1 a fetch or conversion failed, 2 bad usage
// (an unknown dataset: the message lists the known ones).
int data_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ablate::experiments
