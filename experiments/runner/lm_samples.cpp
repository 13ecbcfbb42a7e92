#include "experiments/runner/lm_samples.h"

#include <algorithm>
#include <cmath>

#include "experiments/runner/stop_signal.h"

namespace ablate::experiments {

namespace {
constexpr std::uint64_t kSampleStream = 0x5a4d504c45ULL;  // "SAMPLE": apart from training's streams
}

Generator sample_generator(std::uint64_t seed) {
  return Generator(seed).fork(kSampleStream);
}

std::vector<std::int32_t> continue_prompt(nn::DecoderLanguageModel& model, std::int64_t context,
                                          const std::vector<std::int32_t>& prompt,
                                          std::int64_t length, Generator* sampler) {
  NoGradGuard no_grad;
  Tape& tape = Tape::current();
  model.eval();
  std::vector<std::int32_t> ids = prompt;
  for (std::int64_t step = 0; step < length; ++step) {
    throw_if_stopped();  // one model call per token: a stop must not wait for them all
    const std::size_t from =
        ids.size() > std::size_t(context) ? ids.size() - std::size_t(context) : 0;
    const std::vector<std::int32_t> window(ids.begin() + std::ptrdiff_t(from), ids.end());
    Tensor logits = model
                        .forward(Tensor::from_data({1, std::int64_t(window.size())},
                                                   std::span<const std::int32_t>(window)))
                        .value();
    const std::int64_t V = logits.shape()[2], last = (std::int64_t(window.size()) - 1) * V;
    // Never the specials: <pad>, <bos>, <eos> are not text.
    double top = -INFINITY;
    std::int32_t chosen = std::int32_t(V - 1);
    for (std::int64_t v = kFirstToken; v < V; ++v)
      if (double(logits.at(last + v)) > top) {
        top = double(logits.at(last + v));
        chosen = std::int32_t(v);  // the first most likely: greedy's choice
      }
    if (sampler) {
      std::vector<double> p(std::size_t(V), 0.0);
      double z = 0;
      for (std::int64_t v = kFirstToken; v < V; ++v)
        z += p[std::size_t(v)] = std::exp(double(logits.at(last + v)) - top);
      double u = sampler->uniform() * z;
      chosen = std::int32_t(V - 1);
      for (std::int64_t v = kFirstToken; v < V; ++v)
        if ((u -= p[std::size_t(v)]) < 0) {
          chosen = std::int32_t(v);
          break;
        }
    }
    ids.push_back(chosen);
    tape.reset();
  }
  return std::vector<std::int32_t>(ids.begin() + std::ptrdiff_t(prompt.size()), ids.end());
}

std::vector<LmSample> generate_samples(nn::DecoderLanguageModel& model, const Task& task,
                                       std::uint64_t seed, std::int64_t length) {
  Generator gen = sample_generator(seed);
  std::vector<LmSample> out;
  for (const std::vector<std::int32_t>& prompt : task.sample_prompts()) {
    const std::vector<std::int32_t> continuation =
        continue_prompt(model, task.context(), prompt, length, &gen);
    out.push_back({task.detokenize(prompt.data(), std::int64_t(prompt.size()), true),
                   task.detokenize(continuation.data(), std::int64_t(continuation.size()), true)});
  }
  model.train();
  return out;
}

std::string samples_text(const std::vector<LmSample>& samples) {
  std::string out;
  for (const LmSample& s : samples)
    out += "prompt: " + s.prompt + "\ncontinuation: " + s.continuation + "\n\n";
  return out;
}

}  // namespace ablate::experiments
