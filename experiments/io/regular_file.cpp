#include "experiments/io/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace ablate::experiments {

namespace {

// What a file that is not a regular file is, for the message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::string& path, mode_t mode) {
  if (S_ISDIR(mode)) throw std::runtime_error(path + ": is a directory, not a data file");
  throw std::runtime_error(
      path + ": is " + std::string(kind_of(mode)) +
      ", not a regular file (data files must be regular files: devices, FIFOs and "
      "sockets are refused, since reading one may never end)");
}

}  // namespace

RegularFile::RegularFile(const std::string& path) : path_(path) {
  // stat first, so a device is refused without being opened (opening some has effects);
  // then open without blocking (a FIFO swapped in meanwhile would wait for a writer)
  // and check what was opened.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error(path + ": cannot open the file (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) refuse(path, st.st_mode);
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0)
    throw std::runtime_error(path + ": cannot open the file (" + std::strerror(errno) + ")");
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t mode = st.st_mode;
    ::close(fd_);
    refuse(path, mode);
  }
  size_ = std::uint64_t(st.st_size);
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t RegularFile::read(char* buffer, std::size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, buffer, n);
    if (got >= 0) return std::size_t(got);
    if (errno != EINTR)
      throw std::runtime_error(path_ + ": read error (" + std::strerror(errno) + ")");
  }
}

std::string size_in_words(std::uint64_t bytes) {
  char text[64];
  if (bytes >= (std::uint64_t(1) << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1 << 30));
  else if (bytes >= (std::uint64_t(1) << 20))
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
  else
    return std::to_string(bytes) + " bytes";
  return text + (" (" + std::to_string(bytes) + " bytes)");
}

}  // namespace ablate::experiments
