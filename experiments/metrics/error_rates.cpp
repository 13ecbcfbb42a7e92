// See error_rates.h: jiwer-style corpus CER and WER, closest reference per sentence.
#include "experiments/metrics/error_rates.h"

#include <stdexcept>

#include "experiments/metrics/edit_distance.h"
#include "experiments/metrics/unicode_text.h"

namespace ablate::experiments::metrics {
namespace {

void check_shapes(const std::vector<std::string>& hypotheses,
                  const std::vector<std::vector<std::string>>& references, const char* what) {
  if (hypotheses.size() != references.size())
    throw std::invalid_argument(std::string(what) + ": hypotheses and references differ in count");
  for (const auto& refs : references)
    if (refs.empty())
      throw std::invalid_argument(std::string(what) + ": a sentence has no reference");
}

ErrorRate finish(ErrorRate total, const char* what) {
  if (total.reference_length == 0)
    throw std::invalid_argument(std::string(what) + ": the references are empty (0/0)");
  total.rate = static_cast<double>(total.edits) / static_cast<double>(total.reference_length);
  return total;
}

}  // namespace

ErrorRate corpus_cer(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references) {
  check_shapes(hypotheses, references, "corpus_cer");
  ErrorRate total;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const std::u32string hyp = decode_utf8(strip_whitespace(hypotheses[i]));
    std::vector<std::u32string> refs;
    refs.reserve(references[i].size());
    for (const auto& r : references[i]) refs.push_back(decode_utf8(strip_whitespace(r)));
    const ClosestReference best = closest_reference(hyp, refs);
    total.edits += best.distance;
    total.reference_length += best.reference_length;
  }
  return finish(total, "corpus_cer");
}

ErrorRate corpus_wer(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references) {
  check_shapes(hypotheses, references, "corpus_wer");
  ErrorRate total;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const std::vector<std::string> hyp = split_whitespace(hypotheses[i]);
    std::vector<std::vector<std::string>> refs;
    refs.reserve(references[i].size());
    for (const auto& r : references[i]) refs.push_back(split_whitespace(r));
    const ClosestReference best = closest_reference(hyp, refs);
    total.edits += best.distance;
    total.reference_length += best.reference_length;
  }
  return finish(total, "corpus_wer");
}

}  // namespace ablate::experiments::metrics
