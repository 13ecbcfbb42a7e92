// The arena hands out aligned memory, grows by blocks, and after reset() serves a step
// of the same size from one block.
#include <catch2/catch.hpp>
#include <cstdint>

#include "autograd/arena.h"

using namespace ablate;

TEST_CASE("allocations are aligned and do not overlap") {
  Arena arena(256);
  auto* a = static_cast<char*>(arena.allocate(10));
  auto* b = static_cast<char*>(arena.allocate(100));
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 64 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % 64 == 0);
  CHECK(b >= a + 10);
  auto* c = static_cast<char*>(arena.allocate(3, 4));
  CHECK(reinterpret_cast<std::uintptr_t>(c) % 4 == 0);
}

TEST_CASE("a step that outgrew the arena fits in one block after reset") {
  Arena arena(1024);
  for (int i = 0; i < 10; ++i) arena.allocate(700);
  CHECK(arena.blocks() > 1);
  std::size_t capacity = arena.capacity();
  arena.reset();
  CHECK(arena.blocks() == 1);
  CHECK(arena.capacity() == capacity);
  CHECK(arena.bytes_in_use() == 0);
  for (int i = 0; i < 10; ++i) arena.allocate(700);
  CHECK(arena.blocks() == 1);  // the same step now needs no new block
}

TEST_CASE("an allocation larger than a block gets a block of its own size") {
  Arena arena(64);
  void* p = arena.allocate(10000);
  CHECK(p != nullptr);
  CHECK(arena.capacity() >= 10000);
}
