#pragma once
// Where the forecast task's numbers come from: a synthetic generator (deterministic
// from the seed) or a CSV file of the user's.
#include <cstdint>
#include <string>
#include <vector>

namespace ablate::experiments {

// `steps` rows of `series` values, row-major: value(t, s) = values[t * series + s].
struct SeriesTable {
  std::int64_t steps = 0, series = 0;
  std::vector<double> values;
  double value(std::int64_t t, std::int64_t s) const { return values[std::size_t(t * series + s)]; }
};

// Coupled seasonal series: series s is a sinusoid of its own period (6 + 5s .. 12 + 5s
// steps, so periods differ) and phase, plus a linear trend, plus 0.6 × series s-1 a
// few steps earlier (a lead the model can exploit across series), plus Gaussian noise
// of standard deviation `noise`. Every parameter derives from `seed`.
SeriesTable synthetic_series(std::int64_t steps, std::int64_t series, double noise,
                             std::uint64_t seed);

// Reads comma-separated columns, one series per column, one time step per row. The
// first non-blank row is a header if none of its cells is a number; blank lines are
// skipped. Throws std::runtime_error "<path>:<line>: ..." for an unreadable or empty
// file, ragged rows, non-numeric or non-finite cells or ones beyond f32's range, and
// fewer than `min_rows` data rows (`why_min_rows` says where that bound comes from).
SeriesTable read_series_csv(const std::string& path, std::int64_t min_rows,
                            const std::string& why_min_rows);

}  // namespace ablate::experiments
