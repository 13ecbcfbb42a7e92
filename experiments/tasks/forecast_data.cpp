#include "experiments/tasks/forecast_data.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "autograd/rng.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

SeriesTable synthetic_series(std::int64_t steps, std::int64_t series, double noise,
                             std::uint64_t seed) {
  struct Params {
    double period, amplitude, phase, trend;
    std::int64_t lag;
  };
  // Stream 1 of the seed, like every task's fixed data.
  Generator gen = Generator(seed).fork(1);
  std::vector<Params> params;
  for (std::int64_t s = 0; s < series; ++s) {
    Params p;
    p.period = 6.0 + 5.0 * double(s) + 6.0 * gen.uniform();
    p.amplitude = 0.5 + gen.uniform();
    p.phase = 2.0 * std::numbers::pi * gen.uniform();
    p.trend = 2.0 * gen.uniform() - 1.0;  // total drift over the whole series
    p.lag = 1 + uniform_index(gen, 4);
    params.push_back(p);
  }
  SeriesTable table{steps, series, std::vector<double>(std::size_t(steps * series))};
  for (std::int64_t t = 0; t < steps; ++t)
    for (std::int64_t s = 0; s < series; ++s) {
      const Params& p = params[std::size_t(s)];
      double x = p.amplitude * std::sin(2.0 * std::numbers::pi * double(t) / p.period + p.phase) +
                 p.trend * double(t) / double(steps) + noise * gen.normal();
      if (s > 0 && t >= p.lag) x += 0.6 * table.value(t - p.lag, s - 1);
      table.values[std::size_t(t * series + s)] = x;
    }
  return table;
}

namespace {

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1)
    cells.push_back(trim(line.substr(start, comma - start)));
  cells.push_back(trim(line.substr(start)));
  return cells;
}

// A cell quoted for a message, cut to 40 characters (a stray binary blob or a
// 10,000-digit number should not flood the terminal).
std::string shown(const std::string& cell) {
  return "'" + (cell.size() <= 40 ? cell : cell.substr(0, 37) + "...") + "'";
}

// from_chars, not strtod: a CSV means the same thing whatever the process's locale.
bool parse_number(const std::string& cell, double& out) {
  const char* b = cell.data();
  const char* e = b + cell.size();
  if (b != e && *b == '+') ++b;
  auto [end, ec] = std::from_chars(b, e, out);
  return b != e && ec == std::errc() && end == e;
}

}  // namespace

SeriesTable read_series_csv(const std::string& path, std::int64_t min_rows,
                            const std::string& why_min_rows) {
  std::ifstream in = open_data_file(path);
  auto fail = [&](std::int64_t line, const std::string& what) {
    throw std::runtime_error(path + ":" + std::to_string(line) + ": " + what);
  };

  SeriesTable table;
  std::int64_t line_no = 0, first_line = 0;
  bool header = false;
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    std::vector<std::string> cells = split_cells(line);
    std::vector<double> row(cells.size());
    std::vector<bool> numeric(cells.size());
    std::size_t numeric_count = 0;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      numeric[c] = parse_number(cells[c], row[c]);
      if (numeric[c]) ++numeric_count;
    }
    if (first_line == 0) {
      first_line = line_no;
      table.series = std::int64_t(cells.size());
      if (numeric_count == 0) {
        header = true;
        continue;
      }
    }
    if (std::int64_t(cells.size()) != table.series)
      fail(line_no, std::to_string(cells.size()) + " cells, expected " +
                        std::to_string(table.series) + " (as on line " +
                        std::to_string(first_line) + ")");
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string where = "column " + std::to_string(c + 1) + ": ";
      if (cells[c].empty()) fail(line_no, where + "empty cell (missing values are not supported)");
      if (!numeric[c]) {
        std::string msg = where + shown(cells[c]) + " is not a number";
        if (line_no == first_line) msg += " (a header row must have no numeric cells)";
        fail(line_no, msg);
      }
      if (!std::isfinite(row[c])) fail(line_no, where + shown(cells[c]) + " is not finite");
      if (std::abs(row[c]) > std::numeric_limits<float>::max())
        fail(line_no, where + shown(cells[c]) +
                          " is beyond the range of f32 (±3.4e38), the precision models train in");
    }
    table.values.insert(table.values.end(), row.begin(), row.end());
    ++table.steps;
  }
  if (first_line == 0) fail(std::max<std::int64_t>(line_no, 1), "the file is empty");
  if (table.steps == 0) fail(line_no, "no data rows after the header");
  if (table.steps < min_rows)
    fail(line_no, std::to_string(table.steps) + " data rows" + (header ? " after the header" : "") +
                      ", need at least " + std::to_string(min_rows) + " (" + why_min_rows + ")");
  return table;
}

}  // namespace ablate::experiments
