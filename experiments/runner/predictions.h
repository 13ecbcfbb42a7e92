#pragma once
// predictions.tsv: a sequence trial's decoded test set, so anyone can recompute its
// metrics with their own tools. Columns: id (the example's 0-based index in the test
// set), source, prediction, references (several joined by " ||| "), each as the task
// detokenizes it (characters joined directly, other tokens by spaces). A tab, line
// break or backslash inside a field is written as \t, \n, \\ so every row is one line.
#include <string>
#include <vector>

#include "experiments/tasks/task.h"

namespace ablate::experiments {

std::string predictions_tsv(const Task& task, const std::vector<DecodedExample>& examples);

// A field as these files write it: tab, line break and backslash as \t, \n (\r), \\.
std::string tsv_field(const std::string& text);

}  // namespace ablate::experiments
