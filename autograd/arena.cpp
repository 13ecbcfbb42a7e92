#include "autograd/arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace ablate {

namespace {
constexpr std::size_t kBlockAlignment = 64;
std::size_t round_up(std::size_t n, std::size_t a) {
  return (n + a - 1) / a * a;
}

// Hands the whole pages of a block about to be freed back to the system. glibc keeps
// freed heap memory resident (kernels/gemm.cpp switches trimming off so that freed
// buffers are reused without page faults), so the blocks the first steps outgrew would
// otherwise stay in the RSS next to the merged block that replaces them. Measured on
// the base reference model's training step: peak RSS 298 -> 278 MiB, and with
// recompute (a second tape that grows twice) 241 -> 191 MiB.
void release_pages(std::byte* p, std::size_t size) {
  static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = round_up(std::uintptr_t(p), page), end = (std::uintptr_t(p) + size) / page * page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}
}  // namespace

void Arena::Free::operator()(std::byte* p) const {
  std::free(p);
}

Arena::Arena(std::size_t first_block_bytes) : first_block_bytes_(first_block_bytes) {
  blocks_.reserve(64);
}

void Arena::add_block(std::size_t at_least) {
  std::size_t size = blocks_.empty() ? first_block_bytes_ : 2 * blocks_.back().size;
  while (size < at_least) size *= 2;
  size = round_up(size, kBlockAlignment);
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kBlockAlignment, size));
  if (!p) throw std::bad_alloc();
  blocks_.push_back(Block{std::unique_ptr<std::byte, Free>(p), size, 0});
  current_ = blocks_.size() - 1;
}

void* Arena::allocate(std::size_t bytes, std::size_t alignment) {
  if (blocks_.empty()) add_block(bytes);
  Block* b = &blocks_[current_];
  std::size_t offset = round_up(b->used, alignment);
  if (offset + bytes > b->size) {
    add_block(bytes);
    b = &blocks_[current_];
    offset = 0;
  }
  b->used = offset + bytes;
  return b->memory.get() + offset;
}

void Arena::reset() {
  if (blocks_.size() > 1) {
    std::size_t total = 0;
    for (const Block& b : blocks_) {
      total += b.size;
      release_pages(b.memory.get(), b.size);
    }
    blocks_.clear();
    first_block_bytes_ = total;
    add_block(total);
  }
  for (Block& b : blocks_) b.used = 0;
  current_ = 0;
}

std::size_t Arena::bytes_in_use() const {
  std::size_t n = 0;
  for (const Block& b : blocks_) n += b.used;
  return n;
}

std::size_t Arena::capacity() const {
  std::size_t n = 0;
  for (const Block& b : blocks_) n += b.size;
  return n;
}

}  // namespace ablate
