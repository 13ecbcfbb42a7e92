#pragma once
// The charting libraries report.html inlines (report_html.h): Vega, Vega-Lite and
// vega-embed, fetched from npm's registry by the build and checked against the
// SHA-256 pinned in cmake/reportLibraries.cmake, then embedded in the binary, so that
// `ablate report` writes a self-contained page on any machine, installed or not.
// Defined in a source the build generates (cmake/reportLibraries.cmake).
#include <string_view>
#include <vector>

namespace ablate::experiments {

struct ReportLibrary {
  const char* package;
  const char* version;
  const char* tarball_sha256;
  const char* file;  // the file of the package that `script` is
  std::string_view script, licence;
};

// In the order a page loads them (each after what it needs).
const std::vector<ReportLibrary>& report_libraries();

// report.html's own script and style sheet (experiments/reports/report_page/), embedded
// the same way so that an installed ablate needs no file beside it.
std::string_view report_app_script();
std::string_view report_style_sheet();

}  // namespace ablate::experiments
