// report.html as text (report_html.h): what the page must say before any browser runs
// it. tests/browser/check_report_html.py checks the same pages rendered in Chromium.
#include "experiments/reports/report_html.h"

#include <catch2/catch.hpp>

#include "experiments/reports/report_libraries.h"

using namespace ablate::experiments;

namespace {

ReportPage small_page() {
  ReportPage page;
  page.title = "tiny <run>";
  page.description = "A & B";
  page.comparisons_csv =
      "run,point_id,point,metric,n,mean,ci_low,ci_high,verdict\n"
      "tiny,aaaa,model.attention.qk=separate,sequence_accuracy,3,0.9050333333,0.8913558152,"
      "0.9187108515,baseline\n"
      "tiny,bbbb,model.attention.qk=shared,sequence_accuracy,3,0.9464,0.9239267086,0.9688732914,"
      "\"better (p = 0.01, d = 1.2)\"\n";
  page.claims_csv = "";
  page.primary = "sequence_accuracy";
  page.keys = {"model.attention.qk"};
  page.figures = nlohmann::json::array({{{"run", "tiny"},
                                         {"point_id", "aaaa"},
                                         {"label", "x"},
                                         {"values", {{"k", "</script><b>"}}},
                                         {"seeds", nlohmann::json::array()}}});
  page.provenance = nlohmann::json::array();
  return page;
}

// The text of the page outside the inlined libraries: what ablate itself wrote.
// (std::regex recurses per character: a megabyte of script overflows the stack.)
std::string own_text(std::string html) {
  for (std::size_t at; (at = html.find("<script>/* vega")) != std::string::npos;)
    html.erase(at, html.find("</script>", at) + 9 - at);
  return html;
}

}  // namespace

// Protects "the same numbers as comparisons.csv": every cell is the file's text, quoted
// cells unquoted, each marked with its row and column for the browser test.
TEST_CASE("report.html's points table is comparisons.csv cell for cell", "[report_html]") {
  const std::string html = report_html(small_page());
  CHECK_THAT(html, Catch::Contains("<td data-col=\"mean\">0.9050333333</td>"));
  CHECK_THAT(html, Catch::Contains("<td data-col=\"ci_high\">0.9688732914</td>"));
  CHECK_THAT(html, Catch::Contains("<tr data-row=\"1\">"));
  CHECK_THAT(html, Catch::Contains("<td data-col=\"verdict\">better (p = 0.01, d = 1.2)</td>"));
  // A run's own page drops the "run" column, which says its name on every row.
  CHECK_THAT(html, !Catch::Contains("<th data-col=\"run\">"));
  ReportPage compared = small_page();
  compared.several_runs = true;
  CHECK_THAT(report_html(compared), Catch::Contains("<th data-col=\"run\">"));
  // No claims, no claims section.
  CHECK_THAT(html, !Catch::Contains("id=\"claims-table\""));
}

// Protects the page's integrity: text from a run (a title, a swept value) cannot become
// markup or end the data's <script> element.
TEST_CASE("report.html escapes what runs contain", "[report_html]") {
  const std::string html = report_html(small_page());
  CHECK_THAT(html, Catch::Contains("<h1>tiny &lt;run&gt;</h1>"));
  CHECK_THAT(html, Catch::Contains("A &amp; B"));
  CHECK_THAT(html, Catch::Contains("<\\/script><b>"));
  const std::string own = own_text(html);
  // The data's script element holds no "</" but its own end.
  const std::size_t data = own.find("id=\"report-data\">");
  REQUIRE(data != std::string::npos);
  CHECK(own.find("</", data) == own.find("</script>", data));
}

// Protects "self-contained, no external URL": the three pinned libraries inlined with
// their licences, a Content-Security-Policy that forbids any load, and nothing in
// what ablate writes that points outside the file.
TEST_CASE("report.html inlines its libraries and names nothing outside itself", "[report_html]") {
  const std::string html = report_html(small_page());
  REQUIRE(report_libraries().size() == 3);
  for (const ReportLibrary& l : report_libraries()) {
    INFO(l.package);
    CHECK(l.script.size() > 50000);
    CHECK_THAT(std::string(l.licence), Catch::Contains("Copyright"));
    CHECK_THAT(html, Catch::Contains(std::string("<script>/* ") + l.package + " " + l.version));
    CHECK(html.find(std::string(l.script.substr(0, 200))) != std::string::npos);
  }
  CHECK_THAT(html, Catch::Contains("Content-Security-Policy\" content=\"default-src 'none'"));
  const std::string own = own_text(html);
  for (const char* outside : {"http://", "https://", " src=", "<link", "url("}) {
    INFO(outside);
    CHECK(own.find(outside) == std::string::npos);
  }
  CHECK(html.size() < kReportHtmlMaxBytes);
  CHECK_THAT(html, Catch::Contains(std::string(report_app_script().substr(0, 100))));
}
