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
  std::unique_ptr<CachedAllocator> MakeCachedAllocator() const {
    return std::make_unique<CachedAllocator>(executor_->platform(), ordinal());
  }
};

TEST_P(AllocationsCacheTest, ConcurrentRequestsForOneIndexShareOneBuffer) {
  FaultInjectingAllocator underlying(executor_);
  auto allocator = MakeCachedAllocator();
  constexpr int kThreads = 8;
  std::vector<const void*> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        auto buffer = allocator->AllocateCached(underlying, /*index=*/5, 256);
        ASSERT_TRUE(buffer.ok()) << buffer.status();
        if (i == 0) seen[t] = buffer->cref().opaque();
        EXPECT_EQ(buffer->cref().opaque(), seen[t]);
        // Dropping the handle frees nothing: the cache keeps the buffer.
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(std::set<const void*>(seen.begin(), seen.end()).size(), 1);
  EXPECT_EQ(underlying.allocations(), 1);
  EXPECT_EQ(underlying.frees(), 0);
  EXPECT_EQ(underlying.live(), 1);
  EXPECT_TRUE(allocator->ReleaseCache().empty());
  EXPECT_EQ(underlying.live(), 0);
}

TEST_P(AllocationsCacheTest, RequestOfAnotherSizeIsRefusedAndTheEntryKept) {
  FaultInjectingAllocator allocator(executor_);
  AllocationsCache cache(ordinal());
  auto first = cache.GetOrAllocate(1, 128, allocator);
  ASSERT_TRUE(first.ok()) << first.status();
  auto larger = cache.GetOrAllocate(1, 4096, allocator);
  EXPECT_EQ(larger.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(larger.status().message(), "allocation 1"))
      << larger.status();
  EXPECT_TRUE(absl::StrContains(larger.status().message(), "128 bytes"))
      << larger.status();
  auto again = cache.GetOrAllocate(1, 128, allocator);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->opaque(), first->opaque());
  EXPECT_EQ(allocator.allocations(), 1);
  EXPECT_TRUE(cache.ReleaseAll().empty());
  EXPECT_EQ(allocator.live(), 0);
}

TEST_P(AllocationsCacheTest, FailedAllocationNamesTheAllocationAndCachesNothing) {
  FaultInjectingAllocator allocator(executor_);
  allocator.FailAllocateCalls({1});
  AllocationsCache cache(ordinal());
  auto failed = cache.GetOrAllocate(7, 512, allocator);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "allocation 7"))
      << failed.status();
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "512 bytes"));
  EXPECT_EQ(allocator.live(), 0);
  auto retried = cache.GetOrAllocate(7, 512, allocator);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_TRUE(cache.Holds(retried->opaque()));
  EXPECT_EQ(allocator.live(), 1);
  EXPECT_TRUE(cache.ReleaseAll().empty());
}

TEST_P(AllocationsCacheTest, ReleaseReportsEveryFailureAndFreesTheRest) {
  FaultInjectingAllocator allocator(executor_);
  AllocationsCache cache(ordinal());
  std::vector<const void*> addresses;
  for (int64_t index = 0; index < 4; ++index) {
    auto buffer = cache.GetOrAllocate(index, 100 * (index + 1), allocator);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    addresses.push_back(buffer->opaque());
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
  // Released, and not freed again by a second release.
  EXPECT_TRUE(cache.ReleaseAll().empty());
  EXPECT_EQ(allocator.frees() + allocator.failed_frees(), 4);
  // Released addresses stay known as the cache's.
  for (const void* address : addresses) EXPECT_TRUE(cache.Holds(address));
  XLA_LITE_EXPECT_OK(allocator.FreeLeaked());
}

TEST_P(AllocationsCacheTest, CachedAllocatorNeverFreesACachedBuffer) {
  FaultInjectingAllocator underlying(executor_);
  auto allocator = MakeCachedAllocator();
  auto cached = allocator->AllocateCached(underlying, 3, 256);
  ASSERT_TRUE(cached.ok()) << cached.status();
  auto plain = allocator->Allocate(underlying, 256);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(cached->allocator(), allocator.get());
  EXPECT_EQ(plain->allocator(), allocator.get());
  EXPECT_EQ(underlying.live(), 2);
  // A cached address: refused, whoever asks and however often.
  se::DeviceAddressBase cached_address = cached->cref();
  XLA_LITE_EXPECT_OK(allocator->Deallocate(ordinal(), cached_address));
  XLA_LITE_EXPECT_OK(cached->Free());
  auto again = allocator->AllocateCached(underlying, 3, 256);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->cref(), cached_address);
  auto freed = allocator->Free(*std::move(again));
  ASSERT_TRUE(freed.ok()) << freed.status();
  EXPECT_FALSE(*freed);
  EXPECT_EQ(underlying.live(), 2);
  EXPECT_TRUE(underlying.IsLive(cached_address.opaque()));
  // Anything else goes to the allocator that made it, once.
  se::DeviceAddressBase plain_address = plain->Release();
  XLA_LITE_EXPECT_OK(allocator->Deallocate(ordinal(), plain_address));
  EXPECT_EQ(underlying.live(), 1);
  EXPECT_EQ(allocator->Deallocate(ordinal(), plain_address).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(underlying.frees(), 1);
  EXPECT_TRUE(allocator->ReleaseCache().empty());
  EXPECT_EQ(underlying.live(), 0);
}

TEST_P(AllocationsCacheTest, AdoptedBuffersFreeThroughTheirAllocatorUnlessCached) {
  FaultInjectingAllocator underlying(executor_);
  FaultInjectingAllocator caller(executor_);
  auto allocator = MakeCachedAllocator();
  auto donated = caller.Allocate(ordinal(), 512);
  ASSERT_TRUE(donated.ok()) << donated.status();
  se::ScopedDeviceAddress adopted = allocator->Adopt(*std::move(donated));
  EXPECT_EQ(adopted.allocator(), allocator.get());
  XLA_LITE_EXPECT_OK(adopted.Free());
  EXPECT_EQ(caller.frees(), 1);
  EXPECT_EQ(caller.live(), 0);

  // A caller that believes it owns a cached buffer hands it over.
  auto cached = allocator->AllocateCached(underlying, 0, 512);
  ASSERT_TRUE(cached.ok()) << cached.status();
  se::ScopedDeviceAddress claimed(cached->cref(), ordinal(), &caller);
  se::ScopedDeviceAddress refused = allocator->Adopt(std::move(claimed));
  XLA_LITE_EXPECT_OK(refused.Free());
  EXPECT_EQ(caller.frees(), 1);
  EXPECT_EQ(underlying.frees(), 0);
  EXPECT_TRUE(underlying.IsLive(cached->cref().opaque()));
  EXPECT_TRUE(allocator->ReleaseCache().empty());
  EXPECT_EQ(underlying.live(), 0);
}

TEST_P(AllocationsCacheTest, DetachHandsOutOwnedBuffersAndViews) {
  FaultInjectingAllocator underlying(executor_);
  auto allocator = MakeCachedAllocator();
  auto plain = allocator->Allocate(underlying, 256);
  ASSERT_TRUE(plain.ok()) << plain.status();
  se::ScopedDeviceAddress owned = allocator->Detach(*std::move(plain));
  EXPECT_EQ(owned.allocator(), &underlying);
  // No longer this allocator's: a free through it is refused as unknown.
  EXPECT_EQ(allocator->Deallocate(ordinal(), owned.cref()).code(),
            absl::StatusCode::kFailedPrecondition);
  XLA_LITE_EXPECT_OK(owned.Free());
  EXPECT_EQ(underlying.frees(), 1);

  auto cached = allocator->AllocateCached(underlying, 1, 256);
  ASSERT_TRUE(cached.ok()) << cached.status();
  se::ScopedDeviceAddress view = allocator->Detach(*std::move(cached));
  EXPECT_EQ(view.allocator(), nullptr);
  EXPECT_FALSE(view.is_null());
  EXPECT_TRUE(allocator->ReleaseCache().empty());
  EXPECT_EQ(underlying.live(), 0);
}

TEST_P(AllocationsCacheTest, SpentAllocatorKeepsRefusingItsReleasedBuffers) {
  FaultInjectingAllocator underlying(executor_);
  auto allocator = MakeCachedAllocator();
  auto cached = allocator->AllocateCached(underlying, 2, 256);
  ASSERT_TRUE(cached.ok()) << cached.status();
  auto plain = allocator->Allocate(underlying, 128);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE(allocator->ReleaseCache().empty());
  EXPECT_EQ(underlying.frees(), 1);
  // A handle that outlived the release: refused, not freed twice.
  XLA_LITE_EXPECT_OK(cached->Free());
  EXPECT_EQ(underlying.frees() + underlying.failed_frees(), 1);
  // Uncached buffers are still freed; nothing new is handed out.
  XLA_LITE_EXPECT_OK(plain->Free());
  EXPECT_EQ(underlying.frees(), 2);
  EXPECT_EQ(allocator->Allocate(underlying, 64).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(allocator->AllocateCached(underlying, 3, 64).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(underlying.allocations(), 2);
  EXPECT_EQ(underlying.live(), 0);
}

INSTANTIATE_FOR_ALL_PLATFORMS(AllocationsCacheTest);

}  // namespace
}  // namespace xla_lite::testing
