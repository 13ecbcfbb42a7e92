#include "autograd/arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace ablate {

namespace {
std::size_t round_up(std::size_t n, std::size_t a) {
  return (n + a - 1) / a * a;
}

std::size_t page_size() {
  static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  return page;
}
}  // namespace

// Blocks are mapped and unmapped directly rather than malloc'd: freeing one then
// returns its pages to the system whatever malloc's policy is. With malloc, blocks
// below the mmap threshold came from the heap, where glibc keeps freed memory resident
// (kernels/gemm.cpp switches trimming off so that per-call buffers are reused without
// page faults), so the blocks the first steps outgrew stayed in the RSS next to the
// merged block that replaced them, and how much stayed depended on when the threshold
// was set (GLIBC_TUNABLES at start-up vs mallopt at the first GEMM). Measured on the
// base reference model's training step with recompute: peak RSS 229 MiB with
// glibc.malloc.mmap_threshold=32 MiB from start-up, 191 MiB without; mapped, 191 both.
void Arena::Unmap::operator()(std::byte* p) const {
  munmap(p, bytes);
}

Arena::Arena(std::size_t first_block_bytes) : first_block_bytes_(first_block_bytes) {
  blocks_.reserve(64);
}

void Arena::add_block(std::size_t at_least) {
  std::size_t size = blocks_.empty() ? first_block_bytes_ : 2 * blocks_.back().size;
  while (size < at_least) size *= 2;
  size = round_up(size, page_size());  // page-aligned: beyond any alignment asked for
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  blocks_.push_back(
      Block{std::unique_ptr<std::byte, Unmap>(static_cast<std::byte*>(p), Unmap{size}), size, 0});
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
    for (const Block& b : blocks_) total += b.size;
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
