// g2p: grapheme-to-phoneme conversion — a word's letters → its pronunciation, ARPAbet
// phonemes — on the CMU Pronouncing Dictionary as `ablate data get cmudict` converts
// it (experiments/data/README.md): three files, split by word, each line
//   word<TAB>PH ON EMES ||| AL TER NATIVE
// Every pronunciation of a training word is a training pair. A held-out word is one
// example whose references are all its pronunciations: a prediction is right if it
// equals any of them (the teacher-forced loss and token accuracy use the first).
// Metrics, as G2P papers report them:
//   per  phoneme error rate: Σ edit distance to the closest reference / Σ that
//        reference's length, over the split's words (ties: the first reference)
//   wer  word error rate: the share of words whose prediction matches no reference
#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "experiments/io/text_file.h"
#include "experiments/metrics/edit_distance.h"
#include "experiments/records/ratio_metric.h"
#include "experiments/tasks/task.h"
#include "experiments/tasks/text_tokens.h"
#include "experiments/tasks/vocabulary.h"

namespace ablate::experiments {

namespace {

constexpr std::int32_t kUnk = kFirstToken;
constexpr const char* kAlternatives = " ||| ";

struct Entry {
  std::vector<std::string> letters;
  std::vector<std::vector<std::string>> pronunciations;  // at least one, distinct
  std::int64_t line = 0;                                 // in its file, for errors
};

// "AH0 B" → {"AH0", "B"}; without stress, {"AH", "B"} (the digit 0/1/2 after a vowel).
std::vector<std::string> phonemes(const std::string& text, bool stress) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string p; in >> p;) {
    if (!stress && !p.empty() && p.back() >= '0' && p.back() <= '2') p.pop_back();
    out.push_back(p);
  }
  return out;
}

std::vector<Entry> read_dictionary(const std::string& path, bool stress) {
  const TextFile file = TextFile::read(path, kTableMaxBytes, "a g2p dictionary");
  std::vector<Entry> entries;
  std::size_t index = 0;
  auto fail = [&](const std::string& what) {
    throw std::runtime_error(file.where(index) + ": " + what);
  };
  for (; index < file.line_count(); ++index) {
    const std::string line(file.line(index));
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos || line.find('\t', tab + 1) != std::string::npos)
      fail("expected word<TAB>pronunciation ||| alternative ... (one tab)");
    Entry e{code_point_tokens(line.substr(0, tab)), {}, std::int64_t(index + 1)};
    if (e.letters.empty()) fail("empty word");
    const std::string rest = line.substr(tab + 1);
    for (std::size_t start = 0;;) {
      const std::size_t bar = rest.find(kAlternatives, start);
      std::vector<std::string> p = phonemes(rest.substr(start, bar - start), stress);
      if (p.empty()) fail("an empty pronunciation");
      // Without stress two pronunciations can become one: keep it once.
      if (std::find(e.pronunciations.begin(), e.pronunciations.end(), p) == e.pronunciations.end())
        e.pronunciations.push_back(std::move(p));
      if (bar == std::string::npos) break;
      start = bar + std::string(kAlternatives).size();
    }
    entries.push_back(std::move(e));
  }
  if (entries.empty()) throw std::runtime_error(path + ": no words");
  return entries;
}

// Every word and pronunciation of the file at most max_length tokens: what the model
// is sized for (its max_len is the longest of them). Without a bound one long line
// sizes the model's position table and makes every evaluation decode that long.
// Checked over the whole file, before a subset is drawn, so whether a file is accepted
// does not depend on the seed.
void check_lengths(const std::vector<Entry>& entries, const std::string& path,
                   std::int64_t max_length) {
  for (const Entry& e : entries) {
    auto fail = [&](const std::string& what, std::size_t n, const char* units) {
      throw std::runtime_error(path + ":" + std::to_string(e.line) + ": " + what + " has " +
                               std::to_string(n) + " " + units +
                               ", more than max_length = " + std::to_string(max_length) +
                               " (task option max_length, at most 4096)");
    };
    if (std::int64_t(e.letters.size()) > max_length) fail("the word", e.letters.size(), "letters");
    for (const auto& p : e.pronunciations)
      if (std::int64_t(p.size()) > max_length) fail("a pronunciation", p.size(), "phonemes");
  }
}

// The first `keep` entries of a seeded shuffle (all of them for keep = 0), in file order.
std::vector<Entry> subset(std::vector<Entry> entries, std::int64_t keep, Generator gen) {
  if (keep <= 0 || keep >= std::int64_t(entries.size())) return entries;
  std::vector<std::size_t> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (std::size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i], order[std::size_t(uniform_index(gen, std::int64_t(i) + 1))]);
  order.resize(std::size_t(keep));
  std::sort(order.begin(), order.end());
  std::vector<Entry> out;
  for (std::size_t i : order) out.push_back(std::move(entries[i]));
  return out;
}

std::vector<std::int32_t> ids_of(const std::vector<std::string>& tokens, const Vocabulary& v) {
  std::vector<std::int32_t> out;
  for (const std::string& t : tokens) out.push_back(v.find(t).value_or(kUnk));
  return out;
}

class G2pTask : public Task {
 public:
  G2pTask(const nn::Options& o, std::uint64_t seed, const std::string& base_dir) {
    const bool stress = o.get_bool("stress");
    Generator gen(seed);
    auto read = [&](const char* key, std::int64_t keep, std::uint64_t stream) {
      const std::string path = resolve_data_path(base_dir, o.get_string(key));
      std::vector<Entry> entries = read_dictionary(path, stress);
      check_lengths(entries, path, o.get_int("max_length"));
      return subset(std::move(entries), keep, gen.fork(stream));
    };
    const std::vector<Entry> train = read("train", o.get_int("train_words"), 1);
    std::set<std::string> letters, phones;  // sorted: ids independent of line order
    for (const Entry& e : train) {
      letters.insert(e.letters.begin(), e.letters.end());
      for (const auto& p : e.pronunciations) phones.insert(p.begin(), p.end());
    }
    source_ = Vocabulary({"<unk>"}, {letters.begin(), letters.end()});
    target_ = Vocabulary({"<unk>"}, {phones.begin(), phones.end()});
    for (const Entry& e : train)
      for (const auto& p : e.pronunciations) add(training_, nullptr, nullptr, e, p);
    for (const Entry& e : read("validation", o.get_int("validation_words"), 2))
      add(validation_, &validation_references_, &validation_texts_, e, e.pronunciations.front());
    for (const Entry& e : read("test", o.get_int("test_words"), 3))
      add(test_, &test_references_, &test_texts_, e, e.pronunciations.front());
  }

  TaskFamily family() const override { return TaskFamily::seq2seq; }
  std::string name() const override { return "g2p"; }
  std::int64_t source_vocab() const override { return source_.size(); }
  std::int64_t target_vocab() const override { return target_.size(); }
  std::int64_t max_source_length() const override { return max_source_; }
  std::int64_t max_target_length() const override { return max_target_; }

  Seq2SeqBatch train_batch(Generator& gen, std::int64_t batch_size) const override {
    return sample_seq2seq_batch(training_, gen, batch_size);
  }
  std::vector<Seq2SeqBatch> evaluation_batches(Split split,
                                               std::int64_t batch_size) const override {
    return make_seq2seq_batches(split == Split::validation ? validation_ : test_, batch_size);
  }
  std::vector<std::vector<std::vector<std::int32_t>>> references(Split split) const override {
    return split == Split::validation ? validation_references_ : test_references_;
  }
  // As the file has them (after dropping stress): a phoneme unseen in training is an
  // <unk> id, but itself here and in predictions.tsv.
  std::vector<std::vector<std::string>> reference_texts(Split split) const override {
    return split == Split::validation ? validation_texts_ : test_texts_;
  }
  std::string detokenize(const std::int32_t* ids, std::int64_t n, bool target) const override {
    return target ? target_.join(ids, n, " ") : source_.join(ids, n, "");
  }
  // The word's letters (code points), as the dictionary's words are read; a letter
  // unseen in training is <unk>.
  std::vector<std::int32_t> tokenize_source(const std::string& text) const override {
    return ids_of(code_point_tokens(text), source_);
  }

  void score_decoded(const std::vector<DecodedExample>& examples,
                     std::map<std::string, double>& metrics,
                     std::map<std::string, double>& standard_errors) const override {
    RatioMetric per, wer;  // words as the units
    // On the phonemes as text, so that a reference phoneme unseen in training (an
    // <unk> id) never counts as matched, and predictions.tsv gives the same numbers.
    auto phonemes_of = [](const std::string& text) { return phonemes(text, true); };
    for (const DecodedExample& x : examples) {
      std::vector<std::vector<std::string>> references;
      for (const std::string& r : x.reference_texts) references.push_back(phonemes_of(r));
      const metrics::ClosestReference c = metrics::closest_reference(
          phonemes_of(detokenize(x.prediction.data(), std::int64_t(x.prediction.size()), true)),
          references);
      per.add(double(c.distance), double(c.reference_length));
      wer.add(c.distance == 0 ? 0.0 : 1.0, 1.0);
    }
    for (auto [name, m] : {std::pair{"per", &per}, std::pair{"wer", &wer}}) {
      metrics[name] = m->value();
      standard_errors[name] = m->standard_error();
    }
  }

 private:
  void add(std::vector<SequencePair>& split,
           std::vector<std::vector<std::vector<std::int32_t>>>* references,
           std::vector<std::vector<std::string>>* texts, const Entry& e,
           const std::vector<std::string>& target) {
    split.push_back({ids_of(e.letters, source_), ids_of(target, target_)});
    max_source_ = std::max(max_source_, std::int64_t(e.letters.size()));
    for (const auto& p : e.pronunciations)
      max_target_ = std::max(max_target_, std::int64_t(p.size()) + 1);
    if (!references) return;
    references->emplace_back();
    texts->emplace_back();
    for (const auto& p : e.pronunciations) {
      references->back().push_back(ids_of(p, target_));
      std::string text;
      for (const std::string& phoneme : p) text += (text.empty() ? "" : " ") + phoneme;
      texts->back().push_back(text);
    }
  }

  Vocabulary source_, target_;
  std::vector<SequencePair> training_, validation_, test_;
  std::vector<std::vector<std::vector<std::int32_t>>> validation_references_, test_references_;
  std::vector<std::vector<std::string>> validation_texts_, test_texts_;
  std::int64_t max_source_ = 0, max_target_ = 0;
};

nn::OptionSpec split_file(const char* key, const char* what) {
  return {.key = key,
          .default_value = std::string("data:cmudict/") + key + ".tsv",
          .doc = std::string("the ") + what + " words (word<TAB>pronunciation ||| alternative ...)",
          .names_file = true};
}

}  // namespace

void register_g2p_task(TaskRegistry& r) {
  r.add(
      {"g2p",
       "grapheme-to-phoneme: a word's letters → its phonemes (CMUdict: ablate data get cmudict)",
       {split_file("train", "training"),
        split_file("validation", "validation"),
        split_file("test", "test"),
        {"stress", false,
         "keep the vowels' stress digits 0/1/2 (false: 39 phonemes without stress)"},
        {"train_words", std::int64_t(0), "train on a seeded subset of this many words (0 = all)",
         0.0, 1e7},
        {"validation_words", std::int64_t(1000),
         "validate on a seeded subset of this many words (0 = all)", 0.0, 1e7},
        {"test_words", std::int64_t(0), "test on a seeded subset of this many words (0 = all)", 0.0,
         1e7},
        {.key = "max_length",
         .default_value = std::int64_t(64),
         .doc =
             "longest word (letters) or pronunciation (phonemes); longer: an error naming the line",
         .min = 1.0,
         .max = 4096.0,
         .omit_at_default = true}},
       [](const nn::Options& o, std::uint64_t seed, const std::string& base_dir)
           -> std::unique_ptr<Task> { return std::make_unique<G2pTask>(o, seed, base_dir); }});
}

}  // namespace ablate::experiments
