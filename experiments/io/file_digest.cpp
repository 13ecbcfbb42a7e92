#include "experiments/io/file_digest.h"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "experiments/io/regular_file.h"
#include "experiments/io/text_file.h"

namespace ablate::experiments {

namespace {

// One SHA-256 computation (OpenSSL's EVP interface); `what` names the input in errors.
class Sha256 {
 public:
  explicit Sha256(const std::string& what) : what_(what), ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
      throw std::runtime_error(what_ + ": cannot start a SHA-256 digest (OpenSSL)");
  }
  void update(const char* data, std::size_t size) {
    if (size > 0 && EVP_DigestUpdate(ctx_.get(), data, size) != 1)
      throw std::runtime_error(what_ + ": SHA-256 digest failed (OpenSSL)");
  }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), digest, &length) != 1)
      throw std::runtime_error(what_ + ": SHA-256 digest failed (OpenSSL)");
    std::string out;
    char byte[3];
    for (unsigned int k = 0; k < length; ++k) {
      std::snprintf(byte, sizeof byte, "%02x", unsigned(digest[k]));
      out += byte;
    }
    return out;
  }

 private:
  std::string what_;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

}  // namespace

std::string sha256_of_file(const std::string& path, std::uint64_t max_bytes) {
  RegularFile in(path);  // never a device or FIFO: hashing /dev/zero would never end
  auto too_large = [&] {
    return std::runtime_error(path + ": more than " + size_in_words(max_bytes));
  };
  if (in.size() > max_bytes) throw too_large();
  Sha256 digest(path);
  std::vector<char> buffer(1 << 16);
  std::uint64_t read = 0;
  while (const std::size_t n = in.read(buffer.data(), buffer.size())) {
    if ((read += n) > max_bytes) throw too_large();  // it grew since it was opened
    digest.update(buffer.data(), n);
  }
  return digest.hex();
}

std::string sha256_of_bytes(const std::string& bytes) {
  Sha256 digest("in-memory bytes");
  digest.update(bytes.data(), bytes.size());
  return digest.hex();
}

const std::string& FileDigests::sha256(const std::string& path) {
  auto it = digests_.find(path);
  if (it == digests_.end())
    it = digests_.emplace(path, sha256_of_file(path, kCorpusMaxBytes)).first;
  return it->second;
}

}  // namespace ablate::experiments
