// copy, reverse, sort: random symbol sequences and a fixed rearrangement of them.
// They isolate what attention must do — copy needs position-to-position alignment,
// reverse needs relative positions from the end (hard for absolute embeddings when
// lengths vary), sort needs content-based comparison and counting — with nothing to
// memorise. Training never draws a validation or test sequence.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "experiments/tasks/task.h"
#include "experiments/tasks/text_tokens.h"
#include "experiments/tasks/vocabulary.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace {

using Rearrange = std::function<void(std::vector<std::int32_t>&)>;

class SymbolicTask : public Task {
 public:
  SymbolicTask(std::string name, Rearrange rearrange, const nn::Options& o, std::uint64_t seed)
      : name_(std::move(name)),
        rearrange_(std::move(rearrange)),
        vocab_(o.get_int("vocab")),
        min_length_(o.get_int("min_length")),
        max_length_(o.get_int("max_length")),
        test_min_(o.get_int("test_min_length") ? o.get_int("test_min_length") : min_length_),
        test_max_(o.get_int("test_max_length") ? o.get_int("test_max_length") : max_length_) {
    if (min_length_ > max_length_)
      throw nn::OptionError(
          "task '" + name_ + "'",
          {{"min_length", "option 'min_length' = " + std::to_string(min_length_) +
                              " is greater than 'max_length' = " + std::to_string(max_length_)}});
    if (test_min_ > test_max_)
      throw nn::OptionError(
          "task '" + name_ + "'",
          {{"test_min_length", "the test lengths " + std::to_string(test_min_) + ".." +
                                   std::to_string(test_max_) + " are an empty range"}});
    std::vector<std::string> symbols;
    for (std::int64_t s = 0; s < vocab_; ++s) symbols.push_back(std::to_string(s));
    tokens_ = Vocabulary({}, symbols);
    const std::int64_t n_val = o.get_int("validation_size"), n_test = o.get_int("test_size");
    // Held-out sequences are distinct and never drawn for training. At most half of
    // the sequences of each length are held out, so training still sees every length
    // (a short length has few sequences: vocab² at length 2).
    // (With test lengths of their own, validation still comes from training's lengths:
    // selection must not see the lengths test measures.)
    auto capacity_of = [&](std::int64_t lo, std::int64_t hi, double& distinct) {
      double capacity = 0;
      for (std::int64_t l = lo; l <= hi && capacity < 1e18; ++l) {
        distinct += std::pow(double(vocab_), double(l));
        capacity += held_out_capacity(l);
      }
      return capacity;
    };
    double distinct = 0;
    const bool own_test_lengths = test_min_ != min_length_ || test_max_ != max_length_;
    const double capacity = capacity_of(min_length_, max_length_, distinct);
    if (own_test_lengths) {
      double test_distinct = 0;
      const double test_capacity = capacity_of(test_min_, test_max_, test_distinct);
      if (double(n_test) > test_capacity)
        throw nn::OptionError(
            "task '" + name_ + "'",
            {{"test_size", "test_size = " + std::to_string(n_test) + ", but the test lengths " +
                               std::to_string(test_min_) + ".." + std::to_string(test_max_) +
                               " allow only " + std::to_string(std::int64_t(test_capacity)) +
                               " held-out sequences (half of each length's)"}});
    }
    if (double(n_val + (own_test_lengths ? 0 : n_test)) > capacity)
      throw nn::OptionError(
          "task '" + name_ + "'",
          {{"validation_size",
            "validation_size + test_size = " + std::to_string(n_val + n_test) +
                " held-out sequences, but vocab " + std::to_string(vocab_) + " and lengths " +
                std::to_string(min_length_) + ".." + std::to_string(max_length_) + " give only " +
                std::to_string(std::int64_t(distinct)) + " distinct sequences, of which " +
                std::to_string(std::int64_t(capacity)) +
                " can be held out (half of each length's)"}});
    // Streams 1 and 2 of the seed: the held-out sets are the same for every trial of
    // an experiment seed, whatever the training stream does.
    Generator val_gen = Generator(seed).fork(1), test_gen = Generator(seed).fork(2);
    draw_held_out(val_gen, n_val, min_length_, max_length_, validation_);
    draw_held_out(test_gen, n_test, test_min_, test_max_, test_);
  }

  TaskFamily family() const override { return TaskFamily::seq2seq; }
  std::string name() const override { return name_; }
  std::int64_t source_vocab() const override { return kFirstToken + vocab_; }
  std::int64_t target_vocab() const override { return kFirstToken + vocab_; }
  std::int64_t max_source_length() const override { return std::max(max_length_, test_max_); }
  std::int64_t max_target_length() const override { return std::max(max_length_, test_max_) + 1; }
  bool metrics_by_length() const override {
    return test_min_ != min_length_ || test_max_ != max_length_;
  }

  Seq2SeqBatch train_batch(Generator& gen, std::int64_t batch_size) const override {
    if (batch_size < 1)
      throw std::invalid_argument("batch size must be at least 1, got " +
                                  std::to_string(batch_size));
    std::vector<SequencePair> pairs;
    for (std::int64_t i = 0; i < batch_size; ++i) {
      SequencePair p = draw(gen, min_length_, max_length_);
      while (held_out_.count(p.source)) p = draw(gen, min_length_, max_length_);
      pairs.push_back(std::move(p));
    }
    return make_seq2seq_batch(pairs);
  }
  std::vector<Seq2SeqBatch> evaluation_batches(Split split,
                                               std::int64_t batch_size) const override {
    return make_seq2seq_batches(split == Split::validation ? validation_ : test_, batch_size);
  }
  std::string detokenize(const std::int32_t* ids, std::int64_t n, bool) const override {
    return tokens_.join(ids, n, " ");
  }
  // Symbol indices separated by spaces, as detokenize prints them ("3 0 5"). Every
  // symbol is known (there is no <unk>): anything else is an error.
  std::vector<std::int32_t> tokenize_source(const std::string& text) const override {
    std::vector<std::int32_t> ids;
    for (const std::string& token : whitespace_tokens(text)) {
      const std::optional<std::int32_t> id = tokens_.find(token);
      if (!id)
        throw std::invalid_argument("'" + excerpt(token, 40) + "' is not a symbol of task '" +
                                    name_ + "' (0.." + std::to_string(vocab_ - 1) +
                                    ", separated by spaces)");
      ids.push_back(*id);
    }
    return ids;
  }

 private:
  SequencePair draw(Generator& gen, std::int64_t min_length, std::int64_t max_length) const {
    std::int64_t length = min_length + uniform_index(gen, max_length - min_length + 1);
    SequencePair p;
    for (std::int64_t t = 0; t < length; ++t)
      p.source.push_back(kFirstToken + std::int32_t(uniform_index(gen, vocab_)));
    p.target = p.source;
    rearrange_(p.target);
    return p;
  }

  // n sequences not held out yet, appended to `out` and to held_out_; a draw of a
  // length whose held-out share is full is drawn again.
  void draw_held_out(Generator& gen, std::int64_t n, std::int64_t min_length,
                     std::int64_t max_length, std::vector<SequencePair>& out) {
    while (std::int64_t(out.size()) < n) {
      SequencePair p = draw(gen, min_length, max_length);
      double& held = held_per_length_[std::int64_t(p.source.size())];
      if (held >= held_out_capacity(std::int64_t(p.source.size()))) continue;
      if (!held_out_.insert(p.source).second) continue;
      ++held;
      out.push_back(std::move(p));
    }
  }

  // Half of the vocab^length sequences of a length (saturating: only compared with
  // held-out sizes).
  double held_out_capacity(std::int64_t length) const {
    return std::floor(std::min(std::pow(double(vocab_), double(length)), 1e18) / 2);
  }

  std::string name_;
  Rearrange rearrange_;
  std::int64_t vocab_, min_length_, max_length_, test_min_, test_max_;
  Vocabulary tokens_;
  std::vector<SequencePair> validation_, test_;
  std::set<std::vector<std::int32_t>> held_out_;  // the sources of both
  std::map<std::int64_t, double> held_per_length_;
};

void add(TaskRegistry& r, const std::string& name, const std::string& description,
         Rearrange rearrange) {
  r.add({name,
         description,
         {{"vocab", std::int64_t(16), "number of ordinary symbols", 2.0, 10000.0},
          {"min_length", std::int64_t(4), "shortest sequence", 1.0, 4096.0},
          {"max_length", std::int64_t(12), "longest sequence", 1.0, 4096.0},
          {"validation_size", std::int64_t(1000), "distinct sequences in the fixed validation set",
           1.0, 1000000.0},
          {"test_size", std::int64_t(1000),
           "distinct sequences in the fixed test set (none in validation)", 1.0, 1000000.0},
          {.key = "test_min_length",
           .default_value = std::int64_t(0),
           .doc = "shortest test sequence; 0 = min_length (length generalisation: test on other "
                  "lengths)",
           .min = 0.0,
           .max = 4096.0,
           .omit_at_default = true},
          {.key = "test_max_length",
           .default_value = std::int64_t(0),
           .doc = "longest test sequence; 0 = max_length",
           .min = 0.0,
           .max = 4096.0,
           .omit_at_default = true}},
         [name, rearrange](const nn::Options& o, std::uint64_t seed, const std::string&) {
           return std::make_unique<SymbolicTask>(name, rearrange, o, seed);
         }});
}

}  // namespace

void register_symbolic_tasks(TaskRegistry& r) {
  add(r, "copy", "output the source sequence unchanged", [](std::vector<std::int32_t>&) {});
  add(r, "reverse", "output the source sequence backwards",
      [](std::vector<std::int32_t>& s) { std::reverse(s.begin(), s.end()); });
  add(r, "sort", "output the source symbols in ascending order",
      [](std::vector<std::int32_t>& s) { std::sort(s.begin(), s.end()); });
}

}  // namespace ablate::experiments
