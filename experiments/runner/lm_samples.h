#pragma once
// Generated text from a trained language model, for the report: after each of the
// task's prompts (the beginning of a test document), `length` tokens sampled from the
// model's distribution at temperature 1 — not the most likely continuation, which
// for small character models is a loop — with a generator seeded from the trial's
// seed, so the samples are the same on every run. The context is the last T tokens
// (the training context).
#include <cstdint>
#include <string>
#include <vector>

#include "autograd/rng.h"
#include "experiments/tasks/task.h"
#include "nn/transformer/transformer_models.h"

namespace ablate::experiments {

struct LmSample {
  std::string prompt, continuation;
};

std::vector<LmSample> generate_samples(nn::DecoderLanguageModel& model, const Task& task,
                                       std::uint64_t seed, std::int64_t length);

// The generator samples draw from for `seed` (a stream apart from training's): the
// samples of one seed, prompt after prompt, continue one generator.
Generator sample_generator(std::uint64_t seed);

// `length` tokens after `prompt` (ids, <bos> first), each seeing the last `context`
// tokens: drawn from `sampler` at temperature 1, or the most likely token when
// sampler is null (greedy). Never a special id (<pad> <bos> <eos> are not text).
// Runs in eval mode without gradients and leaves the model in eval mode.
std::vector<std::int32_t> continue_prompt(nn::DecoderLanguageModel& model, std::int64_t context,
                                          const std::vector<std::int32_t>& prompt,
                                          std::int64_t length, Generator* sampler);

// samples.txt: "prompt: ...\ncontinuation: ...\n\n" per sample.
std::string samples_text(const std::vector<LmSample>& samples);

}  // namespace ablate::experiments
