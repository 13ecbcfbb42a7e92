#include "experiments/reports/report_html.h"

#include <algorithm>
#include <sstream>

#include "experiments/io/csv_cells.h"
#include "experiments/reports/claims_report.h"
#include "experiments/reports/design_verdicts_section.h"
#include "experiments/reports/html_text.h"
#include "experiments/reports/report_libraries.h"

namespace ablate::experiments {

using nlohmann::json;

namespace {

// JSON inside <script type="application/json">: "</" would end the element, and "<!--"
// would change how the parser reads the rest; "<\/" and "<\!--" are the same JSON text.
std::string script_json(const json& j) {
  std::string s = j.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == '<' && i + 1 < s.size() && (s[i + 1] == '/' || s[i + 1] == '!')) out += '\\';
  }
  return out;
}

// A library's script inside <script>: the same concern, for "</script" in its text.
std::string inline_script(std::string_view code) {
  std::string out(code);
  for (std::size_t at = 0; (at = out.find("</script", at)) != std::string::npos; at += 2)
    out.replace(at, 2, "<\\/");
  return out;
}

struct Csv {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  int column(const std::string& name) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    return it == columns.end() ? -1 : int(it - columns.begin());
  }
};

Csv parse_csv(const std::string& text) {
  Csv csv;
  std::istringstream in(text);
  std::string line;
  if (std::getline(in, line)) csv.columns = split_csv_cells(line);
  while (std::getline(in, line))
    if (!line.empty()) csv.rows.push_back(split_csv_cells(line));
  return csv;
}

json csv_json(const Csv& csv) {
  return {{"columns", csv.columns}, {"rows", csv.rows}};
}

// How the tables show their verdict columns: the run's verdicts coloured by their first
// word (class verdict-<word>, report.css); an adaptive run's fixed-n verdicts plain
// (class "reference"), under a header saying what they are. A header other than the
// column's name keeps the name in its title.
struct VerdictColumns {
  std::vector<std::string> coloured, reference;
  std::vector<std::pair<std::string, std::string>> labels;  // column, header
  std::string header(const std::string& column) const {
    for (const auto& [c, text] : labels)
      if (c == column) return text;
    return column;
  }
  std::string cell_class(const std::string& column, const std::string& text) const {
    if (std::find(reference.begin(), reference.end(), column) != reference.end())
      return " class=\"reference\"";
    if (text.empty() || std::find(coloured.begin(), coloured.end(), column) == coloured.end())
      return "";
    return " class=\"verdict-" + escape_html(verdict_word(text)) + "\"";
  }
};

VerdictColumns verdict_columns(bool adaptive) {
  if (!adaptive) return {{"verdict", "claim_verdict"}, {}, {}};
  return {{"sequential_verdict"},
          {"verdict", "claim_verdict"},
          {{"sequential_verdict", "design verdict"},
           {"decided_round", "decided in round"},
           {"verdict", kFixedNReference},
           {"claim_verdict", kFixedNReference}}};
}

// An HTML table of the CSV's `shown` columns (those it has), a row per CSV row: each
// cell the CSV's text as it is, marked with its column and row so the browser test can
// check the page against the file.
std::string csv_table(const Csv& csv, const std::string& id, const std::string& source,
                      const std::vector<std::string>& shown, const VerdictColumns& verdicts = {}) {
  std::vector<int> cols;
  for (const std::string& c : shown)
    if (csv.column(c) >= 0) cols.push_back(csv.column(c));
  std::ostringstream h;
  h << "<div class=\"scroll\"><table class=\"sortable\" id=\"" << id << "\" data-source=\""
    << source << "\">\n<thead><tr>";
  for (int c : cols) {
    const std::string& name = csv.columns[c];
    const std::string header = verdicts.header(name);
    h << "<th data-col=\"" << escape_html(name) << "\""
      << (header == name ? "" : " title=\"" + escape_html(source + ": " + name) + "\"") << ">"
      << escape_html(header) << "</th>";
  }
  h << "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    const auto& row = csv.rows[r];
    h << "<tr data-row=\"" << r << "\">";
    for (int c : cols) {
      const std::string cell = std::size_t(c) < row.size() ? row[c] : "";
      h << "<td data-col=\"" << escape_html(csv.columns[c]) << "\""
        << verdicts.cell_class(csv.columns[c], cell) << ">" << escape_html(cell) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</tbody></table></div>\n";
  return h.str();
}

// The design's verdict (an adaptive run's) before the fixed-n one.
const std::vector<std::string> kComparisonColumns = {"run",           "point",
                                                     "metric",        "n",
                                                     "mean",          "ci_low",
                                                     "ci_high",       "diff",
                                                     "diff_ci_low",   "diff_ci_high",
                                                     "p_value",       "effect_size",
                                                     "mde",           "sequential_verdict",
                                                     "decided_round", "verdict",
                                                     "trials",        "diverged",
                                                     "failed",        "missing"};
const std::vector<std::string> kClaimColumns = {"claim",
                                                "metric",
                                                "point",
                                                "baseline_point",
                                                "expect",
                                                "margin",
                                                "n",
                                                "method",
                                                "diff",
                                                "ci_low",
                                                "ci_high",
                                                "p_agree_adjusted",
                                                "p_disagree_adjusted",
                                                "sequential_verdict",
                                                "decided_round",
                                                "claim_verdict",
                                                "rests_on_normality",
                                                "preregistered",
                                                "reason"};

// Columns that are empty in every row say nothing (a run's "run" column in its own
// report, sequential columns of a fixed design): left out of the visible table.
std::vector<std::string> non_empty(const Csv& csv, const std::vector<std::string>& wanted,
                                   bool drop_run_column) {
  std::vector<std::string> out;
  for (const std::string& c : wanted) {
    const int i = csv.column(c);
    if (i < 0 || (drop_run_column && c == "run")) continue;
    const bool any = std::any_of(csv.rows.begin(), csv.rows.end(), [&](const auto& r) {
      return std::size_t(i) < r.size() && !r[i].empty();
    });
    if (any) out.push_back(c);
  }
  return out;
}

std::string section(const std::string& id, const std::string& title, const std::string& body) {
  return "<section id=\"" + id + "\">\n<h2>" + escape_html(title) + "</h2>\n" + body +
         "</section>\n";
}

std::string paragraph(const std::string& text) {
  return "<p>" + escape_html(text) + "</p>\n";
}

// Shown where a chart will be drawn; without JavaScript it says where the same figure is.
std::string chart_slot(const std::string& id, const std::string& fallback) {
  return "<div class=\"chart\" id=\"" + id + "\"><p class=\"noscript-note\">" +
         escape_html(fallback) + "</p></div>\n";
}

// An object's values by their dotted paths ("provenance.code.commit"), a list of plain
// values joined by spaces (an argv, the instruction sets): one row a fact.
std::vector<std::pair<std::string, json>> facts(const json& v, const std::string& path) {
  std::vector<std::pair<std::string, json>> out;
  if (v.is_object()) {
    for (const auto& [k, x] : v.items())
      for (auto& f : facts(x, path + "." + k)) out.push_back(std::move(f));
    return out;
  }
  if (v.is_array() &&
      std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_primitive(); })) {
    std::string joined;
    for (const json& x : v)
      joined += (joined.empty() ? "" : " ") + (x.is_string() ? x.get<std::string>() : x.dump());
    out.emplace_back(path, json(joined));
    return out;
  }
  out.emplace_back(path, v);
  return out;
}

std::string provenance_section(const json& groups) {
  if (!groups.is_array() || groups.empty()) return "";
  std::ostringstream h;
  h << paragraph(
      "What made the finished trials, from their summary.json files: one table for each "
      "distinct combination, with how many trials share it.");
  for (const json& g : groups) {
    h << "<table class=\"keyvalue\"><caption>" << escape_html(g.value("run", "")) << ": "
      << g.value("trials", 0) << " trial(s)</caption>\n";
    auto row = [&](const std::string& k, const json& v) {
      h << "<tr><th>" << escape_html(k) << "</th><td>"
        << escape_html(v.is_string() ? v.get<std::string>() : v.dump()) << "</td></tr>\n";
    };
    row("code_version", g.value("code_version", json("not recorded")));
    for (const char* part : {"computation", "provenance"}) {
      const json& v = g.contains(part) ? g[part] : json();
      if (!v.is_object()) {
        row(part, json("not recorded (the trial ran before ablate recorded it)"));
        continue;
      }
      for (const auto& [k, x] : facts(v, part)) row(k, x);
    }
    h << "</table>\n";
  }
  return section("provenance", "Provenance", h.str());
}

std::string samples_section(const json& figures) {
  std::ostringstream h;
  for (const json& p : figures) {
    const json s = p.value("samples", json());  // (operator[] of a const json needs the key)
    if (!s.is_object()) continue;
    h << "<h3>" << escape_html(p.value("label", "")) << " <span class=\"muted\">(seed "
      << s.value("seed", 0) << ", trial " << escape_html(s.value("trial", "")) << ")</span></h3>\n";
    if (s.value("kind", "") == "forecast") {
      h << "<div class=\"chart forecast-chart\" data-point-id=\""
        << escape_html(p.value("run", "") + "/" + p.value("point_id", ""))
        << "\"><p class=\"noscript-note\">Needs JavaScript: forecasts.json in the trial's "
           "directory holds these windows.</p></div>\n";
      continue;
    }
    if (s.value("kind", "") == "text") {
      h << "<pre class=\"sample\">" << escape_html(s.value("text", "")) << "</pre>\n";
      continue;
    }
    h << "<div class=\"scroll\"><table><thead><tr>";
    for (const json& c : s.value("columns", json::array()))
      h << "<th>" << escape_html(c.get<std::string>()) << "</th>";
    h << "</tr></thead><tbody>\n";
    for (const json& r : s.value("rows", json::array())) {
      h << "<tr>";
      for (const json& c : r) h << "<td>" << escape_html(c.get<std::string>()) << "</td>";
      h << "</tr>\n";
    }
    h << "</tbody></table></div>\n";
  }
  if (h.str().empty()) return "";
  return section("samples", "Samples",
                 paragraph("The first test examples as each point's first seed decoded them "
                           "(predictions.tsv), the text a language model generated "
                           "(samples.txt), or a forecaster's forecast against the truth on "
                           "four test windows spread over the test set (forecasts.json, "
                           "model units).") +
                     h.str());
}

std::string libraries_section() {
  std::ostringstream h;
  h << paragraph(
      "The charts are drawn by these libraries, inlined in this file from the npm tarballs "
      "whose SHA-256 the build checks (cmake/reportLibraries.cmake):");
  for (const ReportLibrary& l : report_libraries())
    h << "<details><summary>" << escape_html(l.package) << " " << escape_html(l.version) << " ("
      << escape_html(l.file) << ", tarball SHA-256 " << escape_html(l.tarball_sha256)
      << ")</summary><pre>" << escape_html(std::string(l.licence)) << "</pre></details>\n";
  return section("libraries", "Libraries", h.str());
}

// The page's head and header: title, description, notes, the section links.
std::string page_top(const ReportPage& page) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    // Nothing may be fetched: scripts and styles are inline, images are drawn as SVG or
    // data: URLs (a chart's PNG export). Vega compiles its expressions with Function, hence
    // 'unsafe-eval'.
    << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
       "'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>" << escape_html(page.title) << " — ablate report</title>\n<style>\n"
    << report_style_sheet() << "</style>\n</head>\n<body>\n<header>\n<h1>"
    << escape_html(page.title) << "</h1>\n";
  if (!page.description.empty())
    h << "<p class=\"description\">" << escape_html(page.description) << "</p>\n";
  for (const std::string& n : page.notes) h << paragraph(n);
  h << "<nav>";
  if (page.design) h << "<a href=\"#verdicts\">Verdicts</a> ";
  const std::vector<std::pair<std::string, std::string>> nav = {
      {"claims", "Claims"},        {"points", "Points"},         {"by-axis", "Metric vs axis"},
      {"curves", "Curves"},        {"attention", "Attention"},   {"samples", "Samples"},
      {"differs", "What differs"}, {"provenance", "Provenance"}, {"trials", "Every trial"}};
  for (const auto& [id, name] : nav) h << "<a href=\"#" << id << "\">" << name << "</a> ";
  h << "</nav>\n</header>\n";

  return h.str();
}

// What the claims table's intervals are: 1 − 2α/m for the file's m claims.
std::string claims_intro(const ReportPage& page, const Csv& claims) {
  std::size_t family = page.claim_family;
  if (!family) {  // a page made without it: the distinct claims of claims.csv
    std::vector<std::string> seen;
    const int c = claims.column("claim");
    for (const auto& row : claims.rows)
      if (c >= 0 && std::size_t(c) < row.size() &&
          std::find(seen.begin(), seen.end(), row[c]) == seen.end())
        seen.push_back(row[c]);
    family = seen.size();
  }
  std::ostringstream t;
  t << "Each claim's verdict by the standard rules, as claims.csv gives it: the difference with "
       "its "
    << claim_interval_level(family)
    << " interval (ci_low, ci_high: each bound one-sided at α = 0.05";
  if (family > 1) t << "/" << family;
  t << ", Bonferroni over the file's " << family << " claim" << (family == 1 ? "" : "s")
    << "), the p-values adjusted over the file's claims, and whether the claim was frozen before "
       "the data.";
  return t.str();
}

constexpr const char* kAdaptiveNote =
    " The design's verdict is the run's (the first section); the fixed-n verdict and "
    "p-values assume seeds fixed in advance and are for reference only.";

// Claims and points: the CSVs as tables.
std::string table_sections(const ReportPage& page, const Csv& claims, const Csv& comparisons) {
  const VerdictColumns verdicts = verdict_columns(page.design.has_value());
  const std::string adaptive_note = page.design ? kAdaptiveNote : "";
  std::ostringstream h;
  if (!claims.rows.empty())
    h << section("claims", "Claims",
                 paragraph(claims_intro(page, claims) + adaptive_note) +
                     csv_table(claims, "claims-table", "claims.csv",
                               non_empty(claims, kClaimColumns, false), verdicts));
  h << section(
      "points", "Points",
      paragraph("Every sweep point and test metric, as comparisons.csv gives it: the test "
                "score at the validation-selected step, its mean over seeds with the 95% "
                "interval, and the comparison with the baseline. Click a column to sort." +
                adaptive_note) +
          "<div class=\"controls\" id=\"points-controls\"></div>\n" +
          csv_table(comparisons, "comparisons-table", "comparisons.csv",
                    non_empty(comparisons, kComparisonColumns, !page.several_runs), verdicts));
  return h.str();
}

// The sections the script draws charts into.
std::string chart_sections() {
  std::ostringstream h;
  h << section(
      "by-axis", "Metric vs axis",
      paragraph("The test metric at the validation-selected step against each swept "
                "key: the table's mean and 95% interval per point, each seed a faint dot.") +
          chart_slot("by-axis-charts",
                     "Needs JavaScript; plots/ holds the same figures as SVG and PNG."));
  h << section(
      "curves", "Curves",
      paragraph("Each seed a faint line, the mean over seeds bold, its 95% interval "
                "shaded. Choose what to draw: train loss, validation metrics, learning "
                "rate, gradient norm.") +
          "<div class=\"controls\" id=\"curves-controls\"></div>\n" +
          chart_slot("curves-chart",
                     "Needs JavaScript; plots/ holds the validation-loss curves as SVG and PNG."));
  h << section("attention", "Attention",
               paragraph("Each point's attention weights on one test example (its first seed's "
                         "attention.json): a panel per head, query positions down, key positions "
                         "across. Masked cells — keys after the query in causal self-attention, "
                         "padding, shared Q/K's own position — are crossed out, not coloured.") +
                   "<div class=\"controls\" id=\"attention-controls\"></div>\n" +
                   chart_slot("attention-chart",
                              "Needs JavaScript; plots/ holds the best point's heatmaps."));
  return h.str();
}

// Samples, what differs, provenance, every trial, the libraries.
std::string other_sections(const ReportPage& page, const Csv& results) {
  std::ostringstream h;
  h << samples_section(page.figures);
  h << section(
      "differs", "What differs",
      paragraph("Choose two points: the keys of their resolved configurations whose "
                "values differ.") +
          "<div class=\"controls\" id=\"differs-controls\"></div>\n<div id=\"differs-table\">"
          "<p class=\"noscript-note\">Needs JavaScript; the points table lists each point's swept "
          "values.</p></div>\n");
  h << provenance_section(page.provenance);
  if (!results.rows.empty())
    h << section("trials", "Every trial",
                 "<details><summary>results.csv: " + std::to_string(results.rows.size()) +
                     " trials</summary>\n" +
                     csv_table(results, "results-table", "results.csv", results.columns) +
                     "</details>\n");
  h << libraries_section();

  return h.str();
}

// The data the script reads, the libraries, then the script.
std::string page_scripts(const json& data) {
  std::ostringstream h;
  h << "<script type=\"application/json\" id=\"report-data\">" << script_json(data)
    << "</script>\n";
  for (const ReportLibrary& l : report_libraries())
    h << "<script>/* " << l.package << " " << l.version << " */\n"
      << inline_script(l.script) << "\n</script>\n";
  h << "<script>\n" << inline_script(report_app_script()) << "\n</script>\n";
  return h.str();
}

}  // namespace

std::string report_html(const ReportPage& page) {
  const Csv comparisons = parse_csv(page.comparisons_csv);
  const Csv claims = parse_csv(page.claims_csv);
  const Csv results = parse_csv(page.results_csv);
  const json data = {{"title", page.title},
                     {"primary", page.primary},
                     {"keys", page.keys},
                     {"comparisons", csv_json(comparisons)},
                     {"figures", page.figures}};
  return page_top(page) + "<main>\n" + (page.design ? design_verdicts_html(*page.design) : "") +
         table_sections(page, claims, comparisons) + chart_sections() +
         other_sections(page, results) + "</main>\n" + page_scripts(data) + "</body>\n</html>\n";
}

}  // namespace ablate::experiments
