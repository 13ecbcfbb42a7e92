// See edit_distance.h: unit-cost Levenshtein distance and closest-reference choice.
#include "experiments/metrics/edit_distance.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <stdexcept>

namespace ablate::experiments::metrics {
namespace {

// The classic dynamic programme, one row at a time; the row runs over the shorter
// sequence so the memory is O(min(n, m)).
template <typename T>
std::size_t levenshtein(std::span<const T> a, std::span<const T> b) {
  if (a.size() < b.size()) std::swap(a, b);  // b is the shorter: the row
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});  // distance from "" to b[:j]
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];  // row_{i-1}[j-1]
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];  // row_{i-1}[j]
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

template <typename Sequence, typename Distance>
ClosestReference closest(const Sequence& hypothesis, const std::vector<Sequence>& references,
                         Distance distance) {
  if (references.empty()) throw std::invalid_argument("closest_reference: no references");
  ClosestReference best;
  for (std::size_t k = 0; k < references.size(); ++k) {
    const std::size_t d = distance(hypothesis, references[k]);
    if (k == 0 || d < best.distance) best = {d, references[k].size(), k};  // ties: the first
  }
  return best;
}

}  // namespace

std::size_t edit_distance(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  return levenshtein<std::int32_t>(a, b);
}

std::size_t edit_distance(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return levenshtein<std::string>(a, b);
}

std::size_t edit_distance(std::u32string_view a, std::u32string_view b) {
  return levenshtein<char32_t>(std::span<const char32_t>(a.data(), a.size()),
                               std::span<const char32_t>(b.data(), b.size()));
}

ClosestReference closest_reference(const std::vector<std::int32_t>& hypothesis,
                                   const std::vector<std::vector<std::int32_t>>& references) {
  return closest(hypothesis, references,
                 [](const auto& h, const auto& r) { return edit_distance(h, r); });
}

ClosestReference closest_reference(const std::vector<std::string>& hypothesis,
                                   const std::vector<std::vector<std::string>>& references) {
  return closest(hypothesis, references,
                 [](const auto& h, const auto& r) { return edit_distance(h, r); });
}

ClosestReference closest_reference(std::u32string_view hypothesis,
                                   const std::vector<std::u32string>& references) {
  if (references.empty()) throw std::invalid_argument("closest_reference: no references");
  ClosestReference best;
  for (std::size_t k = 0; k < references.size(); ++k) {
    const std::size_t d = edit_distance(hypothesis, references[k]);
    if (k == 0 || d < best.distance) best = {d, references[k].size(), k};
  }
  return best;
}

}  // namespace ablate::experiments::metrics
