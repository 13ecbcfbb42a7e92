#include "experiments/analysis/successive_halving.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ablate::experiments {

double best_by_step(const TuningCurve& trial, std::int64_t step) {
  if (trial.diverged_at > 0 && trial.diverged_at <= step) return INFINITY;
  double best = INFINITY;
  for (const auto& [at, loss] : trial.val_loss)
    if (at <= step && loss < best) best = loss;
  return best;
}

double setting_loss_at(const SettingCurves& setting, std::int64_t step) {
  if (setting.trials.empty()) return INFINITY;
  double mean = 0;
  for (const TuningCurve& t : setting.trials)
    mean += best_by_step(t, step) / double(setting.trials.size());
  return mean;
}

namespace {

// Whether the trial's rank at `step` is final: it evaluated there (or later), or it ended.
bool reached(const TuningCurve& trial, std::int64_t step) {
  return trial.finished || (!trial.val_loss.empty() && trial.val_loss.back().first >= step);
}

}  // namespace

HalvingDecision decide_halving(const std::vector<SettingCurves>& settings,
                               const std::vector<std::int64_t>& rung_steps, double keep) {
  HalvingDecision out;
  out.stopped_at.assign(settings.size(), 0);
  for (std::int64_t step : rung_steps) {
    std::vector<std::size_t> running;
    for (std::size_t i = 0; i < settings.size(); ++i)
      if (out.stopped_at[i] == 0) running.push_back(i);
    for (std::size_t i : running)
      for (const TuningCurve& t : settings[i].trials)
        if (!reached(t, step)) return out;
    std::vector<double> loss(settings.size(), INFINITY);
    for (std::size_t i : running) loss[i] = setting_loss_at(settings[i], step);
    // Ties keep the earlier setting, as the chooser's do.
    std::stable_sort(running.begin(), running.end(),
                     [&](std::size_t a, std::size_t b) { return loss[a] < loss[b]; });
    for (std::size_t r = settings_kept(keep, running.size()); r < running.size(); ++r)
      out.stopped_at[running[r]] = step;
    ++out.rungs_decided;
  }
  return out;
}

std::vector<std::int64_t> recorded_rung_steps(const HalvingSchedule& schedule,
                                              const std::vector<SettingCurves>& curves,
                                              std::int64_t train_steps) {
  std::int64_t first = 0;
  for (const SettingCurves& s : curves)
    for (const TuningCurve& t : s.trials)
      if (!t.val_loss.empty() && (first == 0 || t.val_loss.front().first < first))
        first = t.val_loss.front().first;
  if (first == 0) return {};
  return rung_steps(schedule, train_steps, first);
}

std::optional<HalvingSchedule> halving_of_index(const nlohmann::json& index) {
  const nlohmann::json tuning = index.value("tuning", nlohmann::json::object());
  if (!tuning.contains("halving")) return std::nullopt;
  HalvingSchedule out;
  out.rungs = tuning["halving"].at("rungs").get<std::vector<double>>();
  out.keep = tuning["halving"].at("keep").get<double>();
  bool valid = !out.rungs.empty() && out.keep >= 0.01 && out.keep <= 0.99;
  for (std::size_t i = 0; i < out.rungs.size(); ++i)
    valid = valid && out.rungs[i] > 0 && out.rungs[i] < 1 &&
            (i == 0 || out.rungs[i] > out.rungs[i - 1]);
  if (!valid)
    throw std::runtime_error("trials.json: \"tuning.halving\" is not a schedule ablate writes");
  return out;
}

nlohmann::json halving_json(const HalvingSchedule& schedule) {
  return {{"rungs", schedule.rungs}, {"keep", schedule.keep}};
}

}  // namespace ablate::experiments
