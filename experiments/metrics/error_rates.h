#pragma once
// Corpus-level character and word error rates over UTF-8 text, as jiwer defines them
// for one reference per sentence:
//   CER = Σ char edit distance / Σ reference characters
//   WER = Σ word edit distance / Σ reference words
// summed over the sentences before dividing (a corpus rate, not a mean of sentence
// rates). Characters are Unicode code points of the sentence with leading and
// trailing whitespace removed (jiwer's cer_default: Strip, then characters — interior
// spaces count as characters). Words are the whitespace-separated runs (Python's
// str.split(); jiwer's wer_default collapses runs of whitespace and splits on ' ',
// which is the same unless a tab or newline stands alone between two words).
//
// Several references per sentence: each sentence is scored against its closest
// reference under that metric's own distance (characters for CER, words for WER;
// ties to the reference listed first), and that reference's length is the one added
// to the denominator. With one reference this is exactly jiwer's corpus CER/WER.
#include <cstddef>
#include <string>
#include <vector>

namespace ablate::experiments::metrics {

struct ErrorRate {
  double rate = 0;                   // edits / reference_length
  std::size_t edits = 0;             // Σ edit distance to the chosen references
  std::size_t reference_length = 0;  // Σ length of the chosen references
};

// references[i] lists the references of hypotheses[i] (at least one each). Throws
// std::invalid_argument if the sizes differ, a sentence has no reference, or the
// chosen references are all empty (the rate would be 0/0 — jiwer raises too).
ErrorRate corpus_cer(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references);
ErrorRate corpus_wer(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references);

}  // namespace ablate::experiments::metrics
