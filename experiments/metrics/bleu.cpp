// See bleu.h: a port of sacreBLEU 2.x's BLEU (metrics/bleu.py) with its defaults.
#include "experiments/metrics/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

#include "experiments/metrics/tokenizer_13a.h"
#include "experiments/metrics/unicode_text.h"

namespace ablate::experiments::metrics {
namespace {

using NgramCounts = std::unordered_map<std::string, std::size_t>;

// helpers.extract_all_word_ngrams: every n-gram of the whitespace-split tokens for
// n = 1..max_order. sacreBLEU keys them by token tuples; tokens never contain
// whitespace, so joining with ' ' is an equivalent key, and the order n is the
// number of tokens in it.
NgramCounts extract_ngrams(const std::vector<std::string>& tokens, int max_order) {
  NgramCounts counts;
  const std::size_t order = static_cast<std::size_t>(max_order);
  for (std::size_t n = 1; n <= order; ++n) {
    for (std::size_t i = 0; i + n <= tokens.size(); ++i) {
      std::string key = tokens[i];
      for (std::size_t k = i + 1; k < i + n; ++k) key.append(" ").append(tokens[k]);
      ++counts[key];
    }
  }
  return counts;
}

std::size_t ngram_order(const std::string& key) {
  return static_cast<std::size_t>(std::count(key.begin(), key.end(), ' ')) + 1;
}

// BLEU._get_closest_ref_len: the closest length, ties going to the shorter.
std::size_t closest_ref_len(std::size_t hyp_len, const std::vector<std::size_t>& ref_lens) {
  std::size_t closest_diff = 0, closest_len = 0;
  bool first = true;
  for (const std::size_t len : ref_lens) {
    const std::size_t diff = hyp_len > len ? hyp_len - len : len - hyp_len;
    if (first || diff < closest_diff) {
      closest_diff = diff, closest_len = len, first = false;
    } else if (diff == closest_diff && len < closest_len) {
      closest_len = len;
    }
  }
  return closest_len;
}

// utils.my_log: log floored so that a zero precision gives a (finite) huge negative.
double my_log(double x) {
  return x == 0.0 ? -9999999999.0 : std::log(x);
}

const char* tokenizer_name(BleuTokenizer t) {
  switch (t) {
    case BleuTokenizer::k13a:
      return "13a";
    case BleuTokenizer::kNone:
      return "none";
    case BleuTokenizer::kChar:
      return "char";
  }
  return "?";
}

}  // namespace

std::string bleu_tokenize(std::string_view segment, BleuTokenizer tokenizer) {
  const std::string line = rstrip_whitespace(segment);
  switch (tokenizer) {
    case BleuTokenizer::k13a:
      return tokenize_13a(line);
    case BleuTokenizer::kNone:
      return line;
    case BleuTokenizer::kChar: {
      // tokenizer_char.py: " ".join(every character).
      std::string out;
      for (const char32_t c : decode_utf8(line)) {
        if (!out.empty()) out.push_back(' ');
        out += encode_utf8(std::u32string_view(&c, 1));
      }
      return out;
    }
  }
  return line;
}

BleuScore compute_bleu(std::span<const std::size_t> correct, std::span<const std::size_t> total,
                       std::size_t sys_len, std::size_t ref_len, const BleuOptions& options) {
  const std::size_t order = static_cast<std::size_t>(options.max_ngram_order);
  if (options.max_ngram_order < 1 || correct.size() != order || total.size() != order)
    throw std::invalid_argument("compute_bleu: need max_ngram_order >= 1 counts and totals");

  BleuScore result;
  result.counts.assign(correct.begin(), correct.end());
  result.totals.assign(total.begin(), total.end());
  result.sys_len = sys_len;
  result.ref_len = ref_len;
  result.precisions.assign(order, 0.0);

  if (sys_len < ref_len)
    result.bp = sys_len > 0
                    ? std::exp(1.0 - static_cast<double>(ref_len) / static_cast<double>(sys_len))
                    : 0.0;
  else
    result.bp = 1.0;

  // Early stop if there are no matches at all (sacreBLEU #141).
  if (std::all_of(correct.begin(), correct.end(), [](std::size_t c) { return c == 0; }))
    return result;

  double smooth_value = 0.0;
  if (options.smooth_method == BleuSmoothing::kFloor)
    smooth_value = options.smooth_value.value_or(0.1);
  if (options.smooth_method == BleuSmoothing::kAddK)
    smooth_value = options.smooth_value.value_or(1.0);

  double smooth_mteval = 1.0;
  std::size_t eff_order = order;
  for (std::size_t n = 1; n <= order; ++n) {
    double c = static_cast<double>(correct[n - 1]);
    double t = static_cast<double>(total[n - 1]);
    if (options.smooth_method == BleuSmoothing::kAddK && n > 1) {
      c += smooth_value;
      t += smooth_value;
    }
    if (t == 0.0) break;
    if (options.effective_order) eff_order = n;
    if (c == 0.0) {
      if (options.smooth_method == BleuSmoothing::kExp) {
        smooth_mteval *= 2.0;
        result.precisions[n - 1] = 100.0 / (smooth_mteval * t);
      } else if (options.smooth_method == BleuSmoothing::kFloor) {
        result.precisions[n - 1] = 100.0 * smooth_value / t;
      }
    } else {
      result.precisions[n - 1] = 100.0 * c / t;
    }
  }

  double log_sum = 0.0;
  for (std::size_t n = 0; n < eff_order; ++n) log_sum += my_log(result.precisions[n]);
  result.score = result.bp * std::exp(log_sum / static_cast<double>(eff_order));
  return result;
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options) {
  if (hypotheses.size() != references.size())
    throw std::invalid_argument("corpus_bleu: hypotheses and references differ in count");
  if (options.max_ngram_order < 1) throw std::invalid_argument("corpus_bleu: max_ngram_order < 1");
  const std::size_t order = static_cast<std::size_t>(options.max_ngram_order);

  std::vector<std::size_t> correct(order, 0), total(order, 0);
  std::size_t sys_len = 0, ref_len = 0;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    // BLEU._extract_reference_info: per-n-gram maximum count over the references.
    NgramCounts ref_ngrams;
    std::vector<std::size_t> ref_lens;
    for (const auto& ref : nonempty_references(references[i])) {
      const std::vector<std::string> tokens =
          split_whitespace(bleu_tokenize(ref, options.tokenizer));
      ref_lens.push_back(tokens.size());
      for (const auto& [ngram, count] : extract_ngrams(tokens, options.max_ngram_order)) {
        std::size_t& best = ref_ngrams[ngram];
        best = std::max(best, count);
      }
    }
    // BLEU._compute_segment_statistics.
    const std::vector<std::string> hyp_tokens =
        split_whitespace(bleu_tokenize(hypotheses[i], options.tokenizer));
    sys_len += hyp_tokens.size();
    ref_len += closest_ref_len(hyp_tokens.size(), ref_lens);
    for (const auto& [ngram, count] : extract_ngrams(hyp_tokens, options.max_ngram_order)) {
      const std::size_t n = ngram_order(ngram) - 1;
      total[n] += count;
      if (const auto found = ref_ngrams.find(ngram); found != ref_ngrams.end())
        correct[n] += std::min(count, found->second);
    }
  }
  BleuScore result = compute_bleu(correct, total, sys_len, ref_len, options);
  result.nrefs = nrefs_label(references);
  return result;
}

BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references,
                        const BleuOptions& options) {
  return corpus_bleu({hypothesis}, {references}, options);
}

std::string bleu_signature(const BleuOptions& options, std::string_view nrefs,
                           std::string_view version) {
  // BLEUSignature: smooth_method plus "[value:.2f]" for the methods that take a value.
  std::string smooth;
  switch (options.smooth_method) {
    case BleuSmoothing::kExp:
      smooth = "exp";
      break;
    case BleuSmoothing::kNone:
      smooth = "none";
      break;
    case BleuSmoothing::kFloor:
    case BleuSmoothing::kAddK: {
      const bool floor = options.smooth_method == BleuSmoothing::kFloor;
      char value[64];
      std::snprintf(value, sizeof value, "[%.2f]",
                    options.smooth_value.value_or(floor ? 0.1 : 1.0));
      smooth = std::string(floor ? "floor" : "add-k") + value;
      break;
    }
  }
  std::string s = "nrefs:" + std::string(nrefs);
  s += "|case:mixed";
  s += options.effective_order ? "|eff:yes" : "|eff:no";
  s += "|tok:" + std::string(tokenizer_name(options.tokenizer));
  s += "|smooth:" + smooth;
  s += "|version:" + std::string(version);
  return s;
}

}  // namespace ablate::experiments::metrics
