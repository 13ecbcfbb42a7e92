// Fuzz target: `ablate predict`'s input reader (read_input_lines), the shared text
// reader as every text loader uses it: regular file, size, UTF-8 without NULs, BOM,
// line splitting.
//
// Bad input must be a std::invalid_argument (exit 2) starting with the path, with a
// bounded, printable message. Accepted input must split exactly: its lines are valid
// UTF-8 without NUL, \n or a leading BOM, and joined with \n they give back the file
// (its BOM, a \r ending a line and a final \n aside).
#include <string>

#include "experiments/runner/predict.h"
#include "nn/utf8.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/text_message.h"

using namespace ablate;
using namespace ablate::experiments;
using ablate::fuzz::require;

namespace {

bool valid_text(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    if (b == 0 || b == '\n') return false;
    if (b < 0x80)
      ++i;
    else if (const std::size_t n = utf8_sequence_length(s, i))
      i += n;
    else
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::write_scratch_file("input.txt", data, size);
  std::vector<std::string> lines;
  try {
    lines = read_input_lines(path);
  } catch (const std::invalid_argument& error) {
    require(std::string(error.what()).rfind(path, 0) == 0, "the error starts with the path");
    fuzz::require_bounded_message(error.what());
    return 0;
  }
  std::string text(reinterpret_cast<const char*>(data), size);
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::string joined;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    require(valid_text(lines[i]), "lines are UTF-8 without NUL or newline");
    require(i > 0 || lines[i].rfind("\xEF\xBB\xBF", 0) != 0, "the first line has no BOM");
    joined += lines[i] + "\n";
  }
  std::string expected;  // the text cut at each \n, one \r dropped before each cut and at the end
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    expected += line + "\n";
    start = end + 1;
  }
  require(joined == expected, "the lines give back the text");
  return 0;
}
