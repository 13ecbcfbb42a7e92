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

#include "experiments/tasks/task.h"
#include "nn/transformer/transformer_models.h"

namespace ablate::experiments {

struct LmSample {
  std::string prompt, continuation;
};

std::vector<LmSample> generate_samples(nn::DecoderLanguageModel& model, const Task& task, std::uint64_t seed,
                                       std::int64_t length);

// samples.txt: "prompt: ...\ncontinuation: ...\n\n" per sample.
std::string samples_text(const std::vector<LmSample>& samples);

}  // namespace ablate::experiments
