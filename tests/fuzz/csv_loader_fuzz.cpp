// Fuzz target: the CSV loader of the forecast task (a researcher's own series), read
// through the task factory as an experiment would (read_series_csv, the time split,
// z-scoring with training statistics, window extraction).
//
// Bad input must be a std::runtime_error naming the file (a per-trial data problem,
// reported with file and line). Accepted input must give a task whose every training
// and validation window is finite f32 — what the model will see — whatever numbers the
// file holds.
#include <cmath>
#include <string>

#include "experiments/tasks/task.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ablate;
using namespace ablate::experiments;
using ablate::fuzz::require;

namespace {

bool all_finite(const Tensor& t) {
  const float* p = t.data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks the options, so both normalize settings and several window
  // sizes are reached; the rest is the file.
  const bool normalize = data[0] & 1;
  const std::int64_t lookback = 1 + ((data[0] >> 1) & 3), horizon = 1 + ((data[0] >> 3) & 1);
  const std::string path = fuzz::write_scratch_file("series.csv", data + 1, size - 1);
  nn::Options options{{"csv", std::string("series.csv")},
                      {"lookback", lookback},
                      {"horizon", horizon},
                      {"normalize", normalize}};
  std::unique_ptr<Task> task;
  if (fuzz::rejected_naming(path, [&] {
        task = task_registry().create("forecast", options, 1, fuzz::scratch_dir().string());
      }))
    return 0;
  require(task->series() >= 1 && task->lookback() == lookback && task->horizon() == horizon,
          "the task has the file's series and the asked windows");
  Generator gen(3);
  ForecastBatch train = task->forecast_train_batch(gen, 4);
  require(all_finite(train.x) && all_finite(train.y), "training windows are finite");
  std::vector<ForecastBatch> validation = task->forecast_evaluation_batches(Split::validation, 64);
  require(!validation.empty(), "there is at least one validation window");
  for (const ForecastBatch& b : validation)
    require(all_finite(b.x) && all_finite(b.y), "validation windows are finite");
  return 0;
}
