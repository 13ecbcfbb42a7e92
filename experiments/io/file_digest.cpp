#include "experiments/io/file_digest.h"

#include <openssl/evp.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

namespace ablate::experiments {

std::string sha256_of_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw std::runtime_error(path + ": is a directory, not a data file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error(path + ": cannot start a SHA-256 digest (OpenSSL)");
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), std::streamsize(buffer.size()));
    if (in.gcount() > 0 && EVP_DigestUpdate(ctx.get(), buffer.data(), std::size_t(in.gcount())) != 1)
      throw std::runtime_error(path + ": SHA-256 digest failed (OpenSSL)");
  }
  if (in.bad()) throw std::runtime_error(path + ": read error");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1)
    throw std::runtime_error(path + ": SHA-256 digest failed (OpenSSL)");
  std::string hex;
  char byte[3];
  for (unsigned int k = 0; k < length; ++k) {
    std::snprintf(byte, sizeof byte, "%02x", unsigned(digest[k]));
    hex += byte;
  }
  return hex;
}

const std::string& FileDigests::sha256(const std::string& path) {
  auto it = digests_.find(path);
  if (it == digests_.end()) it = digests_.emplace(path, sha256_of_file(path)).first;
  return it->second;
}

}  // namespace ablate::experiments
