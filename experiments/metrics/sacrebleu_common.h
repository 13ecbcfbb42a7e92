#pragma once
// What BLEU and chrF share with sacreBLEU 2.x's `Metric` base class
// (sacrebleu/metrics/base.py): how references are gathered per sentence and how the
// reproducibility signature is spelled.
//
// References: sacreBLEU takes reference *streams* (refs[k][i] is the k-th reference
// of sentence i); this library takes them per sentence (references[i][k]), the same
// data transposed. As in `Metric._cache_references`, empty reference strings are
// dropped, so sentences may have different numbers of references; a sentence left
// with none is an error. The signature's `nrefs` is that number when it is the same
// for every sentence and `var` otherwise.
//
// Signature: `Signature.format()` joins `key:value` pairs with '|', in the order
// nrefs, then the metric's own keys, then version last, e.g.
//   nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0
// (optional keys such as bs, seed or test are absent because they are not used here).
#include <string>
#include <string_view>
#include <vector>

namespace ablate::experiments::metrics {

// The sacreBLEU release whose behaviour this library reproduces and whose version
// the signatures name (the code read was the 2.x `metrics/` package; its README shows
// these exact signature strings for 2.0.0). Callers may pass another version string.
inline constexpr std::string_view kSacreBleuVersion = "2.0.0";

// The non-empty references of one sentence, in order. Throws std::invalid_argument
// if none is left ("Empty or `None` reference sentence found." in sacreBLEU).
std::vector<std::string> nonempty_references(const std::vector<std::string>& references);

// "1", "2", ... when every sentence has that many non-empty references, "var" otherwise.
std::string nrefs_label(const std::vector<std::vector<std::string>>& references);

}  // namespace ablate::experiments::metrics
