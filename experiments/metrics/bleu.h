#pragma once
// Corpus BLEU exactly as sacreBLEU 2.x computes it (sacrebleu/metrics/bleu.py,
// metrics/helpers.py, utils.py), defaults first:
//   tokenize "13a" (tokenizer_13a.h) applied to each segment after rstrip(),
//   case-sensitive, max n-gram order 4, smooth_method "exp", effective_order off.
// Per sentence: hypothesis n-grams (n = 1..4, over whitespace-split tokens) are
// counted; each is clipped by its largest count in any one reference; the reference
// length is the closest reference length to the hypothesis length (ties: the shorter,
// `BLEU._get_closest_ref_len`). Counts, totals and lengths are summed over the corpus,
// then `BLEU.compute_bleu`:
//   bp = 1 if sys_len >= ref_len, else exp(1 - ref_len / sys_len) (0 if sys_len = 0);
//   no match at any order → score 0 (sacreBLEU #141);
//   p_n = 100 · correct_n / total_n; a zero count under "exp" becomes
//   100 / (2^k · total_n) for its k-th zero order; an order with total_n = 0 stops the
//   loop and leaves p_n = 0, which (through utils.my_log: log 0 := -9999999999)
//   makes the score 0 unless effective_order drops that order;
//   score = bp · exp(Σ_{n ≤ eff} log p_n / eff), eff = max order or, with
//   effective_order, the last order with total_n > 0.
// The other smoothing methods ("none", "floor" default 0.1, "add-k" default 1) and
// tokenizers ("none", "char") are ported too because sacreBLEU's tests exercise them.
// Not ported: lowercase=True (needs Python's Unicode str.lower()), and the zh, intl,
// ja-mecab, ko-mecab, spm and flores tokenizers.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/metrics/sacrebleu_common.h"

namespace ablate::experiments::metrics {

enum class BleuTokenizer { k13a, kNone, kChar };          // signature "13a", "none", "char"
enum class BleuSmoothing { kExp, kNone, kFloor, kAddK };  // "exp", "none", "floor", "add-k"

struct BleuOptions {
  BleuTokenizer tokenizer = BleuTokenizer::k13a;
  BleuSmoothing smooth_method = BleuSmoothing::kExp;
  std::optional<double> smooth_value;  // unset: floor 0.1, add-k 1 (BLEU.SMOOTH_DEFAULTS)
  int max_ngram_order = 4;
  bool effective_order = false;
};

struct BleuScore {
  double score = 0;                // 0–100
  std::vector<double> precisions;  // p_1..p_N in percent, after smoothing
  double bp = 0;                   // brevity penalty
  std::size_t sys_len = 0;         // Σ hypothesis tokens
  std::size_t ref_len = 0;         // Σ closest reference lengths
  // Σ clipped matches and Σ hypothesis n-grams per order, before smoothing (sacreBLEU's
  // BLEUScore.counts/totals are the same except that add-k adds k to them in place).
  std::vector<std::size_t> counts, totals;
  std::string nrefs = "1";  // for the signature: "1", "2", ..., or "var"
};

// The tokenization BLEU applies to one segment: rstrip(), then the chosen tokenizer.
std::string bleu_tokenize(std::string_view segment, BleuTokenizer tokenizer = BleuTokenizer::k13a);

// BLEU from sufficient statistics (`BLEU.compute_bleu`); `correct` and `total` have
// max_ngram_order entries each.
BleuScore compute_bleu(std::span<const std::size_t> correct, std::span<const std::size_t> total,
                       std::size_t sys_len, std::size_t ref_len, const BleuOptions& options = {});

// references[i] lists the references of hypotheses[i]; empty strings are dropped (see
// sacrebleu_common.h). Throws std::invalid_argument if the counts differ or a sentence
// has no non-empty reference.
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options = {});

// sacreBLEU's sentence_score: corpus_bleu over one sentence (sacreBLEU recommends
// effective_order = true here).
BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references,
                        const BleuOptions& options = {});

// The sacreBLEU signature of these settings, e.g. with the defaults and one reference
//   nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0
// ("floor" and "add-k" carry their value: smooth:floor[0.10]).
std::string bleu_signature(const BleuOptions& options = {}, std::string_view nrefs = "1",
                           std::string_view version = kSacreBleuVersion);

}  // namespace ablate::experiments::metrics
