// forecast: from the last `lookback` steps of several series, predict the next
// `horizon` steps of all of them. The series are split in time — training windows
// come from the first part, validation windows from the next, test windows from the
// last, and no window of one part shares a time step with a window of another — so
// validation and test measure forecasting the future, not interpolating between
// training windows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "experiments/tasks/forecast_data.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

namespace {

constexpr std::int64_t kMaxEvaluationWindows = 512;

class ForecastTask : public Task {
 public:
  // Time steps [0, n_train) train, [n_train, n_train + n_val) validate, the rest test.
  ForecastTask(SeriesTable data, std::int64_t lookback, std::int64_t horizon, std::int64_t n_train,
               std::int64_t n_val)
      : data_(std::move(data)), lookback_(lookback), horizon_(horizon), n_train_(n_train) {
    validation_starts_ = window_starts(n_train, n_train + n_val);
    test_starts_ = window_starts(n_train + n_val, data_.steps);
  }

  TaskFamily family() const override { return TaskFamily::forecast; }
  std::string name() const override { return "forecast"; }
  std::int64_t series() const override { return data_.series; }
  std::int64_t lookback() const override { return lookback_; }
  std::int64_t horizon() const override { return horizon_; }

  ForecastBatch forecast_train_batch(Generator& gen, std::int64_t batch_size) const override {
    check_batch_size(batch_size);
    std::vector<std::int64_t> starts;
    const std::int64_t last_start = n_train_ - (lookback_ + horizon_);
    for (std::int64_t i = 0; i < batch_size; ++i)
      starts.push_back(uniform_index(gen, last_start + 1));
    return windows(starts);
  }

  std::vector<ForecastBatch> forecast_evaluation_batches(Split split, std::int64_t batch_size) const override {
    check_batch_size(batch_size);
    const std::vector<std::int64_t>& starts = split == Split::validation ? validation_starts_ : test_starts_;
    std::vector<ForecastBatch> out;
    for (std::size_t i = 0; i < starts.size(); i += std::size_t(batch_size)) {
      std::size_t end = std::min(starts.size(), i + std::size_t(batch_size));
      out.push_back(windows({starts.begin() + std::ptrdiff_t(i), starts.begin() + std::ptrdiff_t(end)}));
    }
    return out;
  }

 private:
  // The starts of the windows lying wholly in [begin, end); if there are too many, an
  // evenly strided subset keeps evaluation cheap while still covering the whole part.
  std::vector<std::int64_t> window_starts(std::int64_t begin, std::int64_t end) const {
    const std::int64_t count = end - begin - (lookback_ + horizon_) + 1;
    const std::int64_t stride = (count + kMaxEvaluationWindows - 1) / kMaxEvaluationWindows;
    std::vector<std::int64_t> starts;
    for (std::int64_t i = 0; i < count; i += stride) starts.push_back(begin + i);
    return starts;
  }

  static void check_batch_size(std::int64_t batch_size) {
    if (batch_size < 1)
      throw std::invalid_argument("batch size must be at least 1, got " +
                                  std::to_string(batch_size));
  }

  ForecastBatch windows(const std::vector<std::int64_t>& starts) const {
    const std::int64_t b = std::int64_t(starts.size()), s = data_.series;
    Tensor x = Tensor::empty({b, lookback_, s}, DType::f32);
    Tensor y = Tensor::empty({b, horizon_, s}, DType::f32);
    float* xp = x.data<float>();
    float* yp = y.data<float>();
    for (std::int64_t i = 0; i < b; ++i) {
      const double* w = data_.values.data() + starts[std::size_t(i)] * s;
      std::transform(w, w + lookback_ * s, xp + i * lookback_ * s,
                     [](double v) { return float(v); });
      std::transform(w + lookback_ * s, w + (lookback_ + horizon_) * s, yp + i * horizon_ * s,
                     [](double v) { return float(v); });
    }
    return {x, y};
  }

  SeriesTable data_;
  std::int64_t lookback_, horizon_, n_train_;
  std::vector<std::int64_t> validation_starts_, test_starts_;
};

// z-scores from the training part only: statistics of the held-out parts would leak
// its level and spread into the inputs. A z-score beyond f32's range (a training part
// that is nearly constant, later values that are not) would reach the model as inf, so
// it is an error naming the source and the column.
void normalize_with_training_statistics(SeriesTable& data, std::int64_t n_train,
                                        const std::string& source) {
  for (std::int64_t s = 0; s < data.series; ++s) {
    double sum = 0, sq = 0;
    for (std::int64_t t = 0; t < n_train; ++t) sum += data.value(t, s);
    const double mean = sum / double(n_train);
    for (std::int64_t t = 0; t < n_train; ++t) sq += std::pow(data.value(t, s) - mean, 2);
    double sd = std::sqrt(sq / double(n_train));
    if (!(sd > 1e-12)) sd = 1.0;  // a constant series: centre it, do not blow it up
    for (std::int64_t t = 0; t < data.steps; ++t) {
      double& v = data.values[std::size_t(t * data.series + s)];
      v = (v - mean) / sd;
      if (!(std::abs(v) <= std::numeric_limits<float>::max())) {
        std::ostringstream m;
        m << source << ": column " << s + 1 << ": z-scored with the training part's mean "
          << mean << " and standard deviation " << sd << ", time step " << t + 1
          << " becomes " << v << ", beyond the range of f32; the training part is nearly "
          << "constant — rescale the column or set normalize = false";
        throw std::runtime_error(m.str());
      }
    }
  }
}

std::unique_ptr<Task> make_forecast(const nn::Options& o, std::uint64_t seed,
                                    const std::string& base_dir) {
  const std::int64_t lookback = o.get_int("lookback"), horizon = o.get_int("horizon");
  const std::int64_t window = lookback + horizon;
  const std::string& csv = o.get_string("csv");
  const std::string path = csv.empty() ? "" : resolve_data_path(base_dir, csv);
  SeriesTable data = csv.empty() ? synthetic_series(o.get_int("length"), o.get_int("series"),
                                                    o.get_float("noise"), seed)
                                 : read_series_csv(path, window + 1, "lookback + horizon + 1");

  // Every part must hold at least one whole window.
  const double val_fraction = o.get_float("validation_fraction"), test_fraction = o.get_float("test_fraction");
  const std::int64_t n_val = std::llround(double(data.steps) * val_fraction);
  const std::int64_t n_test = std::llround(double(data.steps) * test_fraction);
  const std::int64_t n_train = data.steps - n_val - n_test;
  if (n_train < window || n_val < window || n_test < window) {
    std::ostringstream m;
    m << data.steps << " time steps split by validation_fraction = " << val_fraction
      << " and test_fraction = " << test_fraction << " into " << n_train << " training, " << n_val
      << " validation and " << n_test << " test steps; each part needs at least lookback + horizon = "
      << window;
    const std::string msg = m.str();
    if (!csv.empty()) throw std::runtime_error(path + ": " + msg);
    throw nn::OptionError("task 'forecast'", {{"length", "option 'length': " + msg}});
  }
  if (o.get_bool("normalize"))
    normalize_with_training_statistics(data, n_train, csv.empty() ? "synthetic series" : path);
  return std::make_unique<ForecastTask>(std::move(data), lookback, horizon, n_train, n_val);
}

}  // namespace

void register_forecast_task(TaskRegistry& r) {
  r.add(
      {"forecast",
       "multivariate forecasting: lookback steps of every series → the next horizon steps",
       {{"series", std::int64_t(3), "synthetic series (with csv: one per column instead)", 1.0,
         64.0},
        {"lookback", std::int64_t(24), "input steps", 1.0, 10000.0},
        {"horizon", std::int64_t(8), "predicted steps", 1.0, 10000.0},
        {"length", std::int64_t(2000), "synthetic time steps (ignored with csv)", 2.0, 1e7},
        {"noise", 0.1, "standard deviation of the synthetic noise (ignored with csv)", 0.0, 100.0},
        {.key = "csv",
         .default_value = std::string(),
         .doc = "comma-separated series, relative to the experiment file; empty = synthetic data",
         .names_file = true},
        {"validation_fraction", 0.2, "the part of the series in time after training", 0.01, 0.45},
        {"test_fraction", 0.2, "the last part of the series in time", 0.01, 0.45},
        {"normalize", true, "z-score each series with training-part statistics"}},
       make_forecast});
}

}  // namespace ablate::experiments
