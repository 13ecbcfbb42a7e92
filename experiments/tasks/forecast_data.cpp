#include "experiments/tasks/forecast_data.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <stdexcept>

#include "autograd/rng.h"
#include "experiments/io/csv_cells.h"
#include "experiments/io/text_file.h"
#include "experiments/tasks/uniform_index.h"
#include "nn/excerpt.h"

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
  SeriesTable table{steps, series, series, std::vector<double>(std::size_t(steps * series)),
                    {},    {}};
  for (std::int64_t s = 0; s < series; ++s) table.names.push_back("series" + std::to_string(s + 1));
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

MissingPolicy missing_policy(const std::string& name) {
  if (name == "error") return MissingPolicy::error;
  if (name == "drop") return MissingPolicy::drop;
  if (name == "interpolate") return MissingPolicy::interpolate;
  throw std::invalid_argument("missing = \"" + name +
                              "\": allowed are \"error\", \"drop\", \"interpolate\"");
}

namespace {

// A cell or column name quoted for a message, cut to 40 bytes and escaped (a stray
// binary blob or a 10,000-digit number should not flood the terminal).
std::string shown(const std::string& cell) {
  std::string out(1, '\'');  // appended, not "'" + …: GCC 12 warns falsely (-Wrestrict) on that
  out += excerpt(cell, 40);
  return out += '\'';
}

// The number grammar of a cell, exactly: an optional sign, digits with an optional
// decimal point (at least one digit), an optional exponent (e or E, an optional sign,
// digits). Nothing else: no second sign ("+-5" is not -5), no spaces inside, no hex,
// no "inf" or "nan" (missing values have their own spellings, is_missing).
bool has_number_grammar(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// The decimal exponent of a number of that grammar, whose digits are not all zero:
// 3 for 1234.5, -2 for 0.012, 999 for 1e999.
long decimal_magnitude(std::string_view s) {
  const std::size_t e = std::min(s.find_first_of("eE"), s.size());  // the mantissa's end
  const std::size_t point = std::min(s.find('.'), e);
  const std::size_t first = std::min(s.find_first_of("123456789"), e);
  if (first == e) return std::numeric_limits<long>::min();  // zero
  long magnitude = first < point ? long(point - first) - 1 : -long(first - point);
  if (e < s.size()) {
    // Clamped: an exponent of a million digits is still just very large.
    const std::string_view digits = s.substr(e + 1 + (s[e + 1] == '+' || s[e + 1] == '-'));
    long exponent = 0;
    for (char c : digits) exponent = std::min(exponent * 10 + (c - '0'), 100000L);
    magnitude += s[e + 1] == '-' ? -exponent : exponent;
  }
  return magnitude;
}

// from_chars, not strtod: a CSV means the same thing whatever the process's locale. A
// value beyond double's range reads as the largest double (the caller refuses it as
// beyond f32), one too small for it as 0.
bool parse_number(const std::string& cell, double& out) {
  if (!has_number_grammar(cell)) return false;
  const char* b = cell.data() + (cell[0] == '+' ? 1 : 0);  // from_chars takes no '+'
  const char* e = cell.data() + cell.size();
  auto [end, ec] = std::from_chars(b, e, out);
  if (ec == std::errc::result_out_of_range) {
    const double sign = cell[0] == '-' ? -1.0 : 1.0;
    out = decimal_magnitude(cell) > 0 ? sign * std::numeric_limits<double>::max() : sign * 0.0;
    return true;
  }
  return ec == std::errc() && end == e;
}

// "inf", "-Infinity", ...: spelled as a number, but not finite.
bool is_infinity(const std::string& cell) {
  std::string s = cell.substr(cell.empty() || (cell[0] != '+' && cell[0] != '-') ? 0 : 1);
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s == "inf" || s == "infinity";
}

// The spellings of a missing value, exactly these (R's NA, pandas' NaN and nan, and
// nothing at all).
bool is_missing(const std::string& cell) {
  return cell.empty() || cell == "NA" || cell == "NaN" || cell == "nan";
}

// The column names for a message: each cut, and at most 20 of them.
std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 20; ++i)
    out += (out.empty() ? "" : ", ") + excerpt(names[i], 40);
  if (names.size() > 20) out += ", … (" + std::to_string(names.size()) + " columns in all)";
  return out;
}

}  // namespace

std::vector<std::string> column_list(const std::string& text) {
  std::vector<std::string> out;
  if (trim_blanks(text).empty()) return out;
  std::size_t start = 0;
  for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(trim_blanks(text.substr(start, comma - start)));
  out.push_back(trim_blanks(text.substr(start)));
  return out;
}

namespace {

// Reads a forecast CSV in stages: its rows, the header, which columns are read as
// what, the data rows, then the missing policy. Every problem is thrown as
// "<path>:<line>[:<column>]: ...".
class SeriesCsvReader {
 public:
  SeriesCsvReader(const std::string& path, const SeriesCsvOptions& options)
      : path_(path), options_(options) {}
  SeriesTable read();

 private:
  enum class Role { unused, time, target, covariate };

  [[noreturn]] void fail(std::int64_t line, const std::string& what) const {
    throw std::runtime_error(path_ + ":" + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void cell_fail(std::int64_t line, std::size_t column,
                              const std::string& what) const {
    throw std::runtime_error(path_ + ":" + std::to_string(line) + ":" + std::to_string(column + 1) +
                             ": " + what);
  }
  void read_rows();
  void read_header();
  std::size_t index_of(const std::string& name, const std::string& option) const;
  void take(const std::string& name, const std::string& option, Role as);
  void select_columns();
  void read_data_row(std::size_t r);
  double read_value(const std::string& cell, std::size_t c, std::int64_t line, bool first) const;
  void interpolate_gaps(std::size_t s);
  void keep_complete_rows();

  const std::string& path_;
  const SeriesCsvOptions& options_;
  std::int64_t last_line_ = 0;
  std::vector<std::vector<std::string>> rows_;  // every non-blank row
  std::vector<std::int64_t> lines_;             // and its line number
  bool header_ = true;
  std::size_t width_ = 0;           // cells of the first row (every row's)
  std::vector<std::string> names_;  // the header's, or "column<k>"
  std::int64_t header_line_ = 0;
  std::vector<Role> role_;
  std::size_t time_index_ = 0;        // width_ without a time column
  std::vector<std::size_t> columns_;  // targets, then covariates
  std::vector<double> values_;        // the data rows' values, NaN where missing
  std::vector<std::int64_t> row_lines_;
  std::map<std::string, std::int64_t> label_line_;
  SeriesTable table_;
};

void SeriesCsvReader::read_rows() {
  const TextFile file = TextFile::read(path_, kTableMaxBytes, "a forecast CSV file");
  last_line_ = std::int64_t(file.line_count());
  for (std::size_t index = 0; index < file.line_count(); ++index) {
    const std::string line(file.line(index));
    if (trim_blanks(line).empty()) continue;
    rows_.push_back(split_csv_cells(line));
    lines_.push_back(std::int64_t(index) + 1);
  }
  if (rows_.empty()) fail(std::max<std::int64_t>(last_line_, 1), "the file is empty");
}

// The first row is a header unless one of its cells is a number.
void SeriesCsvReader::read_header() {
  width_ = rows_.front().size();
  for (const std::string& cell : rows_.front()) {
    double v;
    if (parse_number(cell, v) && std::isfinite(v)) header_ = false;
  }
  for (std::size_t c = 0; c < width_; ++c)
    names_.push_back(header_ ? rows_.front()[c] : "column" + std::to_string(c + 1));
  header_line_ = lines_.front();
}

std::size_t SeriesCsvReader::index_of(const std::string& name, const std::string& option) const {
  std::size_t found = width_;
  for (std::size_t c = 0; c < width_; ++c)
    if (names_[c] == name) {
      if (found != width_)
        fail(header_line_, "two columns are named " + shown(name) + " (" + option + " names it)");
      found = c;
    }
  if (found == width_)
    fail(header_line_, option + " names " + shown(name) +
                           ", which is not a column; the columns are: " + joined(names_));
  return found;
}

void SeriesCsvReader::take(const std::string& name, const std::string& option, Role as) {
  const std::size_t c = index_of(name, option);
  if (role_[c] != Role::unused)
    fail(header_line_, option + " names " + shown(name) + ", which is already " +
                           (role_[c] == Role::time     ? "the time column"
                            : role_[c] == Role::target ? "a target"
                                                       : "a covariate"));
  role_[c] = as;
  columns_.push_back(c);
}

// Which columns are read, and as what.
void SeriesCsvReader::select_columns() {
  const bool named =
      !options_.time_column.empty() || !options_.targets.empty() || !options_.covariates.empty();
  if (named && !header_)
    fail(header_line_,
         "the first row holds numbers, so the file has no header and time_column, targets and "
         "covariates cannot name its columns");
  role_.assign(width_, Role::unused);
  time_index_ = width_;
  if (!options_.time_column.empty()) {
    time_index_ = index_of(options_.time_column, "time_column");
    role_[time_index_] = Role::time;
  }
  for (const std::string& name : options_.targets) take(name, "targets", Role::target);
  if (options_.targets.empty())
    for (std::size_t c = 0; c < width_; ++c)
      if (role_[c] == Role::unused &&
          std::find(options_.covariates.begin(), options_.covariates.end(), names_[c]) ==
              options_.covariates.end()) {
        if (header_)
          take(names_[c], "targets", Role::target);
        else
          role_[c] = Role::target, columns_.push_back(c);
      }
  table_.targets = std::int64_t(columns_.size());
  if (table_.targets == 0)
    fail(header_line_, "no target column (the columns are: " + joined(names_) + ")");
  for (const std::string& name : options_.covariates) take(name, "covariates", Role::covariate);
  table_.series = std::int64_t(columns_.size());
  for (std::size_t c : columns_) table_.names.push_back(names_[c]);
}

// One cell of a target or covariate: NaN where missing (the policy decides later).
double SeriesCsvReader::read_value(const std::string& cell, std::size_t c, std::int64_t line,
                                   bool first) const {
  const std::string where =
      header_ ? "column " + shown(names_[c]) + ": " : "column " + std::to_string(c + 1) + ": ";
  double v = std::numeric_limits<double>::quiet_NaN();
  if (is_missing(cell)) {
    if (options_.missing == MissingPolicy::error)
      cell_fail(line, c,
                where + "missing value " + shown(cell) +
                    "; with missing = \"error\" (the default) a missing value (an empty cell, NA, "
                    "NaN or nan) is rejected — set missing = \"drop\" or \"interpolate\"");
  } else if (is_infinity(cell)) {
    cell_fail(line, c, where + shown(cell) + " is not finite");
  } else if (!parse_number(cell, v)) {
    std::string msg = where + shown(cell) + " is not a number";
    if (first) msg += " (a header row must have no numeric cells)";
    cell_fail(line, c, msg);
  } else if (!std::isfinite(v)) {
    cell_fail(line, c, where + shown(cell) + " is not finite");
  } else if (std::abs(v) > std::numeric_limits<float>::max()) {
    cell_fail(line, c,
              where + shown(cell) +
                  " is beyond the range of f32 (±3.4e38), the precision models train in");
  }
  return v;
}

// A data row: its time label and its values.
void SeriesCsvReader::read_data_row(std::size_t r) {
  const std::vector<std::string>& cells = rows_[r];
  const std::int64_t line = lines_[r];
  if (cells.size() != width_)
    fail(line, std::to_string(cells.size()) + " cells, expected " + std::to_string(width_) +
                   " (as on line " + std::to_string(header_line_) + ")");
  if (time_index_ != width_) {
    const std::string& label = cells[time_index_];
    if (label.empty())
      cell_fail(line, time_index_,
                "empty time label in column " + shown(names_[time_index_]) +
                    " (time labels must be non-empty and unique)");
    auto [it, fresh] = label_line_.emplace(label, line);
    if (!fresh)
      cell_fail(line, time_index_,
                "time label " + shown(label) + " repeats line " + std::to_string(it->second) +
                    " (time labels must be non-empty and unique)");
    table_.times.push_back(label);
  }
  for (std::size_t c : columns_) values_.push_back(read_value(cells[c], c, line, r == 0));
  row_lines_.push_back(line);
}

// Under missing = "interpolate": the gaps of series `s` filled linearly between the
// values on either side; a gap at the start or end has no such values.
void SeriesCsvReader::interpolate_gaps(std::size_t s) {
  const std::size_t S = columns_.size(), n = row_lines_.size();
  auto at = [&](std::size_t t) -> double& { return values_[t * S + s]; };
  const std::string column = "column " + shown(names_[columns_[s]]);
  std::size_t previous = n;  // the last row with a value
  for (std::size_t t = 0; t < n; ++t) {
    if (std::isnan(at(t))) continue;
    if (previous == n && t > 0)
      cell_fail(row_lines_[0], columns_[s],
                column +
                    ": missing value at the start of the series; interpolate fills only gaps "
                    "with a value on both sides — remove the leading rows or set missing = "
                    "\"drop\"");
    for (std::size_t g = previous + 1; previous != n && g < t; ++g)
      at(g) = at(previous) + (at(t) - at(previous)) * double(g - previous) / double(t - previous);
    previous = t;
  }
  if (previous != n - 1) {
    const std::size_t first_gap = previous == n ? 0 : previous + 1;
    cell_fail(row_lines_[first_gap], columns_[s],
              column + ": missing value" +
                  (previous == n ? "s only" : " at the end of the series") +
                  "; interpolate fills only gaps with a value on both sides — remove the "
                  "trailing rows or set missing = \"drop\"");
  }
}

// The rows with every value into the table: under drop the others are left out (the
// other policies have filled or rejected them).
void SeriesCsvReader::keep_complete_rows() {
  const std::size_t S = columns_.size(), n = row_lines_.size();
  std::vector<std::string> kept_times;
  for (std::size_t t = 0; t < n; ++t) {
    bool complete = true;
    for (std::size_t s = 0; s < S; ++s) complete = complete && !std::isnan(values_[t * S + s]);
    if (!complete) continue;
    table_.values.insert(table_.values.end(), values_.begin() + std::ptrdiff_t(t * S),
                         values_.begin() + std::ptrdiff_t((t + 1) * S));
    if (!table_.times.empty()) kept_times.push_back(table_.times[t]);
    ++table_.steps;
  }
  table_.times = std::move(kept_times);
}

SeriesTable SeriesCsvReader::read() {
  read_rows();
  read_header();
  select_columns();
  for (std::size_t r = header_ ? 1 : 0; r < rows_.size(); ++r) read_data_row(r);
  if (row_lines_.empty()) fail(last_line_, "no data rows after the header");
  if (options_.missing == MissingPolicy::interpolate)
    for (std::size_t s = 0; s < columns_.size(); ++s) interpolate_gaps(s);
  keep_complete_rows();
  if (table_.steps < options_.min_rows)
    fail(last_line_,
         std::to_string(table_.steps) + " data rows" + (header_ ? " after the header" : "") +
             (table_.steps < std::int64_t(row_lines_.size()) ? " and the dropped rows" : "") +
             ", need at least " + std::to_string(options_.min_rows) + " (" + options_.why_min_rows +
             ")");
  return std::move(table_);
}

}  // namespace

SeriesTable read_series_csv(const std::string& path, const SeriesCsvOptions& options) {
  return SeriesCsvReader(path, options).read();
}

}  // namespace ablate::experiments
