#pragma once
// One CSV line's cells, as the readers of CSV files (forecasting series, a results
// folder's results.csv) take them.
#include <string>
#include <vector>

namespace ablate::experiments {

// `s` without its leading and trailing spaces and tabs.
std::string trim_blanks(const std::string& s);

// Cells split at commas outside double quotes; a quoted cell loses its quotes ("" is a
// quote inside one), so a header of "YEAR","SUNACTIVITY" names YEAR and SUNACTIVITY.
// Unquoted cells are trimmed of spaces and tabs.
std::vector<std::string> split_csv_cells(const std::string& line);

}  // namespace ablate::experiments
