#include "experiments/io/text_file.h"

#include <cstdio>
#include <stdexcept>

#include "experiments/io/regular_file.h"
#include "nn/excerpt.h"
#include "nn/utf8.h"

namespace ablate::experiments {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

std::string hex(unsigned char b) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", unsigned(b));
  return text;
}

// UTF-16 text starts with its byte order mark (FF FE or FE FF), or, without one, has a
// NUL as every other byte wherever it is ASCII: NULs in a quarter of the first 4 KiB's
// even (or odd) bytes, and hardly any in the others, is what no other text has.
bool looks_like_utf16(std::string_view bytes) {
  if (bytes.substr(0, 2) == "\xFF\xFE" || bytes.substr(0, 2) == "\xFE\xFF") return true;
  const std::size_t n = std::min<std::size_t>(bytes.size(), 4096);
  std::size_t nul[2] = {0, 0};
  for (std::size_t i = 0; i < n; ++i)
    if (bytes[i] == '\0') ++nul[i % 2];
  const std::size_t pairs = n / 2;
  for (int parity : {0, 1})
    if (nul[parity] >= 2 && nul[parity] * 4 >= pairs && nul[1 - parity] * 4 <= nul[parity])
      return true;
  return false;
}

// What is wrong with the byte at `at` (not NUL, not the start of a valid sequence).
std::string describe_invalid(std::string_view bytes, std::size_t at) {
  const unsigned char b = static_cast<unsigned char>(bytes[at]);
  if (b >= 0x80 && b <= 0xBF)
    return "byte " + hex(b) + " is a UTF-8 continuation byte with no sequence to continue";
  if (b < 0xC2 || b > 0xF4) return "byte " + hex(b) + " never occurs in UTF-8";
  const std::size_t expected = b <= 0xDF ? 2 : b <= 0xEF ? 3 : 4;
  std::size_t continuing = 1;
  while (continuing < expected && at + continuing < bytes.size() &&
         (static_cast<unsigned char>(bytes[at + continuing]) & 0xC0) == 0x80)
    ++continuing;
  if (continuing < expected)
    return "byte " + hex(b) + " starts a " + std::to_string(expected) +
           "-byte UTF-8 sequence, cut short after " + std::to_string(continuing) +
           (continuing == 1 ? " byte" : " bytes");
  return "the UTF-8 sequence starting with byte " + hex(b) +
         " is not valid (an overlong form, a surrogate or beyond U+10FFFF)";
}

// The conversion that likely fixes the file, from the byte that is not UTF-8.
std::string hint_for(std::string_view bytes, std::size_t at) {
  if (looks_like_utf16(bytes))
    return "; this looks like UTF-16: convert it with iconv -f UTF-16 -t UTF-8";
  const unsigned char b = static_cast<unsigned char>(bytes[at]);
  if (b >= 0xA0) {
    const std::string latin1{char(0xC0 | (b >> 6)), char(0x80 | (b & 0x3F))};
    return "; this looks like Latin-1 (ISO-8859-1), where " + hex(b) + " is '" + latin1 +
           "': convert it with iconv -f ISO-8859-1 -t UTF-8";
  }
  if (b >= 0x80)
    return "; if the file is Windows-1252 text: convert it with iconv -f WINDOWS-1252 -t UTF-8";
  return "";
}

}  // namespace

TextFile TextFile::from_bytes(std::string bytes, const std::string& name) {
  TextFile file;
  file.name_ = name;
  file.bytes_ = std::move(bytes);
  const std::string_view all(file.bytes_);
  std::size_t line_start = all.substr(0, 3) == kByteOrderMark ? 3 : 0;
  std::size_t file_line_start = 0;  // where the line starts in the file: byte columns count the BOM
  auto end_line = [&](std::size_t end) {
    std::size_t length = end - line_start;
    if (length > 0 && all[end - 1] == '\r') --length;
    file.lines_.emplace_back(line_start, length);
  };
  auto fail = [&](std::size_t at, const std::string& what) {
    const std::string_view line = all.substr(
        file_line_start, std::min(all.find('\n', file_line_start), all.size()) - file_line_start);
    std::string message = name + ":" + std::to_string(file.lines_.size() + 1) + ":" +
                          std::to_string(at - file_line_start + 1) + ": " + what;
    // The line's start, escaped (\xNN), when the byte is within it: bounded whatever the line's
    // length.
    if (at - file_line_start < 48) message += " in \"" + excerpt(line, 60) + "\"";
    throw std::runtime_error(message);
  };
  for (std::size_t i = line_start; i < all.size();) {
    const unsigned char b = static_cast<unsigned char>(all[i]);
    if (b == '\n') {
      end_line(i);
      line_start = file_line_start = ++i;
    } else if (b == 0) {
      fail(i,
           "a NUL byte; text data must be UTF-8 without NUL bytes" +
               (looks_like_utf16(all) ? hint_for(all, i) : std::string(" (is it a binary file?)")));
    } else if (b < 0x80) {
      ++i;
    } else if (const std::size_t n = utf8_sequence_length(all, i)) {
      i += n;
    } else {
      fail(i, "not UTF-8: " + describe_invalid(all, i) + "; text data must be UTF-8" +
                  hint_for(all, i));
    }
  }
  if (line_start < all.size()) end_line(all.size());
  return file;
}

TextFile TextFile::read(const std::string& path, std::uint64_t max_bytes,
                        const std::string& format) {
  RegularFile in(path);
  auto too_large = [&](std::uint64_t size, bool at_least) {
    return std::runtime_error(path + ": " + (at_least ? "at least " : "") + size_in_words(size) +
                              "; " + format + " may have at most " + size_in_words(max_bytes));
  };
  if (in.size() > max_bytes) throw too_large(in.size(), false);
  std::string bytes(std::size_t(in.size()), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const std::size_t n = in.read(bytes.data() + got, bytes.size() - got);
    if (n == 0) break;
    got += n;
  }
  bytes.resize(got);
  // A file that grew since it was opened (or reports no size, as /proc's do) is read
  // to its end, still bounded.
  char more[1 << 16];
  while (const std::size_t n = in.read(more, sizeof more)) {
    bytes.append(more, n);
    if (bytes.size() > max_bytes) throw too_large(bytes.size(), true);
  }
  return from_bytes(std::move(bytes), path);
}

TextFile TextFile::read(std::istream& in, const std::string& name, std::uint64_t max_bytes,
                        const std::string& format) {
  std::string bytes;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    bytes.append(buffer, std::size_t(in.gcount()));
    if (bytes.size() > max_bytes)
      throw std::runtime_error(name + ": more than the " + size_in_words(max_bytes) + " " + format +
                               " may have");
  }
  if (in.bad()) throw std::runtime_error(name + ": read error");
  return from_bytes(std::move(bytes), name);
}

}  // namespace ablate::experiments
