// cmudict: the npm package's index.js — one `"word": "PHONEMES",` line per entry,
// alternative pronunciations as "word(2)", "word(3)" — into train/validation/test.tsv:
//   word<TAB>pronunciation ||| alternative ...
// (ARPAbet phonemes separated by spaces, stress digits kept; the task may drop them).
// Kept: words of the letters a–z and the apostrophe only, as G2P benchmarks do — the
// dictionary's abbreviations ("a.m."), hyphenated compounds and the like are dropped
// (their number is in the manifest). Split by word (hash_split.h), so every
// pronunciation of a word is in the same split: the splits share no word.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <stdexcept>

#include "experiments/data/datasets.h"
#include "experiments/data/hash_split.h"
#include "experiments/io/atomic_file.h"

namespace ablate::experiments {

Conversion convert_cmudict(const std::string& unpacked, const std::string& out) {
  const std::string source = unpacked + "/package/index.js";
  std::ifstream in(source);
  if (!in) throw std::runtime_error(source + ": missing from the package");
  // 22 entries carry a comment after the phonemes ("AO1 L B AO0 R G # place, danish").
  static const std::regex entry("^  \"([^\"]+)\": \"([A-Z0-9]+(?: [A-Z0-9]+)*)(?: #[^\"]*)?\",?$");
  static const std::regex variant("^(.+)\\(([0-9]+)\\)$");
  static const std::regex plain_word("^[a-z][a-z']*$");
  // word → (variant number → pronunciation), variants in their numeric order.
  std::map<std::string, std::map<int, std::string>> words;
  long long entries = 0, dropped = 0;
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::smatch m;
    if (!std::regex_match(line, m, entry)) {
      // Only the module's own lines are not entries: a comment, the export, the brace.
      if (line.rfind("/**", 0) == 0 || line.rfind("export const dictionary", 0) == 0 ||
          line == "}" || line == "};" || line.empty())
        continue;
      throw std::runtime_error(source + ":" + std::to_string(line_no) +
                               ": not a dictionary entry: " + line.substr(0, 80));
    }
    ++entries;
    std::string word = m[1], phonemes = m[2];
    int number = 1;
    if (std::smatch v; std::regex_match(word, v, variant)) {
      number = std::stoi(v[2]);
      word = v[1];
    }
    if (!std::regex_match(word, plain_word)) {
      ++dropped;
      continue;
    }
    words[word][number] = phonemes;
  }
  if (words.empty()) throw std::runtime_error(source + ": no dictionary entries");
  std::map<std::string, std::string> text;  // split → file content
  Conversion c;
  for (const auto& [word, variants] : words) {
    const std::string split = hash_split(word);
    std::string& t = text[split];
    t += word;
    t += '\t';
    bool first = true;
    for (const auto& v : variants) {
      if (!first) t += " ||| ";
      t += v.second;
      first = false;
    }
    t += '\n';
    c.counts[split + "_words"] += 1;
    c.counts["pronunciations"] += std::int64_t(variants.size());
  }
  for (const char* split : {"train", "validation", "test"}) {
    write_file_atomically(out + "/" + split + ".tsv", text[split]);
    c.files.push_back(std::string(split) + ".tsv");
  }
  c.counts["entries_read"] = entries;
  c.counts["entries_dropped"] = dropped;
  return c;
}

}  // namespace ablate::experiments
