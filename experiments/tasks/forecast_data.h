#pragma once
// Where the forecast task's numbers come from: a synthetic generator (deterministic
// from the seed) or a CSV file of the user's.
#include <cstdint>
#include <string>
#include <vector>

namespace ablate::experiments {

// `steps` rows of `series` values, row-major: value(t, s) = values[t * series + s].
// The first `targets` columns are forecast; the others are covariates, the model's
// inputs only.
struct SeriesTable {
  std::int64_t steps = 0, series = 0, targets = 0;
  std::vector<double> values;
  std::vector<std::string> names;  // one per column: the header's, or "column<k>" / "series<k>"
  std::vector<std::string> times;  // one label per step from the time column; empty without one
  double value(std::int64_t t, std::int64_t s) const { return values[std::size_t(t * series + s)]; }
};

// Coupled seasonal series: series s is a sinusoid of its own period (6 + 5s .. 12 + 5s
// steps, so periods differ) and phase, plus a linear trend, plus 0.6 × series s-1 a
// few steps earlier (a lead the model can exploit across series), plus Gaussian noise
// of standard deviation `noise`. Every parameter derives from `seed`. All are targets,
// named series1, series2, ...
SeriesTable synthetic_series(std::int64_t steps, std::int64_t series, double noise,
                             std::uint64_t seed);

// What to do with a missing cell (empty, NA, NaN or nan) of a target or covariate.
enum class MissingPolicy {
  error,        // reject it, naming file:line:column
  drop,         // drop its row: the steps either side of the gap become neighbours
  interpolate,  // fill interior gaps linearly in the row index; a leading or trailing gap is an
                // error
};
// "error" | "drop" | "interpolate"; throws std::invalid_argument for anything else.
MissingPolicy missing_policy(const std::string& name);

struct SeriesCsvOptions {
  std::string time_column;              // a header name; "" = no time column
  std::vector<std::string> targets;     // header names; empty = every column not otherwise used
  std::vector<std::string> covariates;  // header names of input-only columns
  MissingPolicy missing = MissingPolicy::error;
  std::int64_t min_rows = 1;  // data rows needed after the missing policy
  std::string why_min_rows;   // where that bound comes from, for the message
};

// Reads comma-separated columns, one time step per row. The first non-blank row is a
// header if none of its cells is a number; cells may be double-quoted ("YEAR"); blank
// lines are skipped. The table's columns are the targets, in the order asked for (or
// the file's), then the covariates; other columns (not the time column) are ignored
// and never parsed. Throws std::runtime_error "<path>:<line>[:<column>]: ..." for an
// unreadable or empty file, ragged rows, unknown or repeated column names, a missing,
// empty or repeated time label, a non-numeric, non-finite or beyond-f32 cell, a
// missing cell under missing = error or at either end under interpolate, and fewer than
// `min_rows` data rows.
SeriesTable read_series_csv(const std::string& path, const SeriesCsvOptions& options);

// The names in a comma-separated list ("a, b" → {"a", "b"}; "" → {}).
std::vector<std::string> column_list(const std::string& text);

}  // namespace ablate::experiments
