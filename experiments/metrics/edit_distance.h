#pragma once
// Levenshtein distance with unit costs (insertion, deletion and substitution each
// cost 1) between two token sequences: ids, words, or characters (Unicode code
// points; unicode_text.h's decode_utf8 turns UTF-8 into them). This is the distance
// jiwer (through rapidfuzz) and every textbook use for WER and CER. O(n·m) time and
// O(min(n, m)) memory.
//
// closest_reference picks, among several references, the one nearest a hypothesis:
// the smallest distance, ties going to the reference listed first.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ablate::experiments::metrics {

std::size_t edit_distance(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b);
std::size_t edit_distance(const std::vector<std::string>& a, const std::vector<std::string>& b);
std::size_t edit_distance(std::u32string_view a, std::u32string_view b);

// The reference a hypothesis is scored against when several are allowed.
struct ClosestReference {
  std::size_t distance = 0;          // edit distance to that reference
  std::size_t reference_length = 0;  // its length in tokens
  std::size_t index = 0;             // its position in the list given
};

// Throws std::invalid_argument if `references` is empty.
ClosestReference closest_reference(const std::vector<std::int32_t>& hypothesis,
                                   const std::vector<std::vector<std::int32_t>>& references);
ClosestReference closest_reference(const std::vector<std::string>& hypothesis,
                                   const std::vector<std::vector<std::string>>& references);
ClosestReference closest_reference(std::u32string_view hypothesis,
                                   const std::vector<std::u32string>& references);

}  // namespace ablate::experiments::metrics
