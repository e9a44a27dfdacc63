#ifndef TESTS_RUNTIME_FAULT_INJECTING_ALLOCATOR_H_
#define TESTS_RUNTIME_FAULT_INJECTING_ALLOCATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream_executor.h"

namespace xla_lite::testing {

// Wraps a StreamExecutorAllocator: counts calls, tracks which buffers are
// live, and fails chosen calls. A failed Deallocate keeps the buffer (as a
// real failure would leak it) until FreeLeaked().
class FaultInjectingAllocator : public se::DeviceAddressAllocator {
 public:
  explicit FaultInjectingAllocator(se::StreamExecutor* executor)
      : se::DeviceAddressAllocator(executor->platform()), base_(executor) {}
  ~FaultInjectingAllocator() override { FreeLeaked().IgnoreError(); }

  // Call numbers count from 1, over the allocator's lifetime.
  void FailAllocateCalls(absl::flat_hash_set<int64_t> calls) {
    absl::MutexLock lock(&mu_);
    failing_allocates_ = std::move(calls);
  }
  void FailDeallocateCalls(absl::flat_hash_set<int64_t> calls) {
    absl::MutexLock lock(&mu_);
    failing_deallocates_ = std::move(calls);
  }

  absl::StatusOr<se::ScopedDeviceAddress> Allocate(int device_ordinal,
                                                   uint64_t size) override;
  absl::Status Deallocate(int device_ordinal, se::DeviceAddressBase mem) override;

  bool IsLive(const void* ptr) const;
  int64_t allocations() const;
  int64_t frees() const;
  int64_t failed_frees() const;
  int64_t live() const;

  // Frees what failed deallocations kept.
  absl::Status FreeLeaked();

 private:
  se::StreamExecutorAllocator base_;
  mutable absl::Mutex mu_;
  absl::flat_hash_set<int64_t> failing_allocates_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<int64_t> failing_deallocates_ ABSL_GUARDED_BY(mu_);
  int64_t allocate_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t deallocate_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t allocations_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t frees_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failed_frees_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<const void*> live_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<int, se::DeviceAddressBase>> leaked_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace xla_lite::testing

#endif  // TESTS_RUNTIME_FAULT_INJECTING_ALLOCATOR_H_
