// copy, reverse, sort: random symbol sequences and a fixed rearrangement of them.
// They isolate what attention must do — copy needs position-to-position alignment,
// reverse needs relative positions from the end (hard for absolute embeddings when
// lengths vary), sort needs content-based comparison and counting — with nothing to
// memorise.
#include <algorithm>
#include <functional>

#include "experiments/tasks/task.h"
#include "experiments/tasks/vocabulary.h"

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
        max_length_(o.get_int("max_length")) {
    if (min_length_ > max_length_)
      throw nn::OptionError(
          "task '" + name_ + "'",
          {{"min_length", "option 'min_length' = " + std::to_string(min_length_) +
                              " is greater than 'max_length' = " + std::to_string(max_length_)}});
    std::vector<std::string> symbols;
    for (std::int64_t s = 0; s < vocab_; ++s) symbols.push_back(std::to_string(s));
    tokens_ = Vocabulary({}, symbols);
    // Stream 1 of the seed: the validation set is the same for every trial of an
    // experiment seed, whatever the training stream does.
    Generator gen = Generator(seed).fork(1);
    for (std::int64_t i = 0, n = o.get_int("validation_size"); i < n; ++i)
      validation_.push_back(draw(gen));
  }

  TaskFamily family() const override { return TaskFamily::seq2seq; }
  std::string name() const override { return name_; }
  std::int64_t source_vocab() const override { return kFirstToken + vocab_; }
  std::int64_t target_vocab() const override { return kFirstToken + vocab_; }
  std::int64_t max_source_length() const override { return max_length_; }
  std::int64_t max_target_length() const override { return max_length_ + 1; }

  Seq2SeqBatch train_batch(Generator& gen, std::int64_t batch_size) const override {
    if (batch_size < 1)
      throw std::invalid_argument("batch size must be at least 1, got " +
                                  std::to_string(batch_size));
    std::vector<SequencePair> pairs;
    for (std::int64_t i = 0; i < batch_size; ++i) pairs.push_back(draw(gen));
    return make_seq2seq_batch(pairs);
  }
  std::vector<Seq2SeqBatch> validation_batches(std::int64_t batch_size) const override {
    return make_seq2seq_batches(validation_, batch_size);
  }
  std::string detokenize(const std::int32_t* ids, std::int64_t n, bool) const override {
    return tokens_.join(ids, n, " ");
  }

 private:
  SequencePair draw(Generator& gen) const {
    std::int64_t length = min_length_ + uniform_index(gen, max_length_ - min_length_ + 1);
    SequencePair p;
    for (std::int64_t t = 0; t < length; ++t)
      p.source.push_back(kFirstToken + std::int32_t(uniform_index(gen, vocab_)));
    p.target = p.source;
    rearrange_(p.target);
    return p;
  }

  std::string name_;
  Rearrange rearrange_;
  std::int64_t vocab_, min_length_, max_length_;
  Vocabulary tokens_;
  std::vector<SequencePair> validation_;
};

void add(TaskRegistry& r, const std::string& name, const std::string& description,
         Rearrange rearrange) {
  r.add({name,
         description,
         {{"vocab", std::int64_t(16), "number of ordinary symbols", 2.0, 10000.0},
          {"min_length", std::int64_t(4), "shortest sequence", 1.0, 4096.0},
          {"max_length", std::int64_t(12), "longest sequence", 1.0, 4096.0},
          {"validation_size", std::int64_t(256), "sequences in the fixed validation set", 1.0,
           1000000.0}},
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
