// forecast: from the last `lookback` steps of several series (targets and covariates),
// predict the next `horizon` steps of the targets. The series are split in time:
// training windows lie in the first part; validation and test windows forecast the
// next and the last parts from every origin (rolling origin), with the true history
// as input. So validation and test measure forecasting the future, not interpolating
// between training windows.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include "experiments/tasks/forecast_data.h"
#include "experiments/tasks/forecast_metrics.h"
#include "experiments/tasks/task.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace {

// Validation is evaluated many times during training: beyond this many windows, an
// evenly strided subset of them. Test is evaluated once, at every origin.
constexpr std::int64_t kMaxValidationWindows = 512;

class ForecastTask : public Task {
 public:
  // Time steps [0, n_train) train, [n_train, n_train + n_val) validate, the rest test.
  // A held-out window belongs to the part its forecast steps lie in; its lookback is
  // the true history before its origin, which may reach into the part before.
  ForecastTask(SeriesTable data, ForecastContext context, std::int64_t lookback,
               std::int64_t horizon, std::int64_t n_train, std::int64_t n_val)
      : data_(std::move(data)),
        context_(std::move(context)),
        lookback_(lookback),
        horizon_(horizon),
        n_train_(n_train) {
    validation_starts_ = origin_window_starts(n_train, n_train + n_val, kMaxValidationWindows);
    test_starts_ = origin_window_starts(n_train + n_val, data_.steps, 0);
  }

  TaskFamily family() const override { return TaskFamily::forecast; }
  std::string name() const override { return "forecast"; }
  std::int64_t series() const override { return data_.targets; }
  std::int64_t input_series() const override { return data_.series; }
  std::int64_t lookback() const override { return lookback_; }
  std::int64_t horizon() const override { return horizon_; }
  const ForecastContext* forecast_context() const override { return &context_; }

  ForecastBatch forecast_train_batch(Generator& gen, std::int64_t batch_size) const override {
    check_batch_size(batch_size);
    std::vector<std::int64_t> starts;
    const std::int64_t last_start = n_train_ - (lookback_ + horizon_);
    for (std::int64_t i = 0; i < batch_size; ++i)
      starts.push_back(uniform_index(gen, last_start + 1));
    return windows(starts);
  }

  std::vector<ForecastBatch> forecast_evaluation_batches(Split split,
                                                         std::int64_t batch_size) const override {
    check_batch_size(batch_size);
    const std::vector<std::int64_t>& starts =
        split == Split::validation ? validation_starts_ : test_starts_;
    std::vector<ForecastBatch> out;
    for (std::size_t i = 0; i < starts.size(); i += std::size_t(batch_size)) {
      std::size_t end = std::min(starts.size(), i + std::size_t(batch_size));
      out.push_back(
          windows({starts.begin() + std::ptrdiff_t(i), starts.begin() + std::ptrdiff_t(end)}));
    }
    return out;
  }

 private:
  // Rolling origin: the window starts (origin − lookback) of every origin whose
  // `horizon` forecast steps lie wholly in [begin, end), stride 1; with `cap` > 0 and
  // more origins than that, an evenly strided subset still covering the whole part.
  std::vector<std::int64_t> origin_window_starts(std::int64_t begin, std::int64_t end,
                                                 std::int64_t cap) const {
    const std::int64_t count = end - begin - horizon_ + 1;
    const std::int64_t stride = cap > 0 ? (count + cap - 1) / cap : 1;
    std::vector<std::int64_t> starts;
    for (std::int64_t i = 0; i < count; i += stride) starts.push_back(begin + i - lookback_);
    return starts;
  }

  static void check_batch_size(std::int64_t batch_size) {
    if (batch_size < 1)
      throw std::invalid_argument("batch size must be at least 1, got " +
                                  std::to_string(batch_size));
  }

  // x holds every column (targets, then covariates); y the targets only.
  ForecastBatch windows(const std::vector<std::int64_t>& starts) const {
    const std::int64_t b = std::int64_t(starts.size()), c = data_.series, s = data_.targets;
    Tensor x = Tensor::empty({b, lookback_, c}, DType::f32);
    Tensor y = Tensor::empty({b, horizon_, s}, DType::f32);
    float* xp = x.data<float>();
    float* yp = y.data<float>();
    for (std::int64_t i = 0; i < b; ++i) {
      const std::int64_t start = starts[std::size_t(i)];
      for (std::int64_t l = 0; l < lookback_; ++l)
        for (std::int64_t k = 0; k < c; ++k)
          xp[(i * lookback_ + l) * c + k] = float(data_.value(start + l, k));
      for (std::int64_t h = 0; h < horizon_; ++h)
        for (std::int64_t k = 0; k < s; ++k)
          yp[(i * horizon_ + h) * s + k] = float(data_.value(start + lookback_ + h, k));
    }
    return {x, y};
  }

  SeriesTable data_;
  ForecastContext context_;
  std::int64_t lookback_, horizon_, n_train_;
  std::vector<std::int64_t> validation_starts_, test_starts_;
};

// z-scores from the training part only: statistics of the held-out parts would leak
// its level and spread into the inputs. A z-score beyond f32's range (a training part
// that is nearly constant, later values that are not) would reach the model as inf, so
// it is an error naming the source and the column.
// Returns each column's {mean, standard deviation}.
std::vector<std::pair<double, double>> normalize_with_training_statistics(
    SeriesTable& data, std::int64_t n_train, const std::string& source) {
  std::vector<std::pair<double, double>> statistics;
  for (std::int64_t s = 0; s < data.series; ++s) {
    double sum = 0, sq = 0;
    for (std::int64_t t = 0; t < n_train; ++t) sum += data.value(t, s);
    const double mean = sum / double(n_train);
    for (std::int64_t t = 0; t < n_train; ++t) sq += std::pow(data.value(t, s) - mean, 2);
    double sd = std::sqrt(sq / double(n_train));
    if (!(sd > 1e-12)) sd = 1.0;  // a constant series: centre it, do not blow it up
    statistics.emplace_back(mean, sd);
    for (std::int64_t t = 0; t < data.steps; ++t) {
      double& v = data.values[std::size_t(t * data.series + s)];
      v = (v - mean) / sd;
      if (!(std::abs(v) <= std::numeric_limits<float>::max())) {
        std::ostringstream m;
        m << source << ": column " << s + 1 << " ('" << excerpt(data.names[std::size_t(s)], 40)
          << "'): z-scored with the training part's mean " << mean << " and standard deviation "
          << sd << ", time step " << t + 1 << " becomes " << v
          << ", beyond the range of f32; the training part is nearly "
          << "constant — rescale the column or set normalize = false";
        throw std::runtime_error(m.str());
      }
    }
  }
  return statistics;
}

// A column name as it appears in metric keys (mae_<name>): letters, digits and _ kept,
// anything else _.
std::string metric_name(const std::string& column) {
  std::string out;
  for (char c : column) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out;
}

// The evaluation's view of the data, from the original values (before z-scoring).
ForecastContext forecast_context(const SeriesTable& original, std::int64_t n_train,
                                 std::int64_t season, const std::string& source) {
  ForecastContext c;
  c.season = season;
  for (std::int64_t s = 0; s < original.targets; ++s) {
    const std::string& column = original.names[std::size_t(s)];
    const std::string name = metric_name(column);
    const bool per_horizon = name.size() > 1 && name[0] == 'h' &&
                             name.find_first_not_of("0123456789", 1) == std::string::npos;
    if (per_horizon ||
        std::find(c.metric_names.begin(), c.metric_names.end(), name) != c.metric_names.end())
      throw std::runtime_error(
          source + ": target column '" + excerpt(column, 40) + "' would be named '" +
          excerpt(name, 40) + "' in metric keys (mae_" + name + "), which " +
          (per_horizon ? "are the per-horizon metrics'" : "another target already has") +
          "; rename the column");
    c.metric_names.push_back(name);
    const double denominator = seasonal_naive_mae(original, s, n_train, season);
    if (!(denominator > 0))
      throw std::runtime_error(
          source + ": target column '" + excerpt(column, 40) +
          "': the seasonal naive forecast (season = " + std::to_string(season) +
          ") is exact on the training part, so MASE, which divides "
          "by its error there, is undefined; choose another season or another column");
    c.mase_denominator.push_back(denominator);
  }
  return c;
}

// The training part's target columns (in whatever units `data` is in).
SeriesTable training_targets(const SeriesTable& data, std::int64_t n_train) {
  SeriesTable t;
  t.steps = n_train;
  t.series = t.targets = data.targets;
  t.names.assign(data.names.begin(), data.names.begin() + data.targets);
  for (std::int64_t i = 0; i < n_train; ++i)
    for (std::int64_t s = 0; s < data.targets; ++s) t.values.push_back(data.value(i, s));
  return t;
}

std::unique_ptr<Task> make_forecast(const nn::Options& o, std::uint64_t seed,
                                    const std::string& base_dir) {
  const std::int64_t lookback = o.get_int("lookback"), horizon = o.get_int("horizon");
  const std::int64_t window = lookback + horizon, season = o.get_int("season");
  if (season > lookback)
    throw nn::OptionError(
        "task 'forecast'",
        {{"season", "option 'season': " + std::to_string(season) + " is longer than lookback = " +
                        std::to_string(lookback) + "; the seasonal naive baseline forecasts " +
                        "from the lookback window, so it needs season <= lookback"}});
  const std::string& csv = o.get_string("csv");
  const std::string path = csv.empty() ? "" : resolve_data_path(base_dir, csv);
  SeriesTable data;
  if (csv.empty()) {
    data = synthetic_series(o.get_int("length"), o.get_int("series"), o.get_float("noise"), seed);
  } else {
    SeriesCsvOptions read;
    read.time_column = o.get_string("time_column");
    read.targets = column_list(o.get_string("targets"));
    read.covariates = column_list(o.get_string("covariates"));
    read.missing = missing_policy(o.get_string("missing"));
    read.min_rows = window + 1;
    read.why_min_rows = "lookback + horizon + 1";
    data = read_series_csv(path, read);
  }
  const std::string source = csv.empty() ? "synthetic series" : path;

  // Training holds whole windows; validation and test hold the forecast steps of at
  // least one window (its lookback may reach back into the part before).
  const double val_fraction = o.get_float("validation_fraction"),
               test_fraction = o.get_float("test_fraction");
  const std::int64_t n_val = std::llround(double(data.steps) * val_fraction);
  const std::int64_t n_test = std::llround(double(data.steps) * test_fraction);
  const std::int64_t n_train = data.steps - n_val - n_test;
  if (n_train < window || n_val < horizon || n_test < horizon || n_train <= season) {
    std::ostringstream m;
    m << data.steps << " time steps split by validation_fraction = " << val_fraction
      << " and test_fraction = " << test_fraction << " into " << n_train << " training, " << n_val
      << " validation and " << n_test
      << " test steps; each part needs at least lookback + horizon = " << window
      << " (training) or horizon = " << horizon
      << " (validation, test) steps, and training more than "
      << "season = " << season;
    const std::string msg = m.str();
    if (!csv.empty()) throw std::runtime_error(path + ": " + msg);
    throw nn::OptionError("task 'forecast'", {{"length", "option 'length': " + msg}});
  }
  ForecastContext context = forecast_context(data, n_train, season, source);
  context.scale.assign(std::size_t(data.targets), 1.0);
  context.offset.assign(std::size_t(data.targets), 0.0);
  if (o.get_bool("normalize")) {
    const auto statistics = normalize_with_training_statistics(data, n_train, source);
    for (std::int64_t s = 0; s < data.targets; ++s) {
      context.offset[std::size_t(s)] = statistics[std::size_t(s)].first;
      context.scale[std::size_t(s)] = statistics[std::size_t(s)].second;
    }
  }
  context.training = training_targets(data, n_train);
  return std::make_unique<ForecastTask>(std::move(data), std::move(context), lookback, horizon,
                                        n_train, n_val);
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
        {"normalize", true, "z-score each series with training-part statistics"},
        {"time_column", std::string(),
         "with csv: the header name of the time labels (kept for reports, not a "
         "feature); empty = none"},
        {"targets", std::string(),
         "with csv: comma-separated header names of the forecast columns; empty = every "
         "column but the time column and covariates"},
        {"covariates", std::string(),
         "with csv: comma-separated header names of input-only columns"},
        {.key = "missing",
         .default_value = std::string("error"),
         .doc = "with csv: a missing cell (empty, NA, NaN, nan) is an error, drops its row, or is "
                "interpolated "
                "linearly (interior gaps only)",
         .choices = {"error", "drop", "interpolate"}},
        {"season", std::int64_t(1),
         "period of the seasonal naive baseline and of MASE's scale (1 = naive; at "
         "most lookback)",
         1.0, 10000.0}},
       make_forecast});
}

}  // namespace ablate::experiments
