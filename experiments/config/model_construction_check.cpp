#include "experiments/config/model_construction_check.h"

#include <cstdint>
#include <map>
#include <mutex>

#include "experiments/config/trial_config.h"
#include "experiments/models/model_factory.h"

namespace ablate::experiments {

namespace {

// Everything build_model reads from the config, as text: the resolved config without
// its trial seed (initial values only) and without the training keys build_model does
// not read — all but attention_telemetry and recompute (model_factory.cpp).
std::string model_identity(const TrialConfig& c) {
  TrialConfig model_only = c;
  model_only.trial_seed = 0;
  model_only.train = TrainSpec{};
  model_only.train.attention_telemetry = c.train.attention_telemetry;
  // recompute is not part of a trial's identity, so to_toml leaves it out.
  return to_toml_string(model_only) + (c.train.recompute ? "\nrecompute\n" : "\n");
}

struct Checked {
  std::weak_ptr<const Task> task;  // expired: the address in the key may name another task now
  std::string problem;
};

// Bounded: a sweep over thousands of distinct models rebuilds rather than grows.
constexpr std::size_t kMaxRemembered = 1024;

std::mutex checked_mutex;
std::map<std::string, Checked> checked;

}  // namespace

std::string model_construction_problem(const TrialConfig& c,
                                       const std::shared_ptr<const Task>& task) {
  const std::string key =
      model_identity(c) + std::to_string(reinterpret_cast<std::uintptr_t>(task.get()));
  {
    std::lock_guard<std::mutex> lock(checked_mutex);
    if (auto found = checked.find(key); found != checked.end() && !found->second.task.expired())
      return found->second.problem;
  }
  std::string problem;
  try {
    build_model(c, *task);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  std::lock_guard<std::mutex> lock(checked_mutex);
  if (checked.size() >= kMaxRemembered) checked.clear();
  checked[key] = {task, problem};
  return problem;
}

}  // namespace ablate::experiments
