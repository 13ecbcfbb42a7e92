#pragma once
// The one reader of text data files: the text_pairs TSV, the lm corpus, the g2p
// dictionary, the forecast CSV and predict's input (a file or standard input) are all
// read through it, so every one of them is checked the same way when it is read —
// not when a trial is half-way through training:
//   - a regular file (no device, FIFO or socket: regular_file.h) within a size limit
//     per format (below), checked before its bytes are read;
//   - UTF-8 (strict: no overlong forms, surrogates or code points beyond U+10FFFF)
//     without NUL bytes; anything else is an error at path:line:byte (byte = the
//     column in bytes, 1-based, as the file has them), saying what is there and, when
//     the bytes look like UTF-16 or Latin-1, the iconv command that converts them;
//   - a leading UTF-8 byte order mark (EF BB BF) is dropped, in every format alike:
//     it never becomes part of a first token, word or column name.
// Lines end at \n; a \r before it is dropped (CRLF files); a last line without \n
// counts; an empty file has no lines.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ablate::experiments {

// Size limits, per format. Past them the readers would need many times the file's size
// in memory (a TSV or CSV becomes one string per token or cell); the real datasets are
// far below (the State of the Union corpus 10 MB, cmudict 4 MB). The largest of them
// also bounds what a data file's SHA-256 is computed over (file_digest.h).
inline constexpr std::uint64_t kCorpusMaxBytes = std::uint64_t(1) << 30;  // lm: each file, 1 GiB
inline constexpr std::uint64_t kTableMaxBytes = std::uint64_t(256)
                                                << 20;  // TSV, g2p dictionary, CSV: 256 MiB
inline constexpr std::uint64_t kPredictInputMaxBytes = std::uint64_t(64)
                                                       << 20;  // predict's input: 64 MiB

class TextFile {
 public:
  // Reads the file at `path`. `format` names it in the size message, with its article
  // ("a text_pairs TSV file"). Throws std::runtime_error starting with `path`.
  static TextFile read(const std::string& path, std::uint64_t max_bytes, const std::string& format);
  // Reads `in` to its end (standard input), at most max_bytes; `name` names it in errors.
  static TextFile read(std::istream& in, const std::string& name, std::uint64_t max_bytes,
                       const std::string& format);
  // Checks and splits bytes already read; `name` names them in errors.
  static TextFile from_bytes(std::string bytes, const std::string& name);

  const std::string& name() const { return name_; }
  std::size_t line_count() const { return lines_.size(); }
  // Line `index + 1`, without its terminator (and the byte order mark on line 1).
  std::string_view line(std::size_t index) const {
    return std::string_view(bytes_).substr(lines_[index].first, lines_[index].second);
  }
  // "name:N" for line index + 1, as errors start.
  std::string where(std::size_t index) const { return name_ + ":" + std::to_string(index + 1); }

 private:
  std::string name_, bytes_;
  std::vector<std::pair<std::size_t, std::size_t>> lines_;  // offset and length in bytes_
};

}  // namespace ablate::experiments
