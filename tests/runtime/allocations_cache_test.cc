// AllocationsCache and CachedAllocator on their own.

#include <set>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/platform_test_util.h"
#include "tests/runtime/fault_injecting_allocator.h"
#include "tests/runtime/runtime_test_base.h"
#include "xla_lite/runtime/allocations_cache.h"
#include "xla_lite/runtime/cached_allocator.h"

namespace xla_lite::testing {
namespace {

using gpu::AllocationsCache;
using gpu::CachedAllocator;

class AllocationsCacheTest : public RuntimeTest {
 protected:
  int ordinal() const { return executor_->device_ordinal(); }
};

TEST_P(AllocationsCacheTest, ConcurrentRequestsForOneIndexShareOneBuffer) {
  FaultInjectingAllocator allocator(executor_);
  AllocationsCache cache(ordinal());
  constexpr int kThreads = 8;
  std::vector<const void*> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        std::vector<se::ScopedDeviceAddress> retired;
        auto buffer = cache.GetOrAllocate(/*index=*/5, 256, allocator, retired);
        ASSERT_TRUE(buffer.ok()) << buffer.status();
        EXPECT_TRUE(retired.empty());
        if (i == 0) seen[t] = buffer->opaque();
        EXPECT_EQ(buffer->opaque(), seen[t]);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(std::set<const void*>(seen.begin(), seen.end()).size(), 1);
  EXPECT_EQ(allocator.allocations(), 1);
  EXPECT_EQ(cache.entry_count(), 1);
  EXPECT_TRUE(cache.ReleaseAll().empty());
  EXPECT_EQ(allocator.live(), 0);
}

TEST_P(AllocationsCacheTest, LargerRequestReplacesAndRetiresTheOldBuffer) {
  FaultInjectingAllocator allocator(executor_);
  AllocationsCache cache(ordinal());
  std::vector<se::ScopedDeviceAddress> retired;
  auto small = cache.GetOrAllocate(1, 128, allocator, retired);
  ASSERT_TRUE(small.ok());
  auto smaller = cache.GetOrAllocate(1, 64, allocator, retired);
  ASSERT_TRUE(smaller.ok());
  EXPECT_EQ(smaller->opaque(), small->opaque());
  EXPECT_TRUE(retired.empty());
  auto large = cache.GetOrAllocate(1, 4096, allocator, retired);
  ASSERT_TRUE(large.ok());
  EXPECT_EQ(large->size(), 4096);
  ASSERT_EQ(retired.size(), 1);
  EXPECT_EQ(retired[0].cref().opaque(), small->opaque());
  // The old buffer is the caller's to free: still live until then.
  EXPECT_EQ(allocator.live(), 2);
  EXPECT_FALSE(cache.Contains(*small));
  EXPECT_TRUE(cache.Contains(*large));
  retired.clear();
  EXPECT_EQ(allocator.live(), 1);
  EXPECT_TRUE(cache.ReleaseAll().empty());
  EXPECT_EQ(allocator.live(), 0);
}

TEST_P(AllocationsCacheTest, FailedAllocationNamesTheAllocationAndCachesNothing) {
  FaultInjectingAllocator allocator(executor_);
  allocator.FailAllocateCalls({1});
  AllocationsCache cache(ordinal());
  std::vector<se::ScopedDeviceAddress> retired;
  auto failed = cache.GetOrAllocate(7, 512, allocator, retired);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "allocation 7"))
      << failed.status();
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "512 bytes"));
  EXPECT_EQ(cache.entry_count(), 0);
  auto retried = cache.GetOrAllocate(7, 512, allocator, retired);
  EXPECT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(cache.entry_count(), 1);
}

TEST_P(AllocationsCacheTest, ReleaseReportsEveryFailureAndFreesTheRest) {
  FaultInjectingAllocator allocator(executor_);
  AllocationsCache cache(ordinal());
  std::vector<se::ScopedDeviceAddress> retired;
  for (int64_t index = 0; index < 4; ++index) {
    ASSERT_TRUE(
        cache.GetOrAllocate(index, 100 * (index + 1), allocator, retired).ok());
  }
  allocator.FailDeallocateCalls({1, 3});
  std::vector<absl::Status> failures = cache.ReleaseAll();
  ASSERT_EQ(failures.size(), 2);
  for (const absl::Status& failure : failures) {
    EXPECT_TRUE(absl::StrContains(failure.message(), "cached allocation"))
        << failure;
    EXPECT_TRUE(absl::StrContains(failure.message(), "bytes")) << failure;
  }
  EXPECT_EQ(allocator.frees(), 2);
  EXPECT_EQ(allocator.failed_frees(), 2);
  EXPECT_EQ(cache.entry_count(), 0);
  XLA_LITE_EXPECT_OK(allocator.FreeLeaked());
}

TEST_P(AllocationsCacheTest, CachedAllocatorNeverFreesACachedBuffer) {
  FaultInjectingAllocator underlying(executor_);
  AllocationsCache cache(ordinal());
  CachedAllocator allocator(&underlying, &cache);
  std::vector<se::ScopedDeviceAddress> retired;
  auto cached = allocator.AllocateCached(3, 256, retired);
  ASSERT_TRUE(cached.ok());
  auto plain = allocator.Allocate(ordinal(), 256);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(underlying.live(), 2);
  // A cached address: a no-op, whoever asks.
  XLA_LITE_EXPECT_OK(allocator.Deallocate(ordinal(), *cached));
  EXPECT_EQ(underlying.live(), 2);
  EXPECT_TRUE(cache.Contains(*cached));
  // Anything else goes to the underlying allocator.
  se::DeviceAddressBase plain_address = plain->Release();
  XLA_LITE_EXPECT_OK(allocator.Deallocate(ordinal(), plain_address));
  EXPECT_EQ(underlying.live(), 1);
  EXPECT_TRUE(cache.ReleaseAll().empty());
  EXPECT_EQ(underlying.live(), 0);
}

INSTANTIATE_FOR_ALL_PLATFORMS(AllocationsCacheTest);

}  // namespace
}  // namespace xla_lite::testing
