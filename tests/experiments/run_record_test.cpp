// A run's record (experiments/reports/run_record.h): results.csv, comparisons.csv,
// claims.csv and summary.md rebuilt by `ablate report` from a results folder's
// record.jsonl alone — written by every run, or derived once from a results.csv — and
// a record from elsewhere refused, naming its file and line, before anything is written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/build_paths.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

// The sweep experiment with a baseline and one claim, so that every report is written.
std::string claimed_experiment() {
  return sweep_experiment("recorded") +
         "\n[report]\nbaseline = { \"model.attention.qk\" = \"separate\" }\n"
         "[[report.claims]]\nclaim = \"Sharing Q and K costs less than 10 nats of loss.\"\n"
         "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"not_worse\"\nmetric = "
         "\"loss\"\nmargin = 10\n";
}

// summary.md without the paragraph after its title that says where it was rebuilt from.
std::string without_origin_note(const std::string& md) {
  const std::size_t note = md.find("\nRebuilt by `ablate report` from this folder's record.jsonl");
  if (note == std::string::npos) return md;
  return md.substr(0, note) + md.substr(md.find('\n', note + 1) + 1);
}

std::string run_once(const ScratchDir& dir) {
  dir.file("exp.toml", claimed_experiment());
  const CommandResult r =
      run_command("cd " + dir.str() + " && " + kCli + " run exp.toml --jobs 2 --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  return dir.str() + "/runs/recorded";
}

// report.html says what the folder's CSVs say: the comparisons it embeds are
// comparisons.csv's columns and rows, and its table of trials has a row for each trial
// of results.csv (when the folder has one).
void check_report_html_against_csvs(const std::string& folder) {
  const std::string html = read_text(folder + "/report.html");
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  const std::size_t begin = html.find(open);
  REQUIRE(begin != std::string::npos);
  const std::size_t end = html.find("</script>", begin);
  const nlohmann::json data =
      nlohmann::json::parse(html.substr(begin + open.size(), end - begin - open.size()));
  const auto comparisons = csv_rows(read_text(folder + "/comparisons.csv"));
  REQUIRE_FALSE(comparisons.empty());
  CHECK(data["comparisons"]["columns"].get<std::vector<std::string>>() == comparisons[0]);
  REQUIRE(data["comparisons"]["rows"].size() == comparisons.size() - 1);
  for (std::size_t i = 1; i < comparisons.size(); ++i)
    CHECK(data["comparisons"]["rows"][i - 1].get<std::vector<std::string>>() == comparisons[i]);
  if (!fs::exists(folder + "/results.csv")) return;  // `ablate compare`'s page has no trials
  const auto results = csv_rows(read_text(folder + "/results.csv"));
  const std::size_t table = html.find("id=\"results-table\"");
  REQUIRE(table != std::string::npos);
  const std::string body = html.substr(table, html.find("</table>", table) - table);
  std::size_t rows = 0;
  for (std::size_t at = body.find("<tr"); at != std::string::npos; at = body.find("<tr", at + 1))
    ++rows;
  CHECK(rows == results.size());  // the header and a row per trial
  for (std::size_t i = 1; i < results.size(); ++i) CHECK_THAT(body, Catch::Contains(results[i][0]));
}

// Every image summary.md (and study.md) shows is a committed file of the folder.
void check_images_committed(const fs::path& committed, const std::string& md_name) {
  if (!fs::exists(committed / md_name)) return;
  const std::string md = read_text((committed / md_name).string());
  for (std::size_t at = md.find("]("); at != std::string::npos; at = md.find("](", at + 1)) {
    const std::size_t close = md.find(')', at);
    const std::string target = md.substr(at + 2, close - at - 2);
    if (!target.starts_with("plots/")) continue;
    INFO(md_name << " shows " << target);
    CHECK(fs::exists(committed / target));
  }
}

}  // namespace

// Protects "rebuild, don't retrain": the record a run writes is all its reports need.
TEST_CASE(
    "a run's record.jsonl alone rebuilds its results.csv, comparisons.csv, claims.csv and "
    "summary.md",
    "[record][e2e]") {
  ScratchDir dir("record_run");
  const std::string run = run_once(dir);
  REQUIRE(fs::exists(run + "/record.jsonl"));
  const std::string folder = dir.str() + "/kept/recorded";
  fs::create_directories(folder);
  fs::copy_file(run + "/record.jsonl", folder + "/record.jsonl");
  const CommandResult r = run_command(kCli + " report " + folder);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("8 of 8 trials finished (rebuilt from "));
  for (const char* name : {"results.csv", "comparisons.csv", "claims.csv"}) {
    INFO(name);
    CHECK(read_text(folder + "/" + name) == read_text(run + "/" + name));
  }
  const std::string md = read_text(folder + "/summary.md");
  CHECK_THAT(md,
             Catch::Contains(
                 "(the run's trial index and every trial's summary and validation curve, at full "
                 "precision)"));
  // The same report, curves, evaluation noise and plots included.
  CHECK(without_origin_note(md) == read_text(run + "/summary.md"));
  CHECK_THAT(md, Catch::Contains("### Validation curve: auc_sequence_accuracy") &&
                     Catch::Contains("Evaluation noise") && !Catch::Contains("Not rebuilt"));
  // Rebuilding again changes nothing, and the record is left as it was.
  const std::string record = read_text(folder + "/record.jsonl");
  REQUIRE(run_command(kCli + " report " + folder).status == 0);
  CHECK(read_text(folder + "/summary.md") == md);
  CHECK(read_text(folder + "/record.jsonl") == record);
  // `ablate compare` reads a results folder as it reads a run directory.
  const CommandResult compared =
      run_command(kCli + " compare " + folder + " --out " + dir.str() + "/compared");
  INFO(compared.output);
  CHECK(compared.status == 0);
  CHECK(fs::exists(dir.str() + "/compared/comparisons.csv"));
}

// Protects records committed before the header kept the shared summary parts once:
// version 1 (every part on every trial's line) still rebuilds the same reports, and a
// trial without a part the others share gets it back without it.
TEST_CASE("a version 1 record and a trial lacking a shared part rebuild exactly", "[record][e2e]") {
  ScratchDir dir("record_v1");
  const std::string run = run_once(dir);
  const auto lines = lines_of(read_text(run + "/record.jsonl"));
  nlohmann::json header = nlohmann::json::parse(lines[0]);
  REQUIRE(header["version"] == 2);
  const nlohmann::json defaults = header["trial_defaults"];
  REQUIRE(defaults.contains("provenance"));
  REQUIRE(defaults.contains("code_version"));
  // Version 1: the defaults written out on every line.
  header["version"] = 1;
  header.erase("trial_defaults");
  std::string v1 = header.dump() + "\n";
  for (std::size_t i = 1; i < lines.size(); ++i) {
    nlohmann::json t = nlohmann::json::parse(lines[i]);
    CHECK_FALSE(t["summary"].contains("provenance"));  // kept once, in the header
    t["summary"].update(defaults);
    v1 += t.dump() + "\n";
  }
  const std::string folder = dir.str() + "/v1/recorded";
  fs::create_directories(folder);
  dir.file("v1/recorded/record.jsonl", v1);
  const CommandResult r = run_command(kCli + " report " + folder);
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* name : {"results.csv", "comparisons.csv", "claims.csv"})
    CHECK(read_text(folder + "/" + name) == read_text(run + "/" + name));
  CHECK(without_origin_note(read_text(folder + "/summary.md")) == read_text(run + "/summary.md"));

  // A trial's summary.json without "code_version" is written back without it.
  const std::string trial_id = nlohmann::json::parse(lines[1])["id"];
  const std::string summary = run + "/trials/" + trial_id + "/summary.json";
  nlohmann::json s = nlohmann::json::parse(read_text(summary));
  REQUIRE(s.contains("code_version"));
  s.erase("code_version");
  dir.file("runs/recorded/trials/" + trial_id + "/summary.json", s.dump(2) + "\n");
  REQUIRE(run_command(kCli + " report " + run).status == 0);
  const auto rewritten = lines_of(read_text(run + "/record.jsonl"));
  const nlohmann::json line = nlohmann::json::parse(rewritten[1]);
  CHECK(line["summary_lacks"] == nlohmann::json::array({"code_version"}));
  const std::string kept = dir.str() + "/lacking/recorded";
  fs::create_directories(kept);
  fs::copy_file(run + "/record.jsonl", kept + "/record.jsonl");
  REQUIRE(run_command(kCli + " report " + kept).status == 0);
  CHECK(read_text(kept + "/results.csv") == read_text(run + "/results.csv"));
}

// Protects results kept without their run directory: the record derived from
// results.csv says what it lacks, rebuilds that results.csv, and keeps what it cannot
// rebuild rather than losing it.
TEST_CASE(
    "ablate report --from-results derives a record from results.csv, and refuses another "
    "experiment's",
    "[record][e2e]") {
  ScratchDir dir("record_derived");
  const std::string run = run_once(dir);
  const std::string folder = dir.str() + "/kept/recorded";
  fs::create_directories(folder);
  for (const char* name : {"results.csv", "summary.md", "comparisons.csv"})
    fs::copy_file(run + "/" + name, folder + "/" + name);
  const CommandResult no_record = run_command(kCli + " report " + folder);
  CHECK(no_record.status == 2);
  CHECK_THAT(no_record.output,
             Catch::Contains("neither a run directory (no trials.json") &&
                 Catch::Contains("nor a results folder (no record.jsonl; see --from-results)"));

  // Trials of another sweep (other seeds): refused, and no record is written.
  dir.file("other.toml", claimed_experiment() + "\n");
  std::string other = read_text(dir.str() + "/other.toml");
  other.replace(other.find("seeds = [0, 1]"), 14, "seeds = [0, 2]");
  dir.file("other.toml", other);
  const CommandResult refused =
      run_command(kCli + " report " + folder + " --from-results " + dir.str() + "/other.toml");
  CHECK(refused.status != 0);
  CHECK_THAT(refused.output, Catch::Contains("results.csv: trial ") &&
                                 Catch::Contains("is not one the experiment file defines now"));
  CHECK_FALSE(fs::exists(folder + "/record.jsonl"));

  const CommandResult r =
      run_command(kCli + " report " + folder + " --from-results " + dir.str() + "/exp.toml");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(read_text(folder + "/record.jsonl"), Catch::Contains("\"source\":\"results.csv\""));
  // The same cells (to six significant digits, as results.csv has them).
  CHECK(read_text(folder + "/results.csv") == read_text(run + "/results.csv"));
  // The claims judged from them: the same verdict words.
  const auto original = csv_rows(read_text(run + "/claims.csv")),
             rebuilt = csv_rows(read_text(folder + "/claims.csv"));
  REQUIRE(original.size() == rebuilt.size());
  const std::size_t verdict =
      std::find(original[0].begin(), original[0].end(), "claim_verdict") - original[0].begin();
  for (std::size_t i = 1; i < original.size(); ++i)
    CHECK(rebuilt[i][verdict] == original[i][verdict]);
  // What needs curves and standard errors is the original's, under a heading saying so.
  const std::string md = read_text(folder + "/summary.md");
  CHECK_THAT(md, Catch::Contains(
                     "derived from results.csv when the run directory was no longer at hand") &&
                     !Catch::Contains("Evaluation noise") &&
                     Catch::Contains("## Not rebuilt: from the original report") &&
                     Catch::Contains("#### Validation curve: auc_sequence_accuracy") &&
                     Catch::Contains("### Plots"));
  CHECK(md.find("### Claims") < md.find("## Not rebuilt"));
  CHECK_THAT(read_text(folder + "/comparisons.csv"), !Catch::Contains(",auc_sequence_accuracy,"));
  // Derived once: rebuilding again gives the same summary, whatever summary.md now says.
  REQUIRE(run_command(kCli + " report " + folder).status == 0);
  CHECK(read_text(folder + "/summary.md") == md);
  // A run directory's record comes from its trials, not from a results.csv.
  CHECK(
      run_command(kCli + " report " + run + " --from-results " + dir.str() + "/exp.toml").status ==
      2);
}

// Protects against records from elsewhere: each defect is an error naming the file and
// line, exit status 2, and the folder's reports are left as they were.
TEST_CASE("a damaged or hostile record.jsonl is refused at its line and nothing is written",
          "[record][e2e]") {
  ScratchDir dir("record_hostile");
  const std::string run = run_once(dir);
  const std::string good = read_text(run + "/record.jsonl");
  const auto lines = lines_of(good);
  REQUIRE(lines.size() == 9);  // the header and 8 trials
  const std::string header = lines[0], trial = lines[1];
  const std::string id = trial.substr(trial.find("\"id\":\"") + 6, 16);
  auto with = [&](std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  struct Case {
    std::string name, record, message;
  };
  const std::vector<Case> cases = {
      {"not JSON", "{\"record\":\n", "record.jsonl:1"},
      {"not a record", "{\"trials.json\":{}}\n", "record.jsonl:1: not an ablate run record"},
      {"another version", with(header, "\"version\":2", "\"version\":3") + "\n",
       "record.jsonl:1: record version 3; this ablate reads versions 1 to 2"},
      {"defaults of the wrong type",
       with(header, "\"trial_defaults\":{", "\"trial_defaults\":[],\"x\":{") + "\n",
       "record.jsonl:1: trial_defaults must be an object"},
      {"summary_lacks of the wrong type",
       header + "\n" + with(trial, "\"summary\":{", "\"summary_lacks\":\"files\",\"summary\":{") +
           "\n",
       "record.jsonl:2: summary_lacks must be an array"},
      {"a path as a trial id",
       with(header, "\"id\":\"" + id + "\"", "\"id\":\"../../escaped\"") + "\n",
       "record.jsonl:1: trials.json: trial id \"../../escaped\" is not 16 hexadecimal digits"},
      {"a trial not in the index", header + "\n" + with(trial, id, "0123456789abcdef") + "\n",
       "record.jsonl:2: trial \"0123456789abcdef\" is not in trials.json"},
      {"a trial twice", header + "\n" + trial + "\n" + trial + "\n",
       "record.jsonl:3: trial " + id + " is given twice"},
      {"a summary of the wrong type",
       header + "\n" + with(trial, "\"summary\":{", "\"summary\":[{") + "\n", "record.jsonl:2"},
      {"a part of the wrong type",
       header + "\n" + with(trial, "\"final\":{", "\"final\":7,\"x\":{") + "\n",
       "record.jsonl:2: summary.final must be an object"},
  };
  const std::string folder = dir.str() + "/kept/recorded";
  fs::create_directories(folder);
  for (const Case& c : cases) {
    INFO(c.name);
    dir.file("kept/recorded/record.jsonl", c.record);
    dir.file("kept/recorded/summary.md", "as it was\n");
    const CommandResult r = run_command(kCli + " report " + folder);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(c.message));
    CHECK(read_text(folder + "/summary.md") == "as it was\n");
    CHECK_FALSE(fs::exists(folder + "/results.csv"));
  }
}

// Protects the committed results: each results folder's reports are what its record
// gives under today's statistics, so a change to the rules cannot leave them stale
// (scripts/rebuild-results.sh rebuilds them all). Release only ([smoke]): 23 folders
// of up to 720 trials take minutes under the sanitizers and seconds here.
TEST_CASE("every committed results folder is what ablate report rebuilds from its record",
          "[record][smoke]") {
  const fs::path results =
      fs::path(std::string(ABLATE_TEST_DATA_DIR)) / ".." / "experiments" / "studies" / "results";
  ScratchDir dir("record_committed");
  int folders = 0;
  for (const auto& entry : fs::recursive_directory_iterator(results)) {
    if (entry.path().filename() != "record.jsonl") continue;
    const fs::path committed = entry.path().parent_path();
    INFO(committed.string());
    ++folders;
    const std::string copy =
        dir.str() + "/" + std::to_string(folders) + "/" + committed.filename().string();
    fs::create_directories(copy);
    fs::copy(committed, copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    const CommandResult r = run_command(kCli + " report " + copy);
    INFO(r.output);
    REQUIRE(r.status == 0);
    for (const char* name :
         {"results.csv", "comparisons.csv", "claims.csv", "summary.md", "study.json", "study.md"}) {
      INFO(name);
      REQUIRE(fs::exists(committed / name) == fs::exists(copy + "/" + name));
      if (fs::exists(committed / name))
        CHECK(read_text(copy + "/" + name) == read_text((committed / name).string()));
    }
    // report.html is not committed (.gitignore): it is made here, and says what the CSVs say.
    check_report_html_against_csvs(copy);
    check_images_committed(committed, "summary.md");
    check_images_committed(committed, "study.md");
  }
  // Every shipped experiment and replication has its folder
  // (experiments/studies/results/README.md), and vaswani_table3 and xiong_warmup have
  // their bf16 reruns (bf16/, the replications README's "bf16 for sweeps"), and checks/
  // the runs made to check a replication's report (xiong_warmup's grid edges,
  // blog_scale's).
  CHECK(folders == 24);
  // The comparison of norms with no norm, rebuilt from the norms folder's record.
  const std::string compared = dir.str() + "/vs_none";
  const CommandResult r = run_command(kCli + " compare " + (results / "norms").string() +
                                      " --baseline f28c66102367d558 --out " + compared);
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* name : {"comparisons.csv", "comparisons.md"})
    CHECK(read_text(compared + "/" + name) ==
          read_text((results / "norms" / "vs_none" / name).string()));
  check_report_html_against_csvs(compared);
}
