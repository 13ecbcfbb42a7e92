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
  // The verdict coloured by its first word (report.css).
  CHECK_THAT(html, Catch::Contains("<td data-col=\"verdict\" class=\"verdict-better\">better (p "
                                   "= 0.01, d = 1.2)</td>"));
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

// Protects "the design's verdict is the run's": an adaptive run's page opens with its
// design's verdicts, bold and coloured, and its tables' fixed-n verdicts are a plain
// reference under a header that says so; the claims' intervals state their level.
TEST_CASE("report.html of an adaptive run opens with its design's verdicts", "[report_html]") {
  ReportPage page = small_page();
  page.comparisons_csv =
      "run,point_id,point,metric,n,mean,ci_low,ci_high,verdict,sequential_verdict,decided_round\n"
      "tiny,aaaa,model.attention.qk=separate,sequence_accuracy,30,0.9,0.89,0.92,baseline,,\n"
      "tiny,bbbb,model.attention.qk=shared,sequence_accuracy,30,0.85,0.82,0.88,worse,"
      "inconclusive at the budget (n = 30),\n";
  page.claims_csv =
      "claim,metric,point_id,point,ci_low,ci_high,claim_verdict\nc,loss,bbbb,x,1,2,agrees\n";
  page.claim_family = 4;
  DesignVerdicts design;
  design.status = "complete after round 5: 0 of 1 questions decided, 1 inconclusive at the budget";
  design.first_block = 5;
  design.block = 5;
  design.budget = 30;
  design.questions.push_back({"differs from its baseline",
                              "sequence_accuracy",
                              "inconclusive at the budget (n = 30)",
                              -1,
                              1 - 0.05 / 3,
                              {{"model.attention.qk=shared", "model.attention.qk=separate", "", 30,
                                30, "[-0.1082, 0.01392]"}}});
  page.design = design;
  const std::string html = report_html(page);
  const std::size_t verdicts = html.find("<section id=\"verdicts\">");
  REQUIRE(verdicts != std::string::npos);
  CHECK(verdicts < html.find("<section id=\"claims\">"));
  CHECK(verdicts < html.find("<section id=\"points\">"));
  CHECK_THAT(html,
             Catch::Contains("<td data-col=\"design_verdict\" class=\"design-verdict "
                             "verdict-inconclusive\">inconclusive at the budget (n = 30)</td>"));
  CHECK_THAT(html, Catch::Contains("<td data-col=\"level\">98.33%</td>"));
  // The tables: the design's verdict coloured, the fixed-n ones plain and labelled.
  CHECK_THAT(html, Catch::Contains("<td data-col=\"verdict\" class=\"reference\">worse</td>"));
  CHECK_THAT(html,
             Catch::Contains("<td data-col=\"claim_verdict\" class=\"reference\">agrees</td>"));
  CHECK_THAT(html, Catch::Contains("<td data-col=\"sequential_verdict\" class=\"verdict-"
                                   "inconclusive\">inconclusive at the budget (n = 30)</td>"));
  CHECK_THAT(html, Catch::Contains("title=\"comparisons.csv: verdict\">fixed-n verdict (reference "
                                   "only: the seeds were not fixed in advance)</th>"));
  CHECK(html.find("class=\"verdict-agrees\"") == std::string::npos);
  CHECK(html.find("class=\"verdict-worse\"") == std::string::npos);
  // Four claims: each bound one-sided at 0.05/4, the interval 97.5%.
  CHECK_THAT(html, Catch::Contains("the difference with its 97.5% interval"));
  // Without the design, the same tables colour their fixed-n verdicts: they are the run's.
  page.design.reset();
  const std::string fixed = report_html(page);
  CHECK(fixed.find("<section id=\"verdicts\">") == std::string::npos);
  CHECK_THAT(fixed, Catch::Contains("<td data-col=\"verdict\" class=\"verdict-worse\">worse</td>"));
}
