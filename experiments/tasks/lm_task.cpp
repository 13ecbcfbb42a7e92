// lm: language modelling on real text — predict every next token. The data is three
// UTF-8 files, one document per line (the State of the Union addresses as `ablate data
// get sotu` converts them, split by document; or your own), tokenized by characters
// (Unicode code points) or by whitespace.
//
// Each split is one stream: every document is <bos> followed by its tokens, in file
// order. Training windows are T + 1 consecutive tokens at a uniform position of the
// training stream (they may span a document boundary, as GPT-style training does;
// <bos> marks it, and predicting a <bos> is never scored). Evaluation cuts the stream
// into consecutive blocks of `context` tokens, so every token is scored exactly once,
// with the tokens before it in its block as context (non-overlapping evaluation: the
// first tokens of a block see little context, which makes the numbers a little worse
// than a sliding window's, the same for every variant).
//
// Bits per character: the summed negative log-likelihood in bits over the characters
// the scored tokens stand for — one per character token; a word's characters plus
// one for the space after it with whitespace tokens — so the two tokenizations are
// comparable.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "experiments/io/text_file.h"
#include "experiments/tasks/task.h"
#include "experiments/tasks/text_tokens.h"
#include "experiments/tasks/vocabulary.h"

namespace ablate::experiments {

namespace {

constexpr std::int32_t kUnk = kFirstToken;

struct Stream {
  std::vector<std::int32_t> ids;
  std::vector<std::int32_t> characters;  // per id: what a prediction of it covers (0 for <bos>)
  std::vector<std::size_t> document_starts;
};

// The file's lines, each a document (blank lines skipped), untokenized: 10 MB of text
// as a few hundred strings, not millions of token strings.
std::vector<std::string> read_documents(const std::string& path) {
  const TextFile file = TextFile::read(path, kCorpusMaxBytes, "an lm text file");
  std::vector<std::string> documents;
  for (std::size_t i = 0; i < file.line_count(); ++i)
    if (!file.line(i).empty()) documents.emplace_back(file.line(i));
  if (documents.empty())
    throw std::runtime_error(path + ": no documents (expected one document per line)");
  return documents;
}

class LmTask : public Task {
 public:
  LmTask(const nn::Options& o, const std::string& base_dir)
      : by_char_(o.get_string("tokens") == "char"),
        context_(o.get_int("context")),
        max_factor_(o.get_int("max_context_factor")) {
    auto read = [&](const char* key) {
      return read_documents(resolve_data_path(base_dir, o.get_string(key)));
    };
    const auto train = read("train");
    std::set<std::string> seen;  // sorted: ids independent of the text's order
    for (const std::string& d : train)
      for (std::string& t : tokens_of(d)) seen.insert(std::move(t));
    vocab_ = Vocabulary({"<unk>"}, {seen.begin(), seen.end()});
    train_ = stream_of(train, 0);
    validation_ = stream_of(read("validation"), o.get_int("validation_tokens"));
    const auto test = read("test");
    test_ = stream_of(test, o.get_int("test_tokens"));
    for (std::size_t d = 0; d < std::min<std::size_t>(3, test.size()); ++d) {
      const std::vector<std::string> tokens = tokens_of(test[d]);
      std::vector<std::int32_t> prompt{kBos};
      for (std::size_t i = 0; i < std::min<std::size_t>(tokens.size(), by_char_ ? 40 : 8); ++i)
        prompt.push_back(vocab_.find(tokens[i]).value_or(kUnk));
      prompts_.push_back(std::move(prompt));
    }
    if (std::int64_t(train_.ids.size()) < context_ + 1)
      throw std::runtime_error(resolve_data_path(base_dir, o.get_string("train")) + ": " +
                               std::to_string(train_.ids.size()) +
                               " tokens, fewer than context + 1 = " + std::to_string(context_ + 1));
  }

  TaskFamily family() const override { return TaskFamily::lm; }
  std::string name() const override { return "lm"; }
  std::int64_t target_vocab() const override { return vocab_.size(); }
  std::int64_t context() const override { return context_; }
  std::int64_t max_context_factor() const override { return max_factor_; }
  std::vector<std::vector<std::int32_t>> sample_prompts() const override { return prompts_; }
  std::vector<std::int32_t> tokenize_prompt(const std::string& text) const override {
    std::vector<std::int32_t> ids;
    for (const std::string& t : tokens_of(text)) ids.push_back(vocab_.find(t).value_or(kUnk));
    return ids;
  }
  std::string detokenize(const std::int32_t* ids, std::int64_t n, bool) const override {
    std::string out;
    for (std::int64_t i = 0; i < n; ++i) {
      if (ids[i] == kPad || ids[i] == kEos) break;
      if (ids[i] == kBos) continue;
      if (!by_char_ && !out.empty()) out += ' ';
      out += vocab_.token(ids[i]);
    }
    return out;
  }

  LmBatch lm_train_batch(Generator& gen, std::int64_t batch_size) const override {
    if (batch_size < 1)
      throw std::invalid_argument("batch size must be at least 1, got " +
                                  std::to_string(batch_size));
    std::vector<std::size_t> starts;
    const std::int64_t positions = std::int64_t(train_.ids.size()) - context_;  // ≥ 1 (constructor)
    for (std::int64_t b = 0; b < batch_size; ++b)
      starts.push_back(std::size_t(uniform_index(gen, positions)));
    return blocks(train_, starts, context_);
  }

  std::vector<LmBatch> lm_evaluation_batches(Split split, std::int64_t batch_size,
                                             std::int64_t context) const override {
    if (batch_size < 1 || context < 1)
      throw std::invalid_argument("batch size and context must be at least 1");
    const Stream& s = split == Split::validation ? validation_ : test_;
    std::vector<std::size_t> starts;
    for (std::size_t at = 0; at + 1 < s.ids.size(); at += std::size_t(context))
      starts.push_back(at);
    std::vector<LmBatch> out;
    for (std::size_t i = 0; i < starts.size(); i += std::size_t(batch_size))
      out.push_back(blocks(
          s,
          {starts.begin() + std::ptrdiff_t(i),
           starts.begin() + std::ptrdiff_t(std::min(starts.size(), i + std::size_t(batch_size)))},
          context));
    return out;
  }

 private:
  // The first `limit` tokens (0 = all) of the documents as one stream.
  std::vector<std::string> tokens_of(const std::string& document) const {
    return by_char_ ? code_point_tokens(document) : whitespace_tokens(document);
  }

  Stream stream_of(const std::vector<std::string>& documents, std::int64_t limit) const {
    Stream s;
    for (const std::string& d : documents) {
      s.document_starts.push_back(s.ids.size());
      s.ids.push_back(kBos);
      s.characters.push_back(0);
      for (const std::string& t : tokens_of(d)) {
        s.ids.push_back(vocab_.find(t).value_or(kUnk));
        // A character token is one character; a word is its characters and the space after it.
        s.characters.push_back(by_char_ ? 1 : std::int32_t(code_point_tokens(t).size()) + 1);
      }
      if (limit > 0 && std::int64_t(s.ids.size()) >= limit + 1) {
        s.ids.resize(std::size_t(limit + 1));
        s.characters.resize(std::size_t(limit + 1));
        break;
      }
    }
    return s;
  }

  // Rows of `length` inputs from each start, targets one token later; a target past
  // the stream's end or a <bos> is kPad (not scored).
  static LmBatch blocks(const Stream& s, const std::vector<std::size_t>& starts,
                        std::int64_t length) {
    const std::int64_t B = std::int64_t(starts.size()), T = length;
    std::vector<std::int32_t> input(std::size_t(B * T), kPad), target(std::size_t(B * T), kPad);
    LmBatch batch;
    batch.characters.assign(std::size_t(B * T), 0);
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t t = 0; t < T; ++t) {
        const std::size_t at = starts[std::size_t(b)] + std::size_t(t);
        if (at + 1 >= s.ids.size()) break;
        const std::size_t k = std::size_t(b * T + t);
        input[k] = s.ids[at];
        if (s.ids[at + 1] == kBos) continue;
        target[k] = s.ids[at + 1];
        batch.characters[k] = s.characters[at + 1];
      }
    batch.input = Tensor::from_data({B, T}, std::span<const std::int32_t>(input));
    batch.target = Tensor::from_data({B, T}, std::span<const std::int32_t>(target));
    return batch;
  }

  bool by_char_;
  std::int64_t context_, max_factor_;
  Vocabulary vocab_;
  Stream train_, validation_, test_;
  std::vector<std::vector<std::int32_t>> prompts_;
};

nn::OptionSpec split_file(const char* key, const char* what) {
  return {.key = key,
          .default_value = std::string("data:sotu/") + key + ".txt",
          .doc = std::string("the ") + what + " text, one document per line",
          .names_file = true};
}

}  // namespace

void register_lm_task(TaskRegistry& r) {
  r.add(
      {"lm",
       "language modelling: the next token of real text (State of the Union: ablate data get sotu)",
       {split_file("train", "training"),
        split_file("validation", "validation"),
        split_file("test", "test"),
        tokens_option(),
        {"context", std::int64_t(128), "training context length T (tokens)", 1.0, 1e5},
        {"max_context_factor", std::int64_t(1),
         "test also at contexts 2T, 4T, ... up to this multiple of T (length extrapolation)", 1.0,
         64.0},
        {"validation_tokens", std::int64_t(50000),
         "validate on the first this many tokens (0 = all)", 0.0, 1e9},
        {"test_tokens", std::int64_t(0), "test on the first this many tokens (0 = all)", 0.0, 1e9}},
       [](const nn::Options& o, std::uint64_t,
          const std::string& base_dir) -> std::unique_ptr<Task> {
         const std::int64_t f = o.get_int("max_context_factor");
         if (f & (f - 1))
           throw nn::OptionError("task 'lm'", {{"max_context_factor",
                                                "option 'max_context_factor' must be a power "
                                                "of two (1, 2, 4, ...), got " +
                                                    std::to_string(f)}});
         return std::make_unique<LmTask>(o, base_dir);
       }});
}

}  // namespace ablate::experiments
