// numbers_to_words: the digits of a number → its English words, British style with
// "and" ("three hundred and forty two", "one thousand and five"), no hyphens (each
// word is a token). Unlike the symbolic tasks the output is not a rearrangement of the
// input: the model must learn a small grammar in which the output length and words
// depend on digits at other positions (a zero digit vanishes, teens merge two digits).
#include <algorithm>
#include <set>
#include <stdexcept>
#include <string_view>

#include "experiments/tasks/numbers_to_words.h"
#include "experiments/tasks/task.h"
#include "experiments/tasks/text_tokens.h"
#include "experiments/tasks/vocabulary.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace {

constexpr std::string_view kOnes[] = {"zero",    "one",     "two",       "three",    "four",
                                      "five",    "six",     "seven",     "eight",    "nine",
                                      "ten",     "eleven",  "twelve",    "thirteen", "fourteen",
                                      "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
constexpr std::string_view kTens[] = {"",      "",      "twenty",  "thirty", "forty",
                                      "fifty", "sixty", "seventy", "eighty", "ninety"};

using Words = std::vector<std::string_view>;

void below_hundred(std::int64_t n, Words& out) {  // 1..99
  if (n < 20) {
    out.push_back(kOnes[n]);
    return;
  }
  out.push_back(kTens[n / 10]);
  if (n % 10) out.push_back(kOnes[n % 10]);
}

void below_thousand(std::int64_t n, Words& out) {  // 1..999
  if (n >= 100) {
    out.push_back(kOnes[n / 100]);
    out.push_back("hundred");
    if (n % 100 == 0) return;
    out.push_back("and");
  }
  below_hundred(n % 100, out);
}

Words words_of(std::int64_t n) {
  if (n < 0 || n > 999999)
    throw std::out_of_range("number_to_words: " + std::to_string(n) + " is outside 0..999999");
  Words w;
  if (n == 0) w.push_back(kOnes[0]);
  if (n >= 1000) {
    below_thousand(n / 1000, w);
    w.push_back("thousand");
    // British usage: "and" before a remainder below a hundred ("one thousand and five").
    if (n % 1000 != 0 && n % 1000 < 100) w.push_back("and");
  }
  if (n % 1000) below_thousand(n % 1000, w);
  return w;
}

class NumbersToWords : public Task {
 public:
  NumbersToWords(const nn::Options& o, std::uint64_t seed) : max_value_(o.get_int("max_value")) {
    // Every word of 0..max appears already in 0..min(max, 999), plus "thousand" above
    // it: enumerating the first thousand is exact and avoids a million-number pass.
    std::set<std::string> words;
    for (std::int64_t n = 0; n <= std::min<std::int64_t>(max_value_, 999); ++n)
      for (const std::string& w : number_to_words(n)) words.insert(w);
    if (max_value_ >= 1000) words.insert("thousand");
    target_ = Vocabulary({}, {words.begin(), words.end()});
    source_ = Vocabulary({}, {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"});
    for (std::int64_t n = 0; n <= max_value_; ++n)
      max_words_ = std::max<std::int64_t>(max_words_, std::int64_t(words_of(n).size()));

    // A seeded permutation of 0..max: its first fifth is held out — validation from its
    // first half, test from its second — and the rest is what training batches draw
    // from. The split does not depend on the sizes asked for, so changing them never
    // changes the training data.
    std::vector<std::int32_t> numbers(std::size_t(max_value_ + 1));
    for (std::size_t i = 0; i < numbers.size(); ++i) numbers[i] = std::int32_t(i);
    Generator gen = Generator(seed).fork(1);
    for (std::size_t i = numbers.size() - 1; i > 0; --i)
      std::swap(numbers[i], numbers[std::size_t(uniform_index(gen, std::int64_t(i) + 1))]);
    const std::size_t half = std::max<std::size_t>(1, numbers.size() / 10);
    const std::size_t n_val =
        std::min<std::size_t>(half, std::size_t(o.get_int("validation_size")));
    const std::size_t n_test = std::min<std::size_t>(half, std::size_t(o.get_int("test_size")));
    for (std::size_t i = 0; i < n_val; ++i) validation_.push_back(pair(numbers[i]));
    for (std::size_t i = 0; i < n_test; ++i) test_.push_back(pair(numbers[half + i]));
    training_.assign(numbers.begin() + std::ptrdiff_t(2 * half), numbers.end());
  }

  TaskFamily family() const override { return TaskFamily::seq2seq; }
  std::string name() const override { return "numbers_to_words"; }
  std::int64_t source_vocab() const override { return source_.size(); }
  std::int64_t target_vocab() const override { return target_.size(); }
  std::int64_t max_source_length() const override {
    return std::int64_t(std::to_string(max_value_).size());
  }
  std::int64_t max_target_length() const override { return max_words_ + 1; }

  Seq2SeqBatch train_batch(Generator& gen, std::int64_t batch_size) const override {
    if (batch_size < 1)
      throw std::invalid_argument("batch size must be at least 1, got " +
                                  std::to_string(batch_size));
    std::vector<SequencePair> pairs;
    for (std::int64_t i = 0; i < batch_size; ++i)
      pairs.push_back(
          pair(training_[std::size_t(uniform_index(gen, std::int64_t(training_.size())))]));
    return make_seq2seq_batch(pairs);
  }
  std::vector<Seq2SeqBatch> evaluation_batches(Split split,
                                               std::int64_t batch_size) const override {
    return make_seq2seq_batches(split == Split::validation ? validation_ : test_, batch_size);
  }
  std::string detokenize(const std::int32_t* ids, std::int64_t n, bool target) const override {
    return target ? target_.join(ids, n, " ") : source_.join(ids, n, "");
  }
  // The number's digits, as detokenize prints them ("342"); anything but a digit is an
  // error (there is no <unk>).
  std::vector<std::int32_t> tokenize_source(const std::string& text) const override {
    std::vector<std::int32_t> ids;
    for (const std::string& token : code_point_tokens(text)) {
      const std::optional<std::int32_t> id = source_.find(token);
      if (!id)
        throw std::invalid_argument("'" + excerpt(token, 40) +
                                    "' is not a digit (a source is a number's digits, e.g. 342)");
      ids.push_back(*id);
    }
    return ids;
  }

 private:
  SequencePair pair(std::int64_t n) const {
    SequencePair p;
    for (char c : std::to_string(n)) p.source.push_back(source_.id(std::string(1, c)));
    for (const std::string& w : number_to_words(n)) p.target.push_back(target_.id(w));
    return p;
  }

  std::int64_t max_value_, max_words_ = 0;
  Vocabulary source_, target_;
  std::vector<SequencePair> validation_, test_;
  std::vector<std::int32_t> training_;
};

}  // namespace

std::vector<std::string> number_to_words(std::int64_t n) {
  Words w = words_of(n);
  return {w.begin(), w.end()};
}

void register_numbers_to_words_task(TaskRegistry& r) {
  r.add({"numbers_to_words",
         "digits of a number → its English words (British, with \"and\")",
         {{"max_value", std::int64_t(9999), "numbers are drawn from 0..max_value", 2.0, 999999.0},
          {"validation_size", std::int64_t(1000),
           "validation numbers (at most a tenth of 0..max_value, held out)", 1.0, 100000.0},
          {"test_size", std::int64_t(1000),
           "test numbers (at most another tenth of 0..max_value, held out)", 1.0, 100000.0}},
         [](const nn::Options& o, std::uint64_t seed, const std::string&) {
           return std::make_unique<NumbersToWords>(o, seed);
         }});
}

}  // namespace ablate::experiments
