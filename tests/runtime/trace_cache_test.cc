// TraceCache on its own: hits, traces, LRU eviction and failed traces.

#include "xla_lite/runtime/trace_cache.h"

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace xla_lite::testing {
namespace {

using gpu::TraceCache;

class FakeGraph : public se::CapturedGraph {
 public:
  explicit FakeGraph(int64_t id) : id_(id) {}
  int64_t num_nodes() const override { return id_; }

 private:
  int64_t id_;
};

TraceCache::Key KeyOf(uintptr_t address) {
  return {se::DeviceAddressBase(reinterpret_cast<void*>(address), 64)};
}

// Looks `address` up, tracing a graph whose num_nodes() is `next` on a miss;
// returns the graph's num_nodes().
int64_t Lookup(TraceCache& cache, uintptr_t address, int64_t next) {
  auto graph = cache.GetOrTrace(KeyOf(address), [&] {
    return absl::StatusOr<std::unique_ptr<se::CapturedGraph>>(
        std::make_unique<FakeGraph>(next));
  });
  EXPECT_TRUE(graph.ok()) << graph.status();
  return graph.ok() ? (*graph)->num_nodes() : -1;
}

TEST(TraceCacheTest, EvictsTheLeastRecentlyUsed) {
  TraceCache cache(2);
  EXPECT_EQ(Lookup(cache, 0x100, 1), 1);
  EXPECT_EQ(Lookup(cache, 0x200, 2), 2);
  EXPECT_EQ(Lookup(cache, 0x100, 99), 1);  // Hit; 0x200 is now the oldest.
  EXPECT_EQ(Lookup(cache, 0x300, 3), 3);   // Evicts 0x200.
  EXPECT_EQ(Lookup(cache, 0x100, 99), 1);
  EXPECT_EQ(Lookup(cache, 0x200, 4), 4);  // Traced again; evicts 0x300.
  EXPECT_EQ(cache.size(), 2);
  EXPECT_EQ(cache.counters().traces, 4);
  EXPECT_EQ(cache.counters().hits, 2);
  EXPECT_EQ(cache.counters().evictions, 2);
}

TEST(TraceCacheTest, KeysCompareSizesToo) {
  TraceCache cache(4);
  Lookup(cache, 0x100, 1);
  auto graph = cache.GetOrTrace(
      {se::DeviceAddressBase(reinterpret_cast<void*>(0x100), 32)}, [] {
        return absl::StatusOr<std::unique_ptr<se::CapturedGraph>>(
            std::make_unique<FakeGraph>(2));
      });
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ((*graph)->num_nodes(), 2);
  EXPECT_EQ(cache.counters().traces, 2);
}

TEST(TraceCacheTest, FailedTraceCachesNothing) {
  TraceCache cache(2);
  auto failed = cache.GetOrTrace(KeyOf(0x100), [] {
    return absl::StatusOr<std::unique_ptr<se::CapturedGraph>>(
        absl::InternalError("capture failed"));
  });
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(cache.size(), 0);
  EXPECT_EQ(cache.counters().traces, 0);
  EXPECT_EQ(Lookup(cache, 0x100, 5), 5);
}

TEST(TraceCacheTest, CapacityZeroTracesEveryTime) {
  TraceCache cache(0);
  EXPECT_EQ(Lookup(cache, 0x100, 1), 1);
  EXPECT_EQ(Lookup(cache, 0x100, 2), 2);
  EXPECT_EQ(cache.size(), 0);
  EXPECT_EQ(cache.counters().traces, 2);
  EXPECT_EQ(cache.counters().hits, 0);
}

}  // namespace
}  // namespace xla_lite::testing
