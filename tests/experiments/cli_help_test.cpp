// The command line says how to use it: every command's --help shows its real usage,
// arguments and examples (not Boost's internal option names), agrees with
// docs/reference/commands.md's tables of commands and exit statuses, --version works after
// any command, a locked run directory has its own exit status, messages print commands
// the user can run as printed, and the progress line fits the terminal. Each case failed
// against the build of c777528 (ABLATE_CLI_UNDER_TEST, tests/README.md).
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;

namespace {

const std::string kCli = ABLATE_CLI;

// The source tree whose scripts are tested: this one, or $ABLATE_SOURCE_UNDER_TEST's
// (an older checkout, beside ABLATE_CLI_UNDER_TEST).
std::string source_tree() {
  const char* other = std::getenv("ABLATE_SOURCE_UNDER_TEST");
  return other ? other : std::string(ABLATE_TEST_DATA_DIR) + "/..";
}

// docs/reference/commands.md's table of commands: each command's first cell, by command.
std::map<std::string, std::string> documented_commands() {
  const std::string page = reference_page("commands");
  const std::size_t header = page.find("\n| command | what it does |\n");
  if (header == std::string::npos) return {};
  const std::string table = page.substr(header);
  std::map<std::string, std::string> out;
  std::regex row("\n\\| `([a-z][a-z-]*)([^`]*)` \\|");  // tune-replay too
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row);
       it != std::sregex_iterator() && it->position() < std::ptrdiff_t(table.find("\n\n", 20));
       ++it)
    out[(*it)[1].str()] = (*it)[2].str();
  return out;
}

// The `--option` names in `text`.
std::set<std::string> options_in(const std::string& text) {
  std::set<std::string> out;
  std::regex option("--[a-z][a-z-]*");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), option);
       it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

// The options section of `ablate CMD --help`.
std::string options_section(const std::string& help) {
  const std::size_t from = help.find("\noptions:\n"), to = help.find("\nexamples:\n");
  return from == std::string::npos ? "" : help.substr(from, to - from);
}

// An experiment of two trials under `dir`.
std::string two_trial_file(const ScratchDir& dir, const std::string& name, int steps) {
  std::string t =
      tiny_experiment(name) + "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\n";
  t.replace(t.find("steps = 30"), 10, "steps = " + std::to_string(steps));
  return dir.file(name + ".toml", t);
}

}  // namespace

TEST_CASE("every command's --help shows its usage, arguments and examples", "[cli][issue34]") {
  const auto commands = documented_commands();
  REQUIRE(commands.size() >= 9);
  for (const auto& [command, synopsis] : commands) {
    CommandResult help = run_command(kCli + " " + command + " --help");
    INFO(command << ":\n" << help.output);
    CHECK(help.status == 0);
    CHECK_THAT(help.output, Catch::StartsWith("usage: ablate " + command));
    CHECK_THAT(help.output, Catch::Contains("\nexamples:\n  ablate " + command));
    // The positional arguments are named as the usage line names them, never as the
    // internal options Boost parses them into.
    for (const char* internal :
         {"--file", "--overrides", "--dir ", "--dirs", "--checkpoint", "--input", "--what"})
      CHECK_THAT(help.output, !Catch::Contains(internal));
  }
  CHECK_THAT(run_command(kCli + " run --help").output,
             Catch::Contains("usage: ablate run FILE [KEY=VALUE ...]"));
}

TEST_CASE(
    "the help and docs/reference/commands.md name the same commands, options and exit statuses",
    "[cli][issue34]") {
  const std::string overall = run_command(kCli + " --help").output;
  for (const auto& [command, synopsis] : documented_commands()) {
    INFO(command);
    CHECK_THAT(overall, Catch::Contains("\n  " + command + " "));
    const std::set<std::string> documented = options_in(synopsis);
    std::set<std::string> helped =
        options_in(options_section(run_command(kCli + " " + command + " --help").output));
    helped.erase("--help");
    for (const std::string& o : documented) CHECK(helped.count(o) == 1);
    for (const std::string& o : helped) CHECK(documented.count(o) == 1);
  }
  // Every row of the page's exit-status table, word for word.
  const std::string all = reference_page("commands");
  REQUIRE(all.find("\n## Exit status\n") != std::string::npos);
  const std::string from_table = all.substr(all.find("\n## Exit status\n"));
  const std::string statuses =
      from_table.substr(0, from_table.find("\n\n", from_table.find("|---")));
  std::regex row("\n\\| ([0-9]+) \\| ([^|]+) \\|");
  std::size_t rows = 0;
  for (auto it = std::sregex_iterator(statuses.begin(), statuses.end(), row);
       it != std::sregex_iterator(); ++it, ++rows) {
    std::string code = (*it)[1].str();
    code.resize(std::max<std::size_t>(code.size(), 3), ' ');
    CHECK_THAT(overall, Catch::Contains("\n  " + code + "  " + (*it)[2].str() + "\n"));
  }
  CHECK(rows == 6);
  for (const char* code : {"\n  0 ", "\n  1 ", "\n  2 ", "\n  75 ", "\n  130 ", "\n  143 "})
    CHECK_THAT(overall, Catch::Contains(code));
}

TEST_CASE("the version is printed after every command's name too", "[cli][issue34]") {
  const std::string version = run_command(kCli + " --version").output;
  REQUIRE_THAT(version, Catch::StartsWith("ablate "));
  for (const auto& [command, synopsis] : documented_commands()) {
    CommandResult r = run_command(kCli + " " + command + " --version");
    INFO(command << ": " << r.output);
    CHECK(r.status == 0);
    CHECK(r.output == version);
  }
}

TEST_CASE("a run directory locked by another run exits 75, not as a failed trial",
          "[cli][issue34][e2e]") {
  ScratchDir dir("cli_locked");
  const std::string file = two_trial_file(dir, "locked", 5);
  const std::string run = dir.str() + "/runs/locked";
  std::filesystem::create_directories(run);
  // flock(1) holds the run's lock while the second `ablate run` tries to take it.
  CommandResult r = run_command("flock -x " + run + "/.lock " + kCli + " run " + file + " --out " +
                                dir.str() + "/runs --quiet");
  INFO(r.output);
  CHECK(r.status == 75);
  CHECK_THAT(r.output, Catch::Contains("another `ablate run` is already writing " + run));
}

TEST_CASE("ablate list AXIS lists that axis, and another word names the axes", "[cli][issue34]") {
  CommandResult norms = run_command(kCli + " list norm");
  CHECK(norms.status == 0);
  CHECK_THAT(norms.output, Catch::StartsWith("norm\n") && Catch::Contains("\n  rms ") &&
                               !Catch::Contains("positions") && !Catch::Contains("plain keys"));
  CHECK_THAT(run_command(kCli + " list attention").output,
             Catch::Contains("attention.qk\n") && Catch::Contains("attention.scale\n"));
  CommandResult typo = run_command(kCli + " list nrom");
  CHECK(typo.status == 2);
  CHECK_THAT(typo.output, Catch::Contains("'nrom' is not an axis; the axes: attention.qk") &&
                              Catch::Contains(" norm, "));
}

TEST_CASE("report on a directory that is not a run exits 2, as a missing one does",
          "[cli][issue34]") {
  ScratchDir dir("cli_report_not_a_run");
  CommandResult not_a_run = run_command(kCli + " report " + dir.str());
  CHECK(not_a_run.status == 2);
  CHECK_THAT(not_a_run.output, Catch::Contains("neither a run directory"));
  CHECK(run_command(kCli + " report " + dir.str() + "/missing").status == 2);
}

TEST_CASE("a message names the command as the user can run it", "[cli][issue34]") {
  // Started by its path, with no `ablate` on PATH: the hint repeats the path.
  ScratchDir dir("cli_invoked_as");
  CommandResult by_path = run_command("env PATH=" + dir.str() + " " + kCli + " run --no-such");
  CHECK(by_path.status == 2);
  CHECK_THAT(by_path.output, Catch::Contains("(see '" + kCli + " run --help')"));
  // With this executable on PATH as `ablate`, the short name.
  const std::string bin = std::filesystem::path(kCli).parent_path().string();
  CommandResult on_path = run_command("env PATH=" + bin + ":/usr/bin:/bin ablate run --no-such");
  CHECK_THAT(on_path.output, Catch::Contains("(see 'ablate run --help')"));
}

TEST_CASE("set-up (a) says how to put ablate on PATH unless it is there", "[cli][issue34]") {
  const std::string hint = source_tree() + "/scripts/path-hint.sh";
  ScratchDir dir("cli_path_hint");
  CommandResult missing = run_command("env PATH=/usr/bin:/bin bash " + hint + " " + kCli);
  CHECK(missing.status == 0);
  const std::string bin = std::filesystem::path(kCli).parent_path().string();
  CHECK_THAT(missing.output, Catch::Contains("export PATH=\"" + bin + ":$PATH\"") &&
                                 Catch::Contains("cmake --install "));
  CommandResult present =
      run_command("env PATH=" + bin + ":/usr/bin:/bin bash " + hint + " " + kCli);
  CHECK(present.status == 0);
  CHECK(present.output.empty());
  CHECK_THAT(read_text(source_tree() + "/scripts/run.sh"),
             Catch::Contains("bash scripts/path-hint.sh build/experiments/ablate"));
}

TEST_CASE("a run starts with a line saying what runs where, and its progress fits the terminal",
          "[cli][issue34][e2e]") {
  ScratchDir dir("cli_progress");
  // Long swept values, two jobs: the full line would be far wider than 60 columns.
  std::string t = tiny_experiment("progress_width") +
                  "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\n"
                  "\"model.attention.scale\" = [\"sqrt_dk\", \"none\"]\n";
  t.replace(t.find("steps = 30"), 10, "steps = 400");
  const std::string file = dir.file("p.toml", t);
  const std::string out = dir.str() + "/tty.out";
  // script(1) gives the run a terminal 60 columns wide.
  CommandResult r = run_command("script -qfec 'stty cols 60; " + kCli + " run " + file +
                                " --jobs 2 --out " + dir.str() + "/runs' /dev/null > " + out);
  REQUIRE(r.status == 0);
  const std::string tty = read_text(out);
  CHECK_THAT(tty, Catch::Contains("running 4 of 4 trials into " + dir.str() +
                                  "/runs/progress_width/ with 2 jobs"));
  std::size_t progress_lines = 0;
  std::istringstream pieces(std::regex_replace(tty, std::regex("\r|\x1b\\[K"), "\n"));
  for (std::string piece; std::getline(pieces, piece);) {
    if (piece.rfind("[", 0) != 0) continue;  // the progress line starts with its counts
    ++progress_lines;
    std::size_t columns = 0;
    for (char c : piece) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    INFO(piece);
    CHECK(columns < 60);
    CHECK_THAT(piece, !Catch::Contains("step 0/400 loss"));
  }
  CHECK(progress_lines > 0);
}
