#include "nn/transformer/beam_search.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "nn/interrupt.h"

namespace ablate::nn {

namespace {

struct Hypothesis {
  std::vector<std::int32_t> tokens;  // after BOS; a finished one ends with EOS
  double score = 0;                  // raw sum of the tokens' log-probabilities
};

// A live hypothesis (`beam`, its rank in the live beam) extended by `token`.
struct Candidate {
  double score;
  std::int32_t beam;
  std::int32_t token;
};

// The strict total order candidates are ranked by: it makes the search deterministic.
bool ranks_before(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.beam != b.beam) return a.beam < b.beam;
  return a.token < b.token;
}

// GNMT's length penalty; exactly 1 when alpha is 0 (no normalisation).
double length_penalty_of(std::int64_t length, double alpha) {
  return alpha == 0 ? 1.0 : std::pow((5.0 + double(length)) / 6.0, alpha);
}

// One source row's search state.
struct SourceBeams {
  std::vector<Hypothesis> live;      // ranked best first
  std::vector<Hypothesis> finished;  // in the order they finished
  bool done = false;
};

// log-softmax of logits[base, base + V) in double, max-subtracted; NaN becomes -inf so
// that the ranking stays a strict order.
void log_softmax_row(const Tensor& logits, std::int64_t base, std::int64_t V,
                     std::vector<double>& out) {
  out.resize(std::size_t(V));
  double max = -std::numeric_limits<double>::infinity();
  for (std::int64_t v = 0; v < V; ++v) {
    out[std::size_t(v)] = logits.at(base + v);
    if (out[std::size_t(v)] > max) max = out[std::size_t(v)];
  }
  double sum = 0;
  for (double x : out) sum += std::exp(x - max);
  double log_normaliser = max + std::log(sum);
  for (double& x : out) {
    x -= log_normaliser;
    if (std::isnan(x)) x = -std::numeric_limits<double>::infinity();
  }
}

// `rows` rows of a [B, ...] tensor, row r a copy of row r / per_row of `t`: the encoder
// memory and the source ids replicated once per beam.
Tensor replicate_rows(const Tensor& t, std::int64_t per_row) {
  Shape shape = t.shape();
  const std::int64_t B = shape[0];
  shape[0] = B * per_row;
  Tensor out = Tensor::empty(shape, t.dtype());
  std::size_t row_bytes = B > 0 ? t.nbytes() / std::size_t(B) : 0;
  const auto* from = static_cast<const unsigned char*>(t.raw());
  auto* to = static_cast<unsigned char*>(out.raw());
  for (std::int64_t r = 0; r < B * per_row; ++r)
    std::memcpy(to + std::size_t(r) * row_bytes, from + std::size_t(r / per_row) * row_bytes,
                row_bytes);
  return out;
}

// What finished hypotheses are compared by.
double final_score(const Hypothesis& h, double alpha) {
  return h.score / length_penalty_of(std::int64_t(h.tokens.size()), alpha);
}

// The best finished hypothesis by final score (the first finished on ties), else the
// best live one.
const Hypothesis& result_of(const SourceBeams& s, double alpha) {
  const Hypothesis* best = nullptr;
  for (const Hypothesis& h : s.finished)
    if (!best || final_score(h, alpha) > final_score(*best, alpha)) best = &h;
  return best ? *best : s.live.front();
}

// The logits of the next token of N hypotheses, [N, V]: `prefixes` [N, L] holds BOS then
// each hypothesis's tokens (filler rows: BOS then pad). Runs on the decoding tape.
using NextTokenLogits = std::function<Tensor(const Tensor& prefixes)>;

// Position `at[n]` of each row of logits [N, T, V], as [N, V] (off any tape).
Tensor rows_at(const Tensor& logits, const std::vector<std::int64_t>& at) {
  const std::int64_t N = logits.shape()[0], T = logits.shape()[1], V = logits.shape()[2];
  Tensor out = Tensor::empty({N, V}, logits.dtype());
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t v = 0; v < V; ++v)
      out.set(n * V + v, logits.at((n * T + at[std::size_t(n)]) * V + v));
  return out;
}

void check_search(const Tensor& ids, const char* what, std::int64_t width, double length_penalty) {
  if (ids.dtype() != DType::i32 || ids.shape().rank() != 2)
    throw ShapeError(std::string(what) + ": expected i32 ids [batch, length], got " +
                     dtype_name(ids.dtype()) + " " + ids.shape().str());
  if (width < 1)
    throw std::invalid_argument("beam_decode: width must be at least 1, got " +
                                std::to_string(width));
  if (!std::isfinite(length_penalty))
    throw std::invalid_argument("beam_decode: length_penalty must be finite");
}

// The search of beam_search.h over B sources × `width` beams, whatever model scores it.
Tensor search(const NextTokenLogits& next_logits, std::int64_t B, std::int64_t V, std::int32_t pad,
              std::int32_t bos, std::int32_t eos, std::int64_t max_len, std::int64_t width,
              double length_penalty) {
  const std::int64_t W = width, N = B * W;
  if (max_len <= 0) return Tensor::full({B, 0}, pad, DType::i32);
  std::vector<SourceBeams> sources(static_cast<std::size_t>(B));
  for (SourceBeams& s : sources) s.live.push_back(Hypothesis{});
  std::vector<Candidate> candidates;
  std::vector<double> log_probs;
  for (std::int64_t t = 0; t < max_len; ++t) {
    throw_if_interrupted();  // up to max_len model calls: a stop must not wait for them
    const std::int64_t L = t + 1;
    // prefix [N, L]: BOS then a live hypothesis's t tokens; filler rows (finished
    // sources, beams not yet full) are BOS then pad, which the decoder masks.
    std::vector<std::int32_t> prefix(std::size_t(N * L), pad);
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t k = 0; k < W; ++k) {
        std::int32_t* row = prefix.data() + (b * W + k) * L;
        row[0] = bos;
        const SourceBeams& s = sources[std::size_t(b)];
        if (s.done || k >= std::int64_t(s.live.size())) continue;
        const std::vector<std::int32_t>& tokens = s.live[std::size_t(k)].tokens;
        std::copy(tokens.begin(), tokens.end(), row + 1);
      }
    const Tensor logits = next_logits(Tensor::from_data({N, L}, prefix));

    bool all_done = true;
    for (std::int64_t b = 0; b < B; ++b) {
      SourceBeams& s = sources[std::size_t(b)];
      if (s.done) continue;
      candidates.clear();
      for (std::int64_t k = 0; k < std::int64_t(s.live.size()); ++k) {
        log_softmax_row(logits, (b * W + k) * V, V, log_probs);
        for (std::int64_t v = 0; v < V; ++v)
          candidates.push_back({s.live[std::size_t(k)].score + log_probs[std::size_t(v)],
                                std::int32_t(k), std::int32_t(v)});
      }
      // Each live hypothesis has one EOS candidate, so the best W + |live| candidates
      // hold the top W and the best W that do not end in EOS.
      std::size_t keep = std::min(candidates.size(), std::size_t(W) + s.live.size());
      std::partial_sort(candidates.begin(), candidates.begin() + std::ptrdiff_t(keep),
                        candidates.end(), ranks_before);
      std::vector<Hypothesis> next;
      for (std::size_t r = 0; r < keep; ++r) {
        const Candidate& c = candidates[r];
        bool is_eos = c.token == eos;
        if (is_eos ? r >= std::size_t(W) : next.size() >= std::size_t(W)) continue;
        Hypothesis h{s.live[std::size_t(c.beam)].tokens, c.score};
        h.tokens.push_back(c.token);
        (is_eos ? s.finished : next).push_back(std::move(h));
      }
      s.live = std::move(next);

      if (s.finished.size() >= std::size_t(W) || s.live.empty()) {
        s.done = true;
      } else if (!s.finished.empty() && L < max_len) {
        // A live hypothesis's completions are L + 1 .. max_len tokens long; the raw
        // score only falls (it is ≤ 0), so the most favourable penalty is the larger
        // one at either end of that range (lp is monotone in the length).
        double best_final = final_score(result_of(s, length_penalty), length_penalty);
        double lp_bound = std::max(length_penalty_of(L + 1, length_penalty),
                                   length_penalty_of(max_len, length_penalty));
        if (best_final >= s.live.front().score / lp_bound) s.done = true;
      }
      all_done = all_done && s.done;
    }
    if (all_done) break;
  }

  std::int64_t longest = 0;
  for (const SourceBeams& s : sources)
    longest = std::max(longest, std::int64_t(result_of(s, length_penalty).tokens.size()));
  Tensor out = Tensor::full({B, longest}, pad, DType::i32);
  for (std::int64_t b = 0; b < B; ++b) {
    const Hypothesis& h = result_of(sources[std::size_t(b)], length_penalty);
    for (std::size_t j = 0; j < h.tokens.size(); ++j)
      out.set(b * longest + std::int64_t(j), h.tokens[j]);
  }
  return out;
}

// Every step re-runs the model on the whole prefix; on one tape those steps would pile
// up, so they run on this thread's decoding tape, reset between steps.
Tape& decoding_tape() {
  thread_local Tape tape;
  return tape;
}

}  // namespace

Tensor beam_decode(Seq2SeqTransformer& model, const Tensor& src, std::int64_t max_len,
                   std::int64_t width, double length_penalty) {
  check_search(src, "beam_decode source", width, length_penalty);
  NoGradGuard no_grad;
  const VocabularyOptions& vocab = model.vocabulary();
  const std::int64_t B = src.shape()[0];
  Tape& tape = decoding_tape();
  TapeScope scope(tape);
  tape.reset();
  // The encoder output is kept as a constant, replicated so row b·W + k is beam k of
  // source b.
  const Tensor memory = replicate_rows(model.encode(src).value(), width);
  const Tensor beam_src = replicate_rows(src, width);
  auto next_logits = [&](const Tensor& prefixes) {
    tape.reset();
    const Tensor logits = model.decode(prefixes, constant(memory), beam_src).value();
    return rows_at(logits, std::vector<std::int64_t>(std::size_t(prefixes.shape()[0]),
                                                     prefixes.shape()[1] - 1));
  };
  return search(next_logits, B, vocab.target_vocab, vocab.pad, vocab.bos, vocab.eos, max_len, width,
                length_penalty);
}

Tensor beam_decode(DecoderLanguageModel& model, const Tensor& prompts, std::int32_t bos,
                   std::int32_t eos, std::int64_t max_len, std::int64_t width,
                   double length_penalty) {
  check_search(prompts, "beam_decode prompts", width, length_penalty);
  NoGradGuard no_grad;
  const std::int32_t pad = model.pad();
  const std::int64_t B = prompts.shape()[0], P = prompts.shape()[1], N = B * width;
  // Each beam's prompt without its padding, so the hypothesis follows it directly and
  // positions count from the prompt's first token.
  std::vector<std::int64_t> prompt_length(std::size_t(N), 0);
  for (std::int64_t n = 0; n < N; ++n)
    while (prompt_length[std::size_t(n)] < P &&
           prompts.at((n / width) * P + prompt_length[std::size_t(n)]) != pad)
      ++prompt_length[std::size_t(n)];
  Tape& tape = decoding_tape();
  TapeScope scope(tape);
  auto next_logits = [&](const Tensor& prefixes) {
    const std::int64_t L = prefixes.shape()[1];
    std::vector<std::int32_t> streams(std::size_t(N * (P + L)), pad);
    std::vector<std::int64_t> last(static_cast<std::size_t>(N));
    for (std::int64_t n = 0; n < N; ++n) {
      const std::int64_t p = prompt_length[std::size_t(n)];
      std::int32_t* row = streams.data() + n * (P + L);
      for (std::int64_t j = 0; j < p; ++j) row[j] = std::int32_t(prompts.at((n / width) * P + j));
      for (std::int64_t j = 0; j < L; ++j) row[p + j] = std::int32_t(prefixes.at(n * L + j));
      last[std::size_t(n)] = p + L - 1;
    }
    tape.reset();
    return rows_at(model.forward(Tensor::from_data({N, P + L}, streams)).value(), last);
  };
  return search(next_logits, B, model.output_vocab(), pad, bos, eos, max_len, width,
                length_penalty);
}

}  // namespace ablate::nn
