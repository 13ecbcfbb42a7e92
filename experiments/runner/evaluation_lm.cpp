// The language-modelling half of the Evaluator: the held-out stream in blocks of the
// training context (every token scored once, tasks/README.md), and on test also in
// blocks of 2T, 4T, ... up to max_context_factor × T — the same tokens with longer
// contexts, which is where position encodings that do not extrapolate fail.
//   loss        nats per scored token
//   bpc         bits per character: Σ nats / ln 2 over Σ characters the tokens cover
//   perplexity  exp(loss), per token
// Blocks are the units of the standard errors (perplexity's by the delta method).
#include <cmath>

#include "experiments/records/ratio_metric.h"
#include "experiments/runner/evaluation.h"
#include "experiments/runner/stop_signal.h"

namespace ablate::experiments {

Evaluation Evaluator::evaluate_lm(Split split) {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  Evaluation e;
  const std::int64_t T = task_.context();
  const std::int64_t top_factor = split == Split::test ? task_.max_context_factor() : 1;
  for (std::int64_t factor = 1; factor <= top_factor; factor *= 2) {
    const std::int64_t context = T * factor;
    auto cached = blocks_.find({split, context});
    if (cached == blocks_.end())
      // The same tokens per batch at every context (memory grows with the context too).
      cached = blocks_
                   .emplace(std::pair{split, context},
                            task_.lm_evaluation_batches(
                                split,
                                std::max<std::int64_t>(1, config_.train.validation_batch / factor),
                                context))
                   .first;
    RatioMetric nats, bits, correct;
    for (const LmBatch& b : cached->second) {
      throw_if_stopped();  // a stop must not wait for the rest of the split
      Tensor logits = model_.lm->forward(b.input).value();
      const std::int64_t B = b.target.shape()[0], L = b.target.shape()[1], V = logits.shape()[2];
      for (std::int64_t row = 0; row < B; ++row) {
        double row_nats = 0, row_characters = 0, row_tokens = 0, row_correct = 0;
        for (std::int64_t t = 0; t < L; ++t) {
          const std::int64_t r = row * L + t;
          const std::int32_t target = std::int32_t(b.target.at(r));
          if (target == kPad) continue;
          std::int64_t best = 0;
          double top = logits.at(r * V);
          for (std::int64_t v = 1; v < V; ++v)
            if (logits.at(r * V + v) > top) top = logits.at(r * V + (best = v));
          double z = 0;  // log-sum-exp in double, stable around the largest logit
          for (std::int64_t v = 0; v < V; ++v) z += std::exp(double(logits.at(r * V + v)) - top);
          row_nats += std::log(z) + top - double(logits.at(r * V + target));
          row_characters += b.characters[std::size_t(r)];
          row_tokens += 1;
          row_correct += best == target;
        }
        if (row_tokens == 0) continue;
        nats.add(row_nats, row_tokens);
        bits.add(row_nats / std::log(2.0), row_characters);
        correct.add(row_correct, row_tokens);
      }
      tape.reset();
    }
    const std::string suffix = factor == 1 ? "" : "_ctx" + std::to_string(context);
    const double perplexity = std::exp(nats.value());
    e.metrics["bpc" + suffix] = bits.value();
    e.standard_errors["bpc" + suffix] = bits.standard_error();
    e.metrics["perplexity" + suffix] = perplexity;
    e.standard_errors["perplexity" + suffix] = perplexity * nats.standard_error();
    if (factor == 1) {
      e.loss = nats.value();
      e.standard_errors["loss"] = nats.standard_error();
      correct.put(e, "token_accuracy");
    }
  }
  return e;
}

}  // namespace ablate::experiments
