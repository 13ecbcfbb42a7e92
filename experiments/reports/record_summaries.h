#pragma once
// A run record's trial summaries (run_record.h): completed for the reports, or made
// from a results.csv row when the run directory is gone (`ablate report --from-results`).
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace ablate::experiments {

// Adds the fields the reports read without asking first (report.cpp's results.csv),
// null where a summary lacks them; a part that is not an object is a std::runtime_error
// naming `where`.
void complete_summary(nlohmann::json& s, const std::string& where);

// A trial's summary.json as far as its results.csv row holds it (`header` the file's
// columns, `telemetry` those of per-layer values, values from `first_value_column`).
nlohmann::json summary_from_row(const std::vector<std::string>& header,
                                const std::vector<std::string>& row,
                                const std::set<std::string>& telemetry,
                                std::size_t first_value_column);

// True for the columns of telemetry at initialisation (gradient norms, BatchNorm drift).
bool is_telemetry_column(const std::string& name);

// Where a rebuilt results.csv says something else than the original, for a message ("" when
// nowhere): the same trials, columns and cells, in whatever column order the ablate that
// wrote each one used.
std::string first_difference(const std::string& original, const std::string& rebuilt);

}  // namespace ablate::experiments
