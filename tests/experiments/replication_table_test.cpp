// experiments/studies/replications/README.md's table is a transcription of the committed
// claims.csv files (experiments/studies/results/replications/<file>/claims.csv), never a second
// source of findings: every claim's difference and its interval (the claim's own,
// Bonferroni over the file's claims: claims.csv ci_low, ci_high; for an adaptive run its
// confidence sequence, sequential_low and sequential_high) appears in a row of the
// table, written to three decimals, and that row's verdict is the one the report
// computed for the claim (an adaptive run's: sequential_verdict); and every interval a file's
// section quotes is one its comparisons.csv holds. Results rerun with other numbers, a verdict or a
// number edited by hand, or a row whose verdict no claims.csv backs fail here.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kRepository = std::string(ABLATE_TEST_DATA_DIR) + "/..";
const std::string kMinus = "\u2212";  // the README writes negative numbers with U+2212

// `v` to three decimals as the README writes it: U+2212 for a negative number, and a
// "+" on a positive difference when `plus`.
std::string three_decimals(double v, bool plus) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.3f", std::fabs(v));
  if (std::string(digits) == "0.000") return digits;
  return (v < 0 ? kMinus : plus ? "+" : "") + std::string(digits);
}

// The rows of the README's "## The table" section below its header and separator.
std::vector<std::string> table_rows(const std::string& readme) {
  std::vector<std::string> rows;
  bool in_section = false;
  for (const std::string& line : lines_of(readme)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## The table";
    if (in_section && line.rfind("| ", 0) == 0 && line.rfind("| paper |", 0) != 0)
      rows.push_back(line);
  }
  return rows;
}

std::string verdict_cell(const std::string& row) {
  const std::size_t end = row.find_last_of('|');
  const std::size_t begin = row.find_last_of('|', end - 1);
  return row.substr(begin + 1, end - begin - 1);
}

// How the table writes a computed claim verdict.
std::string table_label(const std::string& claim_verdict) {
  if (claim_verdict == "agrees") return "**agrees**";
  if (claim_verdict == "disagrees") return "**disagrees**";
  if (claim_verdict == "inconclusive") return "**inconclusive**";
  // An adaptive run's claim still open when its points reached the budget.
  if (claim_verdict.starts_with("inconclusive at the budget (n = "))
    return "**" + claim_verdict + "**";
  FAIL("unknown claim verdict '" << claim_verdict << "'");
  return "";
}

// A committed CSV file: its rows (rows[0] the header, at least one row below it) and
// where each named column is; `required` columns must be there.
struct CsvTable {
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, std::size_t> column;
};

CsvTable read_table(const std::string& path, std::initializer_list<const char*> required = {}) {
  CsvTable t{csv_rows(read_text(path)), {}};
  REQUIRE(t.rows.size() > 1);
  for (std::size_t i = 0; i < t.rows[0].size(); ++i) t.column[t.rows[0][i]] = i;
  for (const char* name : required) REQUIRE(t.column.count(name));
  return t;
}

struct ClaimedPoint {
  std::string file, claim, result;  // result: "<diff> [<low>, <high>]" as the table writes it
};

// Every per-point row of every committed claims.csv, and each claim's verdict (the row
// without a point where the claim covers several points, else its one point's). A run
// with an adaptive design states the run's verdicts in its sequential columns — the
// difference, its confidence sequence and the sequential verdict — and the table quotes
// those; the fixed-n columns beside them are for reference.
void read_claims(std::vector<ClaimedPoint>& points, std::map<std::string, std::string>& verdicts,
                 std::set<std::string>& files) {
  for (const auto& dir :
       fs::directory_iterator(kRepository + "/experiments/studies/results/replications")) {
    const std::string file = dir.path().filename().string();
    files.insert(file);
    const std::string csv = dir.path().string() + "/claims.csv";
    INFO(csv);
    REQUIRE(fs::exists(csv));
    auto [rows, column] =
        read_table(csv, {"claim", "point_id", "diff", "ci_low", "ci_high", "claim_verdict"});
    const bool adaptive = column.count("sequential_verdict") > 0;
    const std::size_t verdict = column[adaptive ? "sequential_verdict" : "claim_verdict"],
                      diff = column[adaptive ? "sequential_mean" : "diff"],
                      low = column[adaptive ? "sequential_low" : "ci_low"],
                      high = column[adaptive ? "sequential_high" : "ci_high"];
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const std::vector<std::string>& row = rows[r];
      REQUIRE(row.size() == rows[0].size());
      const std::string key = file + ": " + row[column["claim"]];
      if (row[column["point_id"]].empty() || !verdicts.count(key)) verdicts[key] = row[verdict];
      if (row[column["point_id"]].empty()) continue;
      points.push_back({file, key,
                        three_decimals(std::stod(row[diff]), true) + " [" +
                            three_decimals(std::stod(row[low]), false) + ", " +
                            three_decimals(std::stod(row[high]), false) + "]"});
    }
  }
}

// `v` written with `decimals` decimals, a minus as U+2212 (never "+": the callers
// compare magnitudes and signs as the README writes them, "+" stripped).
std::string at_decimals(double v, int decimals) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.*f", decimals, std::fabs(v));
  return (v < 0 && std::stod(digits) != 0 ? kMinus : "") + std::string(digits);
}

int decimals_of(const std::string& number) {
  const std::size_t dot = number.find('.');
  return dot == std::string::npos ? 0 : int(number.size() - dot - 1);
}

// The lines of the section whose heading names `file`.toml.
std::string section_of(const std::string& readme, const std::string& file) {
  std::string section;
  bool in_section = false;
  for (const std::string& line : lines_of(readme)) {
    if (line.rfind("## ", 0) == 0)
      in_section = line.find("`" + file + ".toml`") != std::string::npos;
    if (in_section) section += line + "\n";
  }
  return section;
}

}  // namespace

TEST_CASE("the replications table states what the committed claims.csv files computed",
          "[replications]") {
  const std::string readme = read_text(kRepository + "/experiments/studies/replications/README.md");
  const std::vector<std::string> rows = table_rows(readme);
  REQUIRE(rows.size() >= 8);
  std::vector<ClaimedPoint> points;
  std::map<std::string, std::string> verdicts;
  std::set<std::string> files;
  read_claims(points, verdicts, files);

  // One results directory per replication file, and the README has a section on each.
  std::set<std::string> experiment_files;
  for (const auto& f : fs::directory_iterator(kRepository + "/experiments/studies/replications"))
    if (f.path().extension() == ".toml") experiment_files.insert(f.path().stem().string());
  CHECK(files == experiment_files);
  for (const std::string& file : files) {
    INFO(file);
    CHECK(readme.find("`" + file + ".toml`") != std::string::npos);
  }

  // Every claim has a row that quotes its result with its verdict. Two files' claims can
  // compute the same three-decimal result (vaswani_table3's (E) and press_alibi's claim
  // at the training length both read +0.037 [0.014, 0.061]), so a row is backed by any
  // claim whose result and verdict it states, not refuted by another's.
  std::set<std::size_t> backed_rows;
  for (const ClaimedPoint& p : points) {
    INFO(p.claim << "\n  computed: " << p.result << ", " << verdicts[p.claim]);
    bool found = false;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].find(p.result) == std::string::npos ||
          verdict_cell(rows[i]).find(table_label(verdicts[p.claim])) == std::string::npos)
        continue;
      found = true;
      backed_rows.insert(i);
    }
    CHECK(found);
  }
  // A row that states a verdict states a computed one: a claim's result beside its verdict.
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string verdict = verdict_cell(rows[i]);
    if (verdict.find("**agrees**") == std::string::npos &&
        verdict.find("**disagrees**") == std::string::npos &&
        verdict.find("**inconclusive**") == std::string::npos)
      continue;
    INFO("row: " << rows[i]);
    CHECK(backed_rows.count(i));
  }
}

// The standard every replication is held to (the README's opening): its claims were
// committed before any of its trials ran, as the run's frozen record shows
// (claims.csv: preregistered = yes), and no verdict rests on fewer than 10 seeds. A
// rerun whose claims changed after its data, or a smaller design, fails here.
TEST_CASE("every replication's claims were fixed before its data and judged on 10 or more seeds",
          "[replications]") {
  for (const auto& dir :
       fs::directory_iterator(kRepository + "/experiments/studies/results/replications")) {
    const std::string csv = dir.path().string() + "/claims.csv";
    INFO(csv);
    auto [rows, column] = read_table(csv, {"claim", "point_id", "n", "preregistered"});
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const std::vector<std::string>& row = rows[r];
      INFO(row[column["claim"]] << " " << row[column["point_id"]]);
      CHECK(row[column["preregistered"]] == "yes");
      // A claim on several points has a row of its own without a point or an n.
      if (!row[column["point_id"]].empty()) CHECK(std::stoi(row[column["n"]]) >= 10);
    }
  }
}

TEST_CASE("every interval a replication's section quotes is one its comparisons.csv computed",
          "[replications]") {
  const std::string readme = read_text(kRepository + "/experiments/studies/replications/README.md");
  // "<value> [<low>, <high>]": a mean or a difference with its 95% interval.
  const std::regex interval(
      "([+]|\u2212)?([0-9]+\\.[0-9]+) \\[(\u2212)?([0-9]+\\.[0-9]+), "
      "(\u2212)?([0-9]+\\.[0-9]+)\\]");
  int quoted = 0;
  for (const auto& dir :
       fs::directory_iterator(kRepository + "/experiments/studies/results/replications")) {
    const std::string file = dir.path().filename().string();
    const std::string section = section_of(readme, file);
    INFO(file);
    REQUIRE_FALSE(section.empty());
    auto [rows, column] = read_table(dir.path().string() + "/comparisons.csv");
    for (auto m = std::sregex_iterator(section.begin(), section.end(), interval);
         m != std::sregex_iterator(); ++m) {
      const std::smatch& q = *m;
      const std::string value = (q[1] == kMinus ? kMinus : "") + q[2].str();
      const std::string low = (q[3].matched ? kMinus : "") + q[4].str();
      const std::string high = (q[5].matched ? kMinus : "") + q[6].str();
      const int decimals = decimals_of(q[2].str());
      INFO("quoted: " << q[0].str());
      ++quoted;
      bool found = false;
      for (std::size_t r = 1; r < rows.size() && !found; ++r) {
        for (const auto& [v, lo, hi] :
             {std::array<const char*, 3>{"mean", "ci_low", "ci_high"},
              std::array<const char*, 3>{"diff", "diff_ci_low", "diff_ci_high"}}) {
          const std::vector<std::string>& row = rows[r];
          if (row[column[v]].empty()) continue;
          const double x = std::stod(row[column[v]]), l = std::stod(row[column[lo]]),
                       h = std::stod(row[column[hi]]);
          // As computed, or turned round ("2.50 [2.34, 2.67] better" for a difference of −2.50).
          found = found ||
                  (at_decimals(x, decimals) == value &&
                   at_decimals(l, decimals_of(q[4].str())) == low &&
                   at_decimals(h, decimals_of(q[6].str())) == high) ||
                  (at_decimals(-x, decimals) == value &&
                   at_decimals(-h, decimals_of(q[4].str())) == low &&
                   at_decimals(-l, decimals_of(q[6].str())) == high);
        }
      }
      CHECK(found);
    }
  }
  CHECK(quoted >= 50);
}
