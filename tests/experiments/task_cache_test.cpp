// The process's task cache: config loading and every trial of a run share one task
// per [task] table, data seed and data contents (building sotu's lm task takes ≈ 1 s,
// a third of a quick trial), so it must hand out one instance, to threads asking at
// once too, never a task built from other settings, never a failed build, and must not
// keep every task of a long sweep alive.
#include <catch2/catch.hpp>

#include <memory>
#include <thread>
#include <vector>

#include "experiments/config/task_cache.h"

using namespace ablate;
using namespace ablate::experiments;

namespace {

TaskSpec reverse(std::int64_t max_length) {
  return {"reverse", nn::Options{{"max_length", max_length}}, {}};
}

}  // namespace

TEST_CASE("task cache: one instance per task spec, seed and base directory", "[unit][tasks]") {
  TaskCache cache;
  auto a = cache.get(reverse(8), 7, "");
  CHECK(cache.get(reverse(8), 7, "") == a);
  CHECK(cache.get(reverse(9), 7, "") != a);    // other options: another task
  CHECK(cache.get(reverse(8), 8, "") != a);    // another data seed
  CHECK(cache.get(reverse(8), 7, "/x") != a);  // paths resolve elsewhere
  TaskSpec edited = reverse(8);
  edited.file_sha256["train"] = std::string(64, 'a');  // a data file's contents changed
  CHECK(cache.get(edited, 7, "") != a);
  CHECK(a->max_source_length() ==
        task_registry().create("reverse", reverse(8).options, 7, "")->max_source_length());
}

TEST_CASE("task cache: threads asking at once get the same task", "[unit][tasks]") {
  TaskCache cache;
  std::vector<std::shared_ptr<const Task>> got(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = cache.get(reverse(12), 3, ""); });
  for (std::thread& t : threads) t.join();
  for (const auto& task : got) CHECK(task == got.front());
}

TEST_CASE("task cache: a failed build is thrown and not kept", "[unit][tasks]") {
  TaskCache cache;
  TaskSpec bad{
      "reverse", nn::Options{{"min_length", std::int64_t(9)}, {"max_length", std::int64_t(4)}}, {}};
  CHECK_THROWS(cache.get(bad, 1, ""));
  CHECK_THROWS(cache.get(bad, 1, ""));  // built again (and failing again), not served
  CHECK(cache.get(reverse(6), 1, "") != nullptr);
}

TEST_CASE("task cache: keeps only the most recently used tasks alive", "[unit][tasks]") {
  TaskCache cache;
  std::weak_ptr<const Task> first = cache.get(reverse(4), 1, "");
  CHECK(!first.expired());  // kept for the next trial that asks
  for (std::int64_t n = 0; n < std::int64_t(TaskCache::kKept); ++n)
    cache.get(reverse(5 + n), 1, "");
  CHECK(first.expired());  // evicted, and nobody held it
  auto held = cache.get(reverse(4), 1, "");
  for (std::int64_t n = 0; n < std::int64_t(TaskCache::kKept); ++n)
    cache.get(reverse(20 + n), 1, "");
  CHECK(held->max_source_length() < cache.get(reverse(20), 1, "")->max_source_length());
  // (a user's task outlives its eviction)
}
