// The git state every build records (cmake/gitState.cmake, run at each build by the
// ablate_git_state target) tells a clean tree from a dirty one, including untracked
// files, gives each different edit its own SHA-256 of the difference, leaves the
// repository's own index alone, and outside a repository says "unknown" instead of
// failing the build. The script runs here on temporary repositories, as the build runs it.
#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <string>

#include "tests/build_paths.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;

namespace {

const std::string kScript = std::string(ABLATE_TEST_DATA_DIR) + "/../cmake/gitState.cmake";

// The variables the script sets, as name → value, for the tree `source` (one per line
// of a template the test writes, the way the build's templates use them).
std::map<std::string, std::string> git_state_of(const ScratchDir& dir, const std::string& source) {
  const std::string tmpl =
      dir.file("state.in",
               "GIT_COMMIT=@GIT_COMMIT@\nGIT_DIRTY=@GIT_DIRTY@\nGIT_DIFF_SHA256=@GIT_DIFF_SHA256@\n"
               "GIT_TREE=@GIT_TREE@\nABLATE_CODE_VERSION=@ABLATE_CODE_VERSION@\n");
  const std::string out = dir.path_of("out/state.txt");
  const CommandResult r = run_command(std::string(ABLATE_CMAKE) + " -DSOURCE_DIR=" + source +
                                      " -DPROJECT_VERSION=9.8.7 -DTEMPLATES=" + tmpl +
                                      " -DOUTPUTS=" + out + " -P " + kScript);
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::map<std::string, std::string> values;
  for (const std::string& line : lines_of(read_text(out)))
    values[line.substr(0, line.find('='))] = line.substr(line.find('=') + 1);
  return values;
}

bool git(const std::string& repo, const std::string& args) {
  return run_command("git -C " + repo + " -c user.name=test -c user.email=test@example.com " + args)
             .status == 0;
}

}  // namespace

TEST_CASE(
    "the build's git state: clean, dirty with a diff hash per edit, untracked files, no repository",
    "[e2e][provenance]") {
  if (run_command("git --version").status != 0) {
    WARN("no git on this machine: the script's git cases cannot run");
    return;
  }
  ScratchDir dir("git_state");
  const std::string repo = dir.path_of("repo");
  std::filesystem::create_directories(repo);
  REQUIRE(git(repo, "init -q"));
  dir.file("repo/a.txt", "one\n");
  REQUIRE(git(repo, "add a.txt"));
  REQUIRE(git(repo, "commit -q -m first"));
  const std::regex commit_id("[0-9a-f]{40}"), sha256("[0-9a-f]{64}");

  const auto clean = git_state_of(dir, repo);
  CHECK(std::regex_match(clean.at("GIT_COMMIT"), commit_id));
  CHECK(clean.at("GIT_DIRTY") == "false");
  CHECK(clean.at("GIT_DIFF_SHA256").empty());
  CHECK(clean.at("ABLATE_CODE_VERSION") == "9.8.7+" + clean.at("GIT_COMMIT").substr(0, 7));

  // A tracked file changed: dirty, with the hash of the difference.
  dir.file("repo/a.txt", "one\ntwo\n");
  const auto edited = git_state_of(dir, repo);
  CHECK(edited.at("GIT_COMMIT") == clean.at("GIT_COMMIT"));
  CHECK(edited.at("GIT_DIRTY") == "true");
  CHECK(std::regex_match(edited.at("GIT_DIFF_SHA256"), sha256));
  CHECK(edited.at("GIT_TREE") != clean.at("GIT_TREE"));
  CHECK(edited.at("ABLATE_CODE_VERSION") == clean.at("ABLATE_CODE_VERSION") + "-dirty");
  // The same edit, the same hash; another edit, another hash.
  CHECK(git_state_of(dir, repo).at("GIT_DIFF_SHA256") == edited.at("GIT_DIFF_SHA256"));
  dir.file("repo/a.txt", "one\nthree\n");
  const auto other_edit = git_state_of(dir, repo);
  CHECK(std::regex_match(other_edit.at("GIT_DIFF_SHA256"), sha256));
  CHECK(other_edit.at("GIT_DIFF_SHA256") != edited.at("GIT_DIFF_SHA256"));

  // Back to the commit, then a new file git does not ignore: dirty too. The user's
  // index is not touched: the file is still untracked afterwards.
  dir.file("repo/a.txt", "one\n");
  CHECK(git_state_of(dir, repo).at("GIT_DIRTY") == "false");
  dir.file("repo/new.txt", "new\n");
  const auto untracked = git_state_of(dir, repo);
  CHECK(untracked.at("GIT_DIRTY") == "true");
  CHECK(std::regex_match(untracked.at("GIT_DIFF_SHA256"), sha256));
  CHECK(run_command("git -C " + repo + " status --porcelain").output == "?? new.txt\n");
  // An ignored file is not a difference.
  std::filesystem::remove(repo + "/new.txt");
  dir.file("repo/.git/info/exclude", "build/\n");
  std::filesystem::create_directories(repo + "/build");
  dir.file("repo/build/object.o", "built\n");
  CHECK(git_state_of(dir, repo).at("GIT_DIRTY") == "false");

  // Not a repository (a tarball's tree): unknown, and the script still succeeds.
  const std::string plain = dir.path_of("plain");
  std::filesystem::create_directories(plain);
  const auto unknown = git_state_of(dir, plain);
  CHECK(unknown.at("GIT_COMMIT") == "unknown");
  CHECK(unknown.at("GIT_DIRTY") == "unknown");
  CHECK(unknown.at("ABLATE_CODE_VERSION") == "9.8.7+unknown");
}
