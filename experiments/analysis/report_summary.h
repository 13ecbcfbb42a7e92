#pragma once
// How many of a run's expected trials finished, failed or are missing, and which are
// missing: what write_reports (reports/report.h) returns and the tables count.
#include <string>
#include <vector>

namespace ablate::experiments {

struct ReportSummary {
  int expected = 0, finished = 0, failed = 0, missing = 0;
  std::vector<std::string> missing_ids;
};

}  // namespace ablate::experiments
