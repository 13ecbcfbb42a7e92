// See chrf.h: a port of sacreBLEU 2.x's CHRF (metrics/chrf.py) with its defaults.
#include "experiments/metrics/chrf.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "experiments/metrics/unicode_text.h"

namespace ablate::experiments::metrics {
namespace {

// One Counter per order, keyed by the n-gram's text (code points for characters,
// ' '-joined words for words, as helpers.extract_word_ngrams joins them).
using CharCounts = std::unordered_map<std::u32string, std::size_t>;
using WordCounts = std::unordered_map<std::string, std::size_t>;

struct SegmentNgrams {
  std::vector<CharCounts> chars;  // orders 1..char_order
  std::vector<WordCounts> words;  // orders 1..word_order
};

// CHRF._PUNCTS, i.e. Python's string.punctuation.
bool is_punct(char c) {
  static constexpr std::string_view kPuncts = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  return kPuncts.find(c) != std::string_view::npos;
}

// CHRF._remove_punctuation. A word "of length 1" is one code point; checking the first
// and last *byte* against the ASCII set is exact, since multi-byte characters start
// and end with bytes >= 0x80, and a one-character word is kept whole either way.
std::vector<std::string> remove_punctuation(const std::string& sentence) {
  std::vector<std::string> tokenized;
  for (auto& w : split_whitespace(sentence)) {
    if (decode_utf8(w).size() == 1) {
      tokenized.push_back(std::move(w));
    } else if (is_punct(w.back())) {
      tokenized.push_back(w.substr(0, w.size() - 1));
      tokenized.push_back(w.substr(w.size() - 1));
    } else if (is_punct(w.front())) {
      tokenized.push_back(w.substr(0, 1));
      tokenized.push_back(w.substr(1));
    } else {
      tokenized.push_back(std::move(w));
    }
  }
  return tokenized;
}

SegmentNgrams extract(const std::string& segment, const ChrfOptions& options) {
  SegmentNgrams out;
  // helpers.extract_all_char_ngrams: whitespace removed unless asked to keep it.
  std::u32string line;
  if (options.whitespace) {
    line = decode_utf8(segment);
  } else {
    for (const auto& piece : split_whitespace(segment)) line += decode_utf8(piece);
  }
  for (std::size_t n = 1; n <= static_cast<std::size_t>(options.char_order); ++n) {
    CharCounts counts;
    for (std::size_t i = 0; i + n <= line.size(); ++i) ++counts[line.substr(i, n)];
    out.chars.push_back(std::move(counts));
  }
  if (options.word_order > 0) {
    const std::vector<std::string> words = remove_punctuation(segment);
    for (std::size_t n = 1; n <= static_cast<std::size_t>(options.word_order); ++n) {
      WordCounts counts;
      for (std::size_t i = 0; i + n <= words.size(); ++i) {
        std::string key = words[i];
        for (std::size_t k = i + 1; k < i + n; ++k) key.append(" ").append(words[k]);
        ++counts[key];
      }
      out.words.push_back(std::move(counts));
    }
  }
  return out;
}

// CHRF._get_match_statistics for one order.
template <typename Counts>
void append_match_statistics(const Counts& hyp, const Counts& ref,
                             std::vector<std::size_t>& stats) {
  std::size_t match = 0, hyp_count = 0, ref_count = 0;
  for (const auto& entry : hyp) {
    hyp_count += entry.second;
    if (const auto found = ref.find(entry.first); found != ref.end())
      match += std::min(entry.second, found->second);
  }
  for (const auto& entry : ref) ref_count += entry.second;
  // "Don't count hits if no reference exists for that n-gram" order.
  stats.push_back(ref.empty() ? 0 : hyp_count);
  stats.push_back(ref_count);
  stats.push_back(match);
}

std::vector<std::size_t> match_statistics(const SegmentNgrams& hyp, const SegmentNgrams& ref) {
  std::vector<std::size_t> stats;
  stats.reserve(3 * (hyp.chars.size() + hyp.words.size()));
  for (std::size_t k = 0; k < hyp.chars.size(); ++k)
    append_match_statistics(hyp.chars[k], ref.chars[k], stats);
  for (std::size_t k = 0; k < hyp.words.size(); ++k)
    append_match_statistics(hyp.words[k], ref.words[k], stats);
  return stats;
}

}  // namespace

double chrf_from_statistics(std::span<const std::size_t> statistics, const ChrfOptions& options) {
  const std::size_t order = static_cast<std::size_t>(options.char_order + options.word_order);
  if (statistics.size() != 3 * order)
    throw std::invalid_argument("chrf_from_statistics: need 3 numbers per order");
  constexpr double eps = 1e-16;
  const double factor = static_cast<double>(options.beta) * static_cast<double>(options.beta);
  double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
  std::size_t effective_order = 0;
  for (std::size_t i = 0; i < order; ++i) {
    const std::size_t n_hyp = statistics[3 * i], n_ref = statistics[3 * i + 1],
                      n_match = statistics[3 * i + 2];
    // chrF++.py style EPS smoothing (also used by Moses and NLTK).
    const double prec = n_hyp > 0 ? static_cast<double>(n_match) / static_cast<double>(n_hyp) : eps;
    const double rec = n_ref > 0 ? static_cast<double>(n_match) / static_cast<double>(n_ref) : eps;
    const double denom = factor * prec + rec;
    score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
    // sacreBLEU < 2.0.0 style effective order smoothing.
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += prec;
      avg_rec += rec;
      ++effective_order;
    }
  }
  if (options.eps_smoothing) return 100 * score / static_cast<double>(order);
  if (effective_order == 0) {
    avg_prec = avg_rec = 0.0;
  } else {
    avg_prec /= static_cast<double>(effective_order);
    avg_rec /= static_cast<double>(effective_order);
  }
  if (avg_prec + avg_rec == 0.0) return 0.0;
  // The same operations in the same order as chrf.py, so the doubles agree bit for bit.
  double f = (1 + factor) * avg_prec * avg_rec;
  f /= (factor * avg_prec) + avg_rec;
  return 100 * f;
}

ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const ChrfOptions& options) {
  if (hypotheses.size() != references.size())
    throw std::invalid_argument("corpus_chrf: hypotheses and references differ in count");
  if (options.char_order < 0 || options.word_order < 0 ||
      options.char_order + options.word_order == 0)
    throw std::invalid_argument("corpus_chrf: need a positive char_order + word_order");
  const std::size_t order = static_cast<std::size_t>(options.char_order + options.word_order);

  ChrfScore result;
  result.statistics.assign(3 * order, 0);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const SegmentNgrams hyp = extract(hypotheses[i], options);
    std::vector<std::size_t> best_stats;
    double best_f = -1.0;
    for (const auto& ref : nonempty_references(references[i])) {
      std::vector<std::size_t> stats = match_statistics(hyp, extract(ref, options));
      const double f = chrf_from_statistics(stats, options);
      if (f > best_f) {  // strictly better: ties keep the earlier reference
        best_f = f;
        best_stats = std::move(stats);
      }
    }
    for (std::size_t k = 0; k < best_stats.size(); ++k) result.statistics[k] += best_stats[k];
  }
  result.score = chrf_from_statistics(result.statistics, options);
  result.nrefs = nrefs_label(references);
  return result;
}

ChrfScore sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references,
                        const ChrfOptions& options) {
  return corpus_chrf({hypothesis}, {references}, options);
}

std::string chrf_name(const ChrfOptions& options) {
  return "chrF" + std::to_string(options.beta) +
         std::string(static_cast<std::size_t>(std::max(0, options.word_order)), '+');
}

std::string chrf_signature(const ChrfOptions& options, std::string_view nrefs,
                           std::string_view version) {
  std::string s = "nrefs:" + std::string(nrefs);
  s += "|case:mixed";
  s += options.eps_smoothing ? "|eff:no" : "|eff:yes";
  s += "|nc:" + std::to_string(options.char_order);
  s += "|nw:" + std::to_string(options.word_order);
  s += options.whitespace ? "|space:yes" : "|space:no";
  s += "|version:" + std::string(version);
  return s;
}

}  // namespace ablate::experiments::metrics
