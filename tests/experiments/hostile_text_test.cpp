// Hostile text data through the CLI: every text file a user hands ablate —
// a text_pairs TSV, an lm corpus, a g2p dictionary, a forecast CSV, predict's input —
// is checked when it is read (experiments/io/text_file.h): UTF-8 without NUL bytes,
// a regular file within its size limit, a BOM dropped alike everywhere, CSV numbers by
// their grammar only. A refusal is exit 2 naming file:line:byte (or the file), before
// any run directory exists; a message echoes input only cut short.
//
// Every command runs under `timeout 20`: a device or FIFO read forever (the old
// behaviour) ends as status 124 and fails the test instead of hanging it.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>

#include "tests/build_paths.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = std::string("timeout 20 ") + ABLATE_CLI;

const std::string kModel =
    "[model]\nd_model = 8\nheads = 2\nd_ff = 16\nlayers = 1\n\n[train]\nsteps = 5\nbatch = 4\n";

// An experiment on a text_pairs file (`path` as written into the TOML).
std::string text_pairs_experiment(const std::string& path, const std::string& task_extra = "") {
  return "name = \"hostile\"\n[task]\nkind = \"text_pairs\"\npath = \"" + path + "\"\n" +
         task_extra + "\n" + kModel;
}

std::string forecast_experiment(const std::string& csv, const std::string& task_extra = "") {
  return "name = \"hostile\"\n[task]\nkind = \"forecast\"\ncsv = \"" + csv +
         "\"\nlookback = 2\nhorizon = 1\n" + task_extra + "\n" + kModel;
}

std::string g2p_experiment(const std::string& file) {
  return "name = \"hostile\"\n[task]\nkind = \"g2p\"\ntrain = \"" + file + "\"\nvalidation = \"" +
         file + "\"\ntest = \"" + file + "\"\n\n" + kModel;
}

std::string lm_experiment(const std::string& file) {
  return "name = \"hostile\"\n[task]\nkind = \"lm\"\ntrain = \"" + file + "\"\nvalidation = \"" +
         file + "\"\ntest = \"" + file + "\"\ncontext = 1\n\n" + kModel;
}

const std::string kGoodPairs = "abc\tcba\nhello\tolleh\nxy\tyx\nqrs\tsrq\n";

// `ablate check` and `ablate run` of `toml` (written into `dir`): both must refuse it
// with exit 2, every fragment in the message, and no run directory.
void both_refuse(const ScratchDir& dir, const std::string& toml,
                 const std::vector<std::string>& fragments) {
  const std::string file = dir.file("exp.toml", toml);
  const std::string runs = dir.str() + "/runs";
  for (const std::string& command :
       std::vector<std::string>{"check " + file, "run " + file + " --out " + runs + " --quiet"}) {
    CommandResult r = run_command(kCli + " " + command);
    INFO(command << "\n" << r.output);
    CHECK(r.status == 2);
    for (const std::string& f : fragments) CHECK_THAT(r.output, Catch::Contains(f));
    CHECK_FALSE(fs::exists(runs));
  }
}

// Trains a tiny text_pairs trial with a checkpoint on `pairs`; returns its checkpoint.
std::string trained_text_pairs_checkpoint(const ScratchDir& dir) {
  dir.file("pairs.tsv", kGoodPairs + "ab\tba\ncd\tdc\nef\tfe\ngh\thg\n");
  const std::string file =
      dir.file("train.toml", text_pairs_experiment("pairs.tsv") + "checkpoint = true\n");
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + "/trained --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const auto& run : fs::directory_iterator(dir.str() + "/trained"))
    for (const auto& trial : fs::directory_iterator(run.path() / "trials"))
      return (trial.path() / "checkpoint.safetensors").string();
  FAIL("no trial directory");
  return "";
}

}  // namespace

TEST_CASE(
    "Latin-1 and truncated UTF-8 in a TSV are refused at load with file:line:byte and the iconv "
    "hint",
    "[hostile_text][e2e]") {
  ScratchDir dir("hostile_latin1");
  SECTION("Latin-1: caf\\xE9 on line 3") {
    dir.file("pairs.tsv", "abc\tcba\nhello\tolleh\ncaf\xE9\t\xE9\x66\x61\x63\nxy\tyx\n");
    both_refuse(dir, text_pairs_experiment("pairs.tsv"),
                {"pairs.tsv:3:4: not UTF-8: byte 0xE9", "Latin-1 (ISO-8859-1)",
                 "iconv -f ISO-8859-1 -t UTF-8"});
  }
  SECTION("a 3-byte sequence cut short after 2 bytes, on line 2") {
    dir.file("pairs.tsv", "abc\tcba\nx\xE2\x82y\tyx\nhello\tolleh\nqrs\tsrq\n");
    both_refuse(dir, text_pairs_experiment("pairs.tsv"),
                {"pairs.tsv:2:2: not UTF-8: byte 0xE2 starts a 3-byte UTF-8 sequence, cut short "
                 "after 2 bytes",
                 "iconv -f ISO-8859-1 -t UTF-8"});
  }
}

TEST_CASE("a UTF-16 file is refused with the UTF-16 hint", "[hostile_text][e2e]") {
  ScratchDir dir("hostile_utf16");
  std::string utf16le = "\xFF\xFE";  // BOM, then the good pairs in UTF-16LE
  for (char c : kGoodPairs) utf16le += std::string{c, '\0'};
  SECTION("with its byte order mark") {
    dir.file("pairs.tsv", utf16le);
    both_refuse(dir, text_pairs_experiment("pairs.tsv"),
                {"pairs.tsv:1:1: not UTF-8: byte 0xFF",
                 "this looks like UTF-16: convert it with iconv -f UTF-16 -t UTF-8"});
  }
  SECTION("without one (its NULs give it away)") {
    dir.file("pairs.tsv", utf16le.substr(2));
    both_refuse(dir, text_pairs_experiment("pairs.tsv"),
                {"pairs.tsv:1:2: a NUL byte",
                 "this looks like UTF-16: convert it with iconv -f UTF-16 -t UTF-8"});
  }
}

TEST_CASE("a NUL byte in text is refused, and the message goes on past it", "[hostile_text][e2e]") {
  ScratchDir dir("hostile_nul");
  dir.file("pairs.tsv", kGoodPairs + std::string("ab\0cd\tdcba\n", 11));
  // The line is shown escaped: the \x00 does not end the message, the rest follows.
  both_refuse(dir, text_pairs_experiment("pairs.tsv"),
              {"pairs.tsv:5:3: a NUL byte; text data must be UTF-8 without NUL bytes (is it a "
               "binary file?) in "
               "\"ab\\x00cd\\x09dcba\""});
}

TEST_CASE("a leading BOM is dropped alike in TSV, CSV, lm, g2p and predict input",
          "[hostile_text][e2e]") {
  ScratchDir dir("hostile_bom");
  const std::string bom = "\xEF\xBB\xBF";
  auto check = [&](const std::string& toml) {
    return run_command(kCli + " check " + dir.file("exp.toml", toml));
  };
  SECTION("TSV: the first source is 3 characters, not 4 (max_length = 3)") {
    dir.file("pairs.tsv", bom + kGoodPairs.substr(0, 8) + "hel\tleh\nxy\tyx\nqrs\tsrq\n");
    CommandResult r = check(text_pairs_experiment("pairs.tsv", "max_length = 3"));
    INFO(r.output);
    CHECK(r.status == 0);
  }
  SECTION("TSV: a BOM alone is an empty source, not a source of one character") {
    dir.file("pairs.tsv", bom + "\tx\n" + kGoodPairs);
    both_refuse(dir, text_pairs_experiment("pairs.tsv"), {"pairs.tsv:1: empty source"});
  }
  SECTION("CSV: the first column is named time, not BOM + time") {
    dir.file("series.csv",
             bom + "time,value\n1,1\n2,3\n3,2\n4,5\n5,4\n6,6\n7,5\n8,8\n9,7\n10,9\n11,8\n12,10\n");
    CommandResult r =
        check(forecast_experiment("series.csv", "time_column = \"time\"\ntargets = \"value\""));
    INFO(r.output);
    CHECK(r.status == 0);
  }
  SECTION("g2p: a BOM alone is an empty word") {
    dir.file("dict.tsv", bom + "\tA B\nab\tA B\ncd\tC D\n");
    both_refuse(dir, g2p_experiment("dict.tsv"), {"dict.tsv:1: empty word"});
  }
  SECTION("lm: a BOM alone is a blank line, skipped, so the file has no documents") {
    dir.file("text.txt", bom + "\n");
    both_refuse(dir, lm_experiment("text.txt"), {"text.txt: no documents"});
  }
  SECTION("predict: the first input with a BOM is the same source as without") {
    const std::string checkpoint = trained_text_pairs_checkpoint(dir);
    CommandResult with =
        run_command(kCli + " predict " + checkpoint + " " + dir.file("in1.txt", bom + "abc\nxy\n"));
    CommandResult without =
        run_command(kCli + " predict " + checkpoint + " " + dir.file("in2.txt", "abc\nxy\n"));
    INFO(with.output);
    REQUIRE(with.status == 0);
    CHECK(with.output == without.output);
    CHECK_THAT(with.output, Catch::StartsWith("id\tsource\tprediction\n0\tabc\t"));
  }
}

TEST_CASE("+-5 in a CSV is not -5: refused naming line and column", "[hostile_text][e2e]") {
  ScratchDir dir("hostile_plus_minus");
  dir.file("series.csv", "a,b\n1,2\n3,+-5\n4,5\n5,6\n6,7\n7,8\n8,9\n9,1\n10,2\n");
  both_refuse(dir, forecast_experiment("series.csv"),
              {"series.csv:3:2: column 'b': '+-5' is not a number"});
}

TEST_CASE("a device or a FIFO as a data file is refused at once, not read forever",
          "[hostile_text][e2e]") {
  ScratchDir dir("hostile_device");
  SECTION("task.path = /dev/zero") {
    both_refuse(dir, text_pairs_experiment("/dev/zero"),
                {"/dev/zero: is a character device, not a regular file"});
  }
  SECTION("task.csv is a FIFO with no writer") {
    REQUIRE(::mkfifo((dir.str() + "/fifo.csv").c_str(), 0600) == 0);
    both_refuse(dir, forecast_experiment("fifo.csv"),
                {"fifo.csv: is a FIFO (named pipe), not a regular file"});
  }
  SECTION("predict: a checkpoint whose data file is now /dev/zero, and /dev/zero as the input") {
    const std::string checkpoint = trained_text_pairs_checkpoint(dir);
    fs::create_directories(dir.str() + "/elsewhere");
    fs::create_symlink("/dev/zero", dir.str() + "/elsewhere/pairs.tsv");
    const std::string input = dir.file("in.txt", "abc\n");
    CommandResult data = run_command(kCli + " predict " + checkpoint + " " + input +
                                     " --data-dir " + dir.str() + "/elsewhere");
    INFO(data.output);
    CHECK(data.status == 2);
    CHECK_THAT(data.output,
               Catch::Contains("pairs.tsv: is a character device, not a regular file"));
    CommandResult in = run_command(kCli + " predict " + checkpoint + " /dev/zero");
    INFO(in.output);
    CHECK(in.status == 2);
    CHECK_THAT(in.output, Catch::Contains("/dev/zero: is a character device, not a regular file"));
  }
}

TEST_CASE("a data file beyond its format's size limit is refused before it is read",
          "[hostile_text][e2e]") {
  ScratchDir dir("hostile_size");
  // Sparse files: hundreds of MiB on paper, no disk.
  SECTION("a TSV of 257 MiB (its limit: 256 MiB)") {
    const std::string path = dir.file("pairs.tsv", kGoodPairs);
    fs::resize_file(path, std::uintmax_t(257) << 20);
    both_refuse(
        dir, text_pairs_experiment("pairs.tsv"),
        {"pairs.tsv: 257.0 MiB (269484032 bytes); a text_pairs TSV file may have at most 256.0 MiB "
         "(268435456 bytes)"});
  }
  SECTION("an lm text of 1 GiB and a byte (its limit: 1 GiB)") {
    const std::string path = dir.file("text.txt", "a document\n");
    fs::resize_file(path, (std::uintmax_t(1) << 30) + 1);
    both_refuse(dir, lm_experiment("text.txt"),
                {"text.txt: 1.0 GiB (1073741825 bytes); an lm text file may have at most 1.0 GiB "
                 "(1073741824 bytes)"});
  }
}

TEST_CASE("an oversized line or name echoed in a message is cut", "[hostile_text][e2e]") {
  ScratchDir dir("hostile_long");
  SECTION("a 1 MiB column name in a CSV") {
    const std::string long_name(1 << 20, 'n');
    dir.file("series.csv", "a," + long_name + "\n1,2\n3,4\n5,6\n7,8\n9,1\n");
    const std::string file =
        dir.file("exp.toml", forecast_experiment("series.csv", "targets = \"nope\""));
    CommandResult r = run_command(kCli + " check " + file);
    INFO(r.output.substr(0, 2000));
    CHECK(r.status == 2);
    CHECK_THAT(r.output,
               Catch::Contains("'nope', which is not a column; the columns are: a, nnnn"));
    CHECK_THAT(r.output, Catch::Contains("(1048576 bytes in all)"));
    CHECK(r.output.size() < 2000);
  }
  SECTION("a 1 MiB TSV line with a Latin-1 byte near its start") {
    dir.file("pairs.tsv", kGoodPairs + "\xE9" + std::string(1 << 20, 'x') + "\tx\n");
    const std::string file = dir.file("exp.toml", text_pairs_experiment("pairs.tsv"));
    CommandResult r = run_command(kCli + " check " + file);
    INFO(r.output.substr(0, 2000));
    CHECK(r.status == 2);
    CHECK_THAT(r.output,
               Catch::Contains("pairs.tsv:5:1: not UTF-8") && Catch::Contains("\"\\xE9xxx"));
    CHECK_THAT(r.output, Catch::Contains("(1048579 bytes in all)"));
    CHECK(r.output.size() < 2000);
  }
}
