// summary_number (experiments/reports/run_rows.h): a number read from a trial's
// summary.json as the reports read it — present, or nothing when the summary lacks the
// group or the key or holds something else there. Reading a missing key of a const json
// with operator[] is undefined behaviour; the summary_json fuzz target found one in
// tune_points (a "best" without "val_loss"), 2026-12-06.
#include <catch2/catch.hpp>

#include "experiments/reports/run_rows.h"

using ablate::experiments::summary_number;
using json = nlohmann::json;

TEST_CASE("a summary's number is read when present and nothing otherwise", "[reports]") {
  const json summary = {{"best", {{"val_loss", 2.5}, {"note", "x"}}}, {"final", json::array()}};
  CHECK(summary_number(summary, "best", "val_loss") == 2.5);
  CHECK_FALSE(summary_number(summary, "best", "vAl_loss"));   // the key missing
  CHECK_FALSE(summary_number(summary, "best", "note"));       // not a number
  CHECK_FALSE(summary_number(summary, "final", "val_loss"));  // the group not an object
  CHECK_FALSE(summary_number(summary, "test", "val_loss"));   // the group missing
  CHECK_FALSE(summary_number(json(), "best", "val_loss"));    // no summary
  CHECK_FALSE(summary_number(json::array(), "best", "val_loss"));
}
