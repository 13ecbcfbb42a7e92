#pragma once
// Bump allocator for activations. reset() rewinds instead of freeing; when a step
// needed more than one block, reset() replaces them by a single block of their total
// size (the old blocks' pages handed back to the system first, so they do not stay in
// the RSS), so from the second step on a step of the same shape allocates nothing and
// touches only pages it already faulted in.
#include <cstddef>
#include <memory>
#include <vector>

namespace ablate {

class Arena {
 public:
  explicit Arena(std::size_t first_block_bytes = std::size_t(1) << 20);
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // `bytes` of uninitialised memory aligned to `alignment` (a power of two ≤ 64).
  void* allocate(std::size_t bytes, std::size_t alignment = 64);
  void reset();

  std::size_t bytes_in_use() const;  // since the last reset
  std::size_t capacity() const;      // all blocks
  std::size_t blocks() const { return blocks_.size(); }

 private:
  struct Unmap {
    std::size_t bytes = 0;
    void operator()(std::byte* p) const;
  };
  struct Block {
    std::unique_ptr<std::byte, Unmap> memory;
    std::size_t size = 0;
    std::size_t used = 0;
  };
  void add_block(std::size_t at_least);

  std::vector<Block> blocks_;
  std::size_t current_ = 0;
  std::size_t first_block_bytes_;
};

}  // namespace ablate
