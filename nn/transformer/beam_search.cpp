#include "nn/transformer/beam_search.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/tape.h"

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

}  // namespace

Tensor beam_decode(Seq2SeqTransformer& model, const Tensor& src, std::int64_t max_len,
                   std::int64_t width, double length_penalty) {
  if (src.dtype() != DType::i32 || src.shape().rank() != 2)
    throw ShapeError(std::string("beam_decode source: expected i32 ids [batch, length], got ") +
                     dtype_name(src.dtype()) + " " + src.shape().str());
  if (width < 1)
    throw std::invalid_argument("beam_decode: width must be at least 1, got " +
                                std::to_string(width));
  if (!std::isfinite(length_penalty))
    throw std::invalid_argument("beam_decode: length_penalty must be finite");
  NoGradGuard no_grad;
  const VocabularyOptions& vocab = model.vocabulary();
  const std::int64_t B = src.shape()[0], V = vocab.target_vocab, W = width, N = B * W;
  if (max_len <= 0) return Tensor::full({B, 0}, vocab.pad, DType::i32);

  // As in greedy_decode: every step re-runs the decoder on the whole prefix, so the
  // steps run on this thread's decoding tape, reset between steps, with the encoder
  // output kept as a constant — here replicated so row b·W + k is beam k of source b.
  thread_local Tape decoding_tape;
  TapeScope scope(decoding_tape);
  decoding_tape.reset();
  Tensor memory = replicate_rows(model.encode(src).value(), W);
  Tensor beam_src = replicate_rows(src, W);

  std::vector<SourceBeams> sources(static_cast<std::size_t>(B));
  for (SourceBeams& s : sources) s.live.push_back(Hypothesis{});
  std::vector<Candidate> candidates;
  std::vector<double> log_probs;
  for (std::int64_t t = 0; t < max_len; ++t) {
    const std::int64_t L = t + 1;
    // prefix [N, L]: BOS then a live hypothesis's t tokens; filler rows (finished
    // sources, beams not yet full) are BOS then pad, which the decoder masks.
    std::vector<std::int32_t> prefix(std::size_t(N * L), vocab.pad);
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t k = 0; k < W; ++k) {
        std::int32_t* row = prefix.data() + (b * W + k) * L;
        row[0] = vocab.bos;
        const SourceBeams& s = sources[std::size_t(b)];
        if (s.done || k >= std::int64_t(s.live.size())) continue;
        const std::vector<std::int32_t>& tokens = s.live[std::size_t(k)].tokens;
        std::copy(tokens.begin(), tokens.end(), row + 1);
      }
    decoding_tape.reset();
    Tensor logits =
        model.decode(Tensor::from_data({N, L}, prefix), constant(memory), beam_src).value();

    bool all_done = true;
    for (std::int64_t b = 0; b < B; ++b) {
      SourceBeams& s = sources[std::size_t(b)];
      if (s.done) continue;
      candidates.clear();
      for (std::int64_t k = 0; k < std::int64_t(s.live.size()); ++k) {
        log_softmax_row(logits, ((b * W + k) * L + t) * V, V, log_probs);
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
        bool eos = c.token == vocab.eos;
        if (eos ? r >= std::size_t(W) : next.size() >= std::size_t(W)) continue;
        Hypothesis h{s.live[std::size_t(c.beam)].tokens, c.score};
        h.tokens.push_back(c.token);
        (eos ? s.finished : next).push_back(std::move(h));
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
  Tensor out = Tensor::full({B, longest}, vocab.pad, DType::i32);
  for (std::int64_t b = 0; b < B; ++b) {
    const Hypothesis& h = result_of(sources[std::size_t(b)], length_penalty);
    for (std::size_t j = 0; j < h.tokens.size(); ++j)
      out.set(b * longest + std::int64_t(j), h.tokens[j]);
  }
  return out;
}

}  // namespace ablate::nn
