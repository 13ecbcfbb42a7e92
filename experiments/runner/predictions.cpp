#include "experiments/runner/predictions.h"

namespace ablate::experiments {

std::string tsv_field(const std::string& field) {
  std::string out;
  for (char c : field) {
    if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\\')
      out += "\\\\";
    else
      out += c;
  }
  return out;
}

namespace {

std::string text(const Task& task, const std::vector<std::int32_t>& ids, bool target) {
  return tsv_field(task.detokenize(ids.data(), std::int64_t(ids.size()), target));
}

}  // namespace

std::string predictions_tsv(const Task& task, const std::vector<DecodedExample>& examples) {
  std::string out = "id\tsource\tprediction\treferences\n";
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const DecodedExample& x = examples[i];
    out += std::to_string(i) + "\t" + text(task, x.source, false) + "\t" +
           text(task, x.prediction, true) + "\t";
    for (std::size_t r = 0; r < x.reference_texts.size(); ++r) {
      if (r) out += " ||| ";
      out += tsv_field(x.reference_texts[r]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace ablate::experiments
