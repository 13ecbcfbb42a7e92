#pragma once
// A data file opened for reading only when it is a regular file. A path naming a
// character device (/dev/zero, /dev/urandom), a FIFO or a socket would otherwise be
// read — and hashed — forever, or block in open() until a writer appears: a config
// or checkpoint from someone else must not be able to hang ablate that way.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ablate::experiments {

class RegularFile {
 public:
  // Throws std::runtime_error starting with `path`: missing ("cannot open the file"),
  // a directory, anything but a regular file (named: "a character device", "a FIFO").
  explicit RegularFile(const std::string& path);
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  // The size when opened (st_size).
  std::uint64_t size() const { return size_; }
  // Up to `n` bytes into `buffer`; 0 at the end. Throws std::runtime_error on a read error.
  std::size_t read(char* buffer, std::size_t n);

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// "1.5 GiB (1610612736 bytes)", "300.0 MiB (314572800 bytes)", "12 bytes": a size for a message.
std::string size_in_words(std::uint64_t bytes);

}  // namespace ablate::experiments
