#pragma once
// The English words of a number as the numbers_to_words task spells them: British
// style with "and" ("three hundred and forty two", "one thousand and five"), no
// hyphens, one string per word.
#include <cstdint>
#include <string>
#include <vector>

namespace ablate::experiments {

// 0 ≤ n ≤ 999999; throws std::out_of_range otherwise.
std::vector<std::string> number_to_words(std::int64_t n);

}  // namespace ablate::experiments
