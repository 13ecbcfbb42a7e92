#pragma once
// What every fuzz target shares. The loaders under test read files (that is how
// researchers feed them), so each input is written to a file in a private scratch
// directory, created once per process and removed at exit.
//
// A target accepts exactly the exceptions its loader documents for bad input (the
// ones the CLI turns into exit status 2 or a clear per-trial error); anything else —
// std::bad_alloc, std::length_error, an assertion, a sanitizer report — escapes and
// libFuzzer reports it as a crash with the input that caused it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "autograd/tensor.h"

namespace ablate::fuzz {

// ABLATE_FUZZ_SCRATCH names it when set: the seeded runs of the test command use a
// fixed relative path, so the loaders' messages (which name the file) are the same
// bytes on every machine and libFuzzer's comparison-guided mutations with them.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path path;
    if (const char* fixed = std::getenv("ABLATE_FUZZ_SCRATCH"); fixed && *fixed) {
      path = fixed;
      std::filesystem::remove_all(path);
      std::filesystem::create_directories(path);
    } else {
      std::string pattern =
          (std::filesystem::temp_directory_path() / "ablate-fuzz-XXXXXX").string();
      if (!mkdtemp(pattern.data())) std::abort();
      path = pattern;
    }
    std::atexit([] { std::filesystem::remove_all(scratch_dir()); });
    return path;
  }();
  return dir;
}

// Writes `size` bytes to scratch_dir()/name (replacing it) and returns its path.
inline std::string write_scratch_file(const std::string& name, const std::uint8_t* data,
                                      std::size_t size) {
  std::string path = (scratch_dir() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  if (!out.flush()) std::abort();  // the harness itself failed, not the code under test
  return path;
}

inline std::string write_scratch_file(const std::string& name, const std::string& text) {
  return write_scratch_file(name, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

// A property of accepted input that must hold; a failure says which and aborts, which
// libFuzzer reports as a crash (saving the input), as it would an uncaught exception.
inline void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", property);
  std::abort();
}

// Every id of an int32 tensor lies in [0, vocab): what a loader's accepted batches
// must satisfy before a model indexes an embedding table with them.
inline void require_ids_within(const ablate::Tensor& ids, std::int64_t vocab,
                               const char* property) {
  const std::int32_t* p = ids.data<std::int32_t>();
  for (std::int64_t i = 0; i < ids.numel(); ++i) require(p[i] >= 0 && p[i] < vocab, property);
}

// Runs `load`. Returns true when it rejected the input the documented way — a
// std::runtime_error whose message starts with `path` — and false when it accepted it;
// any other exception escapes (a finding).
template <class Load>
bool rejected_naming(const std::string& path, Load&& load) {
  try {
    load();
    return false;
  } catch (const std::runtime_error& error) {
    require(std::string(error.what()).rfind(path, 0) == 0, "the error starts with the path");
    return true;
  }
}

}  // namespace ablate::fuzz
