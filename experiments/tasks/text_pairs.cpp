// text_pairs: the user's own sequence-to-sequence data, a TSV file "source<TAB>target"
// per line, tokenized by characters (UTF-8 code points) or by whitespace.
//
// Decisions, documented in README.md: a pair longer than max_length is an error naming
// its line, not silently dropped (dropping would change the data distribution without
// anyone noticing); vocabularies come from the training pairs only, sorted, and
// held-out tokens never seen in training map to <unk>, so validation and test measure what a
// deployed model would face.
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "experiments/io/text_file.h"
#include "experiments/metrics/bleu.h"
#include "experiments/metrics/chrf.h"
#include "experiments/metrics/error_rates.h"
#include "experiments/records/ratio_metric.h"
#include "experiments/tasks/task.h"
#include "experiments/tasks/text_tokens.h"
#include "experiments/tasks/vocabulary.h"

namespace ablate::experiments {

namespace {

constexpr std::int32_t kUnk = kFirstToken;

using Tokens = std::vector<std::string>;

Tokens tokenize(const std::string& text, bool by_char, bool lowercase) {
  const std::string t = lowercase ? ascii_lowercase(text) : text;
  return by_char ? code_point_tokens(t) : whitespace_tokens(t);
}

std::string join_tokens(const Tokens& tokens, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < tokens.size(); ++i) out += (i ? separator : "") + tokens[i];
  return out;
}

struct TextPair {
  Tokens source, target;
  std::string target_text;  // as the file has it (after lowercase): the reference text metrics use
};

std::vector<TextPair> read_pairs(const std::string& path, bool by_char, bool lowercase,
                                 std::int64_t max_length, bool header) {
  const TextFile file = TextFile::read(path, kTableMaxBytes, "a text_pairs TSV file");
  auto fail = [&](std::int64_t line, const std::string& what) {
    throw std::runtime_error(path + ":" + std::to_string(line) + ": " + what);
  };
  std::vector<TextPair> pairs;
  for (std::size_t index = header ? 1 : 0; index < file.line_count();
       ++index) {  // a header names columns
    const std::string line(file.line(index));
    const std::int64_t line_no = std::int64_t(index) + 1;
    if (line.empty()) fail(line_no, "empty line (expected source<TAB>target)");
    const std::size_t tabs = std::size_t(std::count(line.begin(), line.end(), '\t'));
    if (tabs == 0) fail(line_no, "no tab (expected source<TAB>target)");
    if (tabs > 1)
      fail(line_no, std::to_string(tabs) + " tabs (expected exactly one, source<TAB>target)");
    const std::size_t tab = line.find('\t');
    TextPair p{tokenize(line.substr(0, tab), by_char, lowercase),
               tokenize(line.substr(tab + 1), by_char, lowercase),
               {}};
    p.target_text = by_char ? join_tokens(p.target, "") : join_tokens(p.target, " ");
    for (auto [side, tokens] : {std::pair{"source", &p.source}, std::pair{"target", &p.target}}) {
      if (tokens->empty()) fail(line_no, std::string("empty ") + side);
      if (std::int64_t(tokens->size()) > max_length)
        fail(line_no, std::string(side) + " has " + std::to_string(tokens->size()) +
                          " tokens, more than max_length = " + std::to_string(max_length));
    }
    pairs.push_back(std::move(p));
  }
  if (pairs.empty()) fail(1, "the file is empty (expected source<TAB>target lines)");
  if (pairs.size() < 3)
    throw std::runtime_error(
        path + ": only " + std::to_string(pairs.size()) + (pairs.size() == 1 ? " pair" : " pairs") +
        "; at least 3 are needed (one to train on, one to validate, one to test)");
  return pairs;
}

Vocabulary vocabulary_of(const std::vector<const Tokens*>& sides) {
  std::set<std::string> seen;  // sorted: ids independent of line order
  for (const Tokens* t : sides) seen.insert(t->begin(), t->end());
  return Vocabulary({"<unk>"}, {seen.begin(), seen.end()});
}

std::vector<std::int32_t> ids_of(const Tokens& tokens, const Vocabulary& v) {
  std::vector<std::int32_t> out;
  for (const std::string& t : tokens) out.push_back(v.find(t).value_or(kUnk));
  return out;
}

class TextPairs : public Task {
 public:
  TextPairs(const nn::Options& o, std::uint64_t seed, const std::string& base_dir)
      : by_char_(o.get_string("tokens") == "char"), lowercase_(o.get_bool("lowercase")) {
    const std::string path = resolve_data_path(base_dir, o.get_string("path"));
    std::vector<TextPair> pairs =
        read_pairs(path, by_char_, lowercase_, o.get_int("max_length"), o.get_bool("header"));

    // A seeded shuffle decides the split, so files sorted by length or topic still
    // give a representative validation set.
    std::vector<std::size_t> order(pairs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    Generator gen = Generator(seed).fork(1);
    for (std::size_t i = order.size() - 1; i > 0; --i)
      std::swap(order[i], order[std::size_t(uniform_index(gen, std::int64_t(i) + 1))]);
    const std::int64_t n = std::int64_t(pairs.size());  // ≥ 3 (read_pairs)
    const std::int64_t n_val = std::clamp<std::int64_t>(
        std::llround(double(n) * o.get_float("validation_fraction")), 1, n - 2);
    const std::int64_t n_test = std::clamp<std::int64_t>(
        std::llround(double(n) * o.get_float("test_fraction")), 1, n - n_val - 1);
    const std::int64_t held = n_val + n_test;

    std::vector<const Tokens*> train_sources, train_targets;
    for (std::int64_t i = held; i < n; ++i) {
      train_sources.push_back(&pairs[order[std::size_t(i)]].source);
      train_targets.push_back(&pairs[order[std::size_t(i)]].target);
    }
    source_ = vocabulary_of(train_sources);
    target_ = vocabulary_of(train_targets);
    for (std::int64_t i = 0; i < n; ++i) {
      const TextPair& p = pairs[order[std::size_t(i)]];
      (i < n_val  ? validation_
       : i < held ? test_
                  : training_)
          .push_back({ids_of(p.source, source_), ids_of(p.target, target_)});
      if (i < held) (i < n_val ? validation_texts_ : test_texts_).push_back({p.target_text});
      max_source_ = std::max(max_source_, std::int64_t(p.source.size()));
      max_target_ = std::max(max_target_, std::int64_t(p.target.size()) + 1);
    }
  }

  TaskFamily family() const override { return TaskFamily::seq2seq; }
  std::string name() const override { return "text_pairs"; }
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
  std::string detokenize(const std::int32_t* ids, std::int64_t n, bool target) const override {
    return (target ? target_ : source_).join(ids, n, by_char_ ? "" : " ");
  }
  // As the file's sources are read: lowercased if the task lowercases, then cut into
  // characters or words; a token unseen in the training sources is <unk>.
  std::vector<std::int32_t> tokenize_source(const std::string& text) const override {
    return ids_of(tokenize(text, by_char_, lowercase_), source_);
  }
  std::vector<std::vector<std::string>> reference_texts(Split split) const override {
    return split == Split::validation ? validation_texts_ : test_texts_;
  }
  // CER and WER (closest reference, sentences as the units of their standard errors),
  // and corpus BLEU and chrF as sacreBLEU 2 computes them (experiments/metrics/README.md),
  // all on the texts — predictions detokenized, references as the file has them.
  void score_decoded(const std::vector<DecodedExample>& examples,
                     std::map<std::string, double>& metrics,
                     std::map<std::string, double>& standard_errors) const override {
    if (examples.empty()) return;
    std::vector<std::string> hypotheses;
    std::vector<std::vector<std::string>> references;
    RatioMetric cer, wer;
    for (const DecodedExample& x : examples) {
      hypotheses.push_back(
          detokenize(x.prediction.data(), std::int64_t(x.prediction.size()), true));
      references.push_back(x.reference_texts);
      const metrics::ErrorRate c = metrics::corpus_cer({hypotheses.back()}, {references.back()});
      const metrics::ErrorRate w = metrics::corpus_wer({hypotheses.back()}, {references.back()});
      cer.add(double(c.edits), double(c.reference_length));
      wer.add(double(w.edits), double(w.reference_length));
    }
    for (auto [name, m] : {std::pair{"cer", &cer}, std::pair{"wer", &wer}}) {
      metrics[name] = m->value();
      standard_errors[name] = m->standard_error();
    }
    metrics["bleu"] = metrics::corpus_bleu(hypotheses, references).score;
    metrics["chrf"] = metrics::corpus_chrf(hypotheses, references).score;
  }

 private:
  bool by_char_, lowercase_;
  Vocabulary source_, target_;
  std::vector<SequencePair> training_, validation_, test_;
  std::vector<std::vector<std::string>> validation_texts_, test_texts_;
  std::int64_t max_source_ = 0, max_target_ = 0;
};

}  // namespace

void register_text_pairs_task(TaskRegistry& r) {
  r.add({"text_pairs",
         "your own sequence pairs: a TSV file source<TAB>target per line",
         {{.key = "path",
           .default_value = std::string(),
           .doc = "the TSV file, relative to the experiment file (required)",
           .names_file = true},
          tokens_option(),
          {"validation_fraction", 0.1, "pairs held out for validation, chosen by a seeded shuffle",
           0.01, 0.45},
          {"test_fraction", 0.1, "pairs held out for test (after validation's, same shuffle)", 0.01,
           0.45},
          {"max_length", std::int64_t(64), "longest source or target in tokens (longer: error)",
           1.0, 100000.0},
          {"lowercase", false, "lowercase ASCII letters before tokenizing"},
          {"header", false, "the file's first line names the columns: skip it"}},
         [](const nn::Options& o, std::uint64_t seed, const std::string& base_dir) {
           if (o.get_string("path").empty())
             throw nn::OptionError("task 'text_pairs'",
                                   {{"path",
                                     "option 'path' is required (a TSV file of "
                                     "source<TAB>target lines)"}});
           return std::make_unique<TextPairs>(o, seed, base_dir);
         }});
}

}  // namespace ablate::experiments
