#include "autograd/arena.h"

#include <cstdlib>
#include <new>

namespace ablate {

namespace {
constexpr std::size_t kBlockAlignment = 64;
std::size_t round_up(std::size_t n, std::size_t a) {
  return (n + a - 1) / a * a;
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
