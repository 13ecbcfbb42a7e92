// The shared reader of text data files (experiments/io/text_file.h) and its regular-file
// check (regular_file.h): lines as every loader gets them, and each kind of bad input
// refused at the right line and byte, with the hint that fixes it and a bounded message.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "experiments/io/file_digest.h"
#include "experiments/io/regular_file.h"
#include "experiments/io/text_file.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

std::vector<std::string> lines(const TextFile& f) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < f.line_count(); ++i) out.emplace_back(f.line(i));
  return out;
}

std::string error_of(const std::string& bytes) {
  try {
    TextFile::from_bytes(bytes, "in.txt");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("text file: lines without terminators, CRLF, a last line without newline, a BOM dropped",
          "[text_file]") {
  using V = std::vector<std::string>;
  CHECK(lines(TextFile::from_bytes("", "x")).empty());
  CHECK(lines(TextFile::from_bytes("\n", "x")) == V{""});
  CHECK(lines(TextFile::from_bytes("a\r\nb\n\nc", "x")) == V{"a", "b", "", "c"});
  CHECK(lines(TextFile::from_bytes("\xEF\xBB\xBF"
                                   "caf\xC3\xA9\t\xE2\x82\xAC\n",
                                   "x")) == V{"caf\xC3\xA9\t\xE2\x82\xAC"});
  CHECK(lines(TextFile::from_bytes("\xEF\xBB\xBF", "x")).empty());
  // Only a leading BOM is dropped: elsewhere U+FEFF is a character like any other.
  CHECK(lines(TextFile::from_bytes("a\n\xEF\xBB\xBF"
                                   "b",
                                   "x")) == V{"a",
                                              "\xEF\xBB\xBF"
                                              "b"});
  CHECK(lines(TextFile::from_bytes("\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF", "x")) ==
        V{"\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF"});
  CHECK(TextFile::from_bytes("a\nb\n", "x").where(1) == "x:2");
}

TEST_CASE("text file: every kind of invalid UTF-8 and NUL is refused at line:byte", "[text_file]") {
  // Byte columns count the file's bytes, the BOM included.
  CHECK(error_of("ok\n\xEF\xBB\xBF") == "(accepted)");
  CHECK_THAT(error_of("\xEF\xBB\xBF"
                      "ab\xFF"),
             Catch::StartsWith("in.txt:1:6: not UTF-8: byte 0xFF never occurs"));
  CHECK_THAT(error_of("a\nbc\x80"),
             Catch::StartsWith("in.txt:2:3: not UTF-8: byte 0x80 is a UTF-8 continuation byte"));
  CHECK_THAT(error_of("\xC0\x80"),
             Catch::StartsWith("in.txt:1:1: not UTF-8: byte 0xC0 never occurs"));  // overlong NUL
  CHECK_THAT(
      error_of("x\xE0\x80\x80"),
      Catch::Contains("1:2: not UTF-8: the UTF-8 sequence starting with byte 0xE0 is not valid"));
  CHECK_THAT(error_of("\xED\xA0\x80"),
             Catch::Contains("not valid (an overlong form, a surrogate"));  // surrogate
  CHECK_THAT(error_of("\xF4\x90\x80\x80"), Catch::Contains("not valid"));   // beyond U+10FFFF
  CHECK_THAT(error_of("\xF0\x9F\x98"),
             Catch::Contains("byte 0xF0 starts a 4-byte UTF-8 sequence, cut short after 3 bytes"));
  CHECK_THAT(
      error_of("ab\xC3\nxy"),
      Catch::Contains(
          "1:3: not UTF-8: byte 0xC3 starts a 2-byte UTF-8 sequence, cut short after 1 byte"));
  CHECK_THAT(error_of(std::string("ab\ncd\0e", 7)),
             Catch::StartsWith("in.txt:2:3: a NUL byte") && Catch::Contains("\"cd\\x00e\""));
}

TEST_CASE("text file: hints name the encoding it looks like and the iconv command", "[text_file]") {
  CHECK_THAT(error_of("na\xEFve"),
             Catch::Contains("Latin-1 (ISO-8859-1), where 0xEF is '\xC3\xAF'") &&
                 Catch::EndsWith("convert it with iconv -f ISO-8859-1 -t UTF-8 in \"na\\xEFve\""));
  CHECK_THAT(error_of("\x93quoted\x94"), Catch::Contains("iconv -f WINDOWS-1252 -t UTF-8"));
  const std::string utf16 = "UTF-16: convert it with iconv -f UTF-16 -t UTF-8";
  CHECK_THAT(error_of("\xFE\xFF\0a\0b"),
             Catch::StartsWith("in.txt:1:1: not UTF-8: byte 0xFE") && Catch::Contains(utf16));
  CHECK_THAT(error_of(std::string("\0a\0b\0c\0\n", 8)),
             Catch::StartsWith("in.txt:1:1: a NUL byte") && Catch::Contains(utf16));
  CHECK_THAT(error_of(std::string("abcdefgh\0", 9)), !Catch::Contains("UTF-16"));
}

TEST_CASE("text file: a message about a long line stays short", "[text_file]") {
  const std::string early = error_of("\xE9" + std::string(1 << 20, 'a'));
  CHECK(early.size() < 400);
  CHECK_THAT(early, Catch::Contains("(1048577 bytes in all)"));
  const std::string late = error_of(std::string(1 << 20, 'a') + "\xE9");
  CHECK_THAT(late, Catch::StartsWith("in.txt:1:1048577: not UTF-8"));
  CHECK(late.size() < 400);
}

TEST_CASE("text file: only regular files within the limit are read", "[text_file]") {
  ScratchDir dir("text_file");
  const std::string path = dir.file("a.txt", "one\ntwo\n");
  CHECK(TextFile::read(path, 8, "a test file").line_count() == 2);
  CHECK_THROWS_WITH(TextFile::read(path, 7, "a test file"),
                    Catch::Contains("a.txt: 8 bytes; a test file may have at most 7 bytes"));
  CHECK_THROWS_WITH(TextFile::read(dir.str() + "/missing", 8, "a test file"),
                    Catch::Contains("missing: cannot open the file"));
  // Hashing a data file into a trial's identity is bounded the same way.
  CHECK_THROWS_WITH(sha256_of_file(path, 7), Catch::Contains("a.txt: more than 7 bytes"));
  CHECK_THROWS_WITH(sha256_of_file("/dev/zero"),
                    Catch::Contains("/dev/zero: is a character device"));
  CHECK_THROWS_WITH(TextFile::read(dir.str(), 8, "a test file"),
                    Catch::Contains("is a directory, not a data file"));
  CHECK_THROWS_WITH(TextFile::read("/dev/null", 8, "a test file"),
                    Catch::Contains("/dev/null: is a character device"));
  REQUIRE(::mkfifo((dir.str() + "/fifo").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(TextFile::read(dir.str() + "/fifo", 8, "a test file"),
                    Catch::Contains("fifo: is a FIFO (named pipe)"));
  // Standard input has no size to check first: it is read up to the limit, not beyond.
  std::istringstream small("ab\ncd\n"), large(std::string(100, 'x'));
  CHECK(TextFile::read(small, "<stdin>", 6, "a predict input").line_count() == 2);
  CHECK_THROWS_WITH(TextFile::read(large, "<stdin>", 64, "a predict input"),
                    Catch::StartsWith("<stdin>: more than the 64 bytes a predict input may have"));
}
