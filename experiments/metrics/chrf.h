#pragma once
// Corpus chrF (and chrF++) exactly as sacreBLEU 2.x's `CHRF` computes it
// (sacrebleu/metrics/chrf.py, metrics/helpers.py), defaults first:
//   char_order 6, word_order 0, beta 2, whitespace excluded, case-sensitive,
//   eps_smoothing off (the "effective order" averaging, signature eff:yes).
// Per sentence and reference, for each order n: character n-grams are taken over the
// code points of the segment with all whitespace removed (''.join(line.split())), or
// of the segment as-is when `whitespace` is set; word n-grams (n = 1..word_order) over
// the words after chrF++'s punctuation split (a word of two or more characters that
// ends in ASCII punctuation loses it as a separate token, else one that begins with
// it). The statistics of an order are [hypothesis n-grams — 0 if the reference has
// none at that order —, reference n-grams, Σ min(hyp count, ref count)].
// Several references: the one whose statistics give the best sentence-level score
// (first on ties) supplies the sentence's statistics (CHRF._compute_segment_statistics).
// The statistics are summed over the corpus and scored once (CHRF._compute_f_score):
//   eps_smoothing off: average precision P and recall R over the orders where both
//     hypothesis and reference have n-grams; score = 100·(1+β²)PR / (β²P + R), 0 if
//     no order counts or P + R = 0;
//   eps_smoothing on (chrF++.py, Moses, NLTK): per order prec = match/hyp (1e-16 if
//     hyp = 0), rec = match/ref (1e-16 if ref = 0), f = (1+β²)·prec·rec/(β²prec + rec)
//     (1e-16 if the denominator is 0); score = 100 · Σ f / (char_order + word_order).
// Not ported: lowercase=True (needs Python's Unicode str.lower()).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/metrics/sacrebleu_common.h"

namespace ablate::experiments::metrics {

struct ChrfOptions {
  int char_order = 6;
  int word_order = 0;  // 2 is chrF++
  int beta = 2;
  bool whitespace = false;     // true: keep whitespace inside character n-grams
  bool eps_smoothing = false;  // true: chrF++.py-style epsilon smoothing
};

struct ChrfScore {
  double score = 0;  // 0–100
  // Σ over the corpus of [hyp, ref, match] per order: the char_order character orders
  // first, then the word_order word orders; 3 · (char_order + word_order) numbers.
  std::vector<std::size_t> statistics;
  std::string nrefs = "1";  // for the signature: "1", "2", ..., or "var"
};

// CHRF._compute_f_score on (summed) statistics laid out as ChrfScore::statistics.
double chrf_from_statistics(std::span<const std::size_t> statistics,
                            const ChrfOptions& options = {});

// references[i] lists the references of hypotheses[i]; empty strings are dropped (see
// sacrebleu_common.h). Throws std::invalid_argument if the counts differ or a sentence
// has no non-empty reference.
ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const ChrfOptions& options = {});

// sacreBLEU's sentence_score: corpus_chrf over one sentence.
ChrfScore sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references,
                        const ChrfOptions& options = {});

// The metric's printed name: "chrF" + beta + one '+' per word order ("chrF2", "chrF2++").
std::string chrf_name(const ChrfOptions& options = {});

// The sacreBLEU signature, e.g. with the defaults and one reference
//   nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.0.0
std::string chrf_signature(const ChrfOptions& options = {}, std::string_view nrefs = "1",
                           std::string_view version = kSacreBleuVersion);

}  // namespace ablate::experiments::metrics
