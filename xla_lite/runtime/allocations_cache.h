#ifndef XLA_LITE_RUNTIME_ALLOCATIONS_CACHE_H_
#define XLA_LITE_RUNTIME_ALLOCATIONS_CACHE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/device_address_allocator.h"
#include "xla_lite/runtime/buffer_allocation.h"

namespace xla_lite::gpu {

// One device's stable buffers of one executable, by allocation index: the
// temps and live-out results of every execution, and the stable copies of
// entry parameters. Part of CachedAllocator, whose lock guards it; not
// thread-safe on its own.
//
// A buffer is owned here from its first request until ReleaseAll and keeps
// its address all that time, which is what lets recorded command buffers
// replay without updates. Entries are never replaced: an allocation's size
// is fixed for the executable's life, so a request of another size is a
// caller's bug and refused.
class AllocationsCache {
 public:
  explicit AllocationsCache(int device_ordinal);
  AllocationsCache(const AllocationsCache&) = delete;
  AllocationsCache& operator=(const AllocationsCache&) = delete;

  // The buffer of `index`, allocated from `from` on the first request;
  // `from` must outlive the entry. INTERNAL when `index` holds a buffer of
  // another size.
  absl::StatusOr<se::DeviceAddressBase> GetOrAllocate(
      BufferAllocation::Index index, uint64_t size,
      se::DeviceAddressAllocator& from);

  // Whether `address` starts a buffer this cache holds or held before
  // ReleaseAll: addresses stay known after the release, so that a late
  // free of a released buffer is still recognized as one of the cache's.
  bool Holds(const void* address) const;

  // Frees every entry through the allocator that made it, going on past
  // failures, and returns one error per failed entry naming its allocation
  // index, size and device. The caller makes sure no queued work still
  // uses the buffers.
  std::vector<absl::Status> ReleaseAll();

 private:
  const int device_ordinal_;
  absl::flat_hash_map<BufferAllocation::Index, se::ScopedDeviceAddress>
      entries_;
  // Every address an entry ever had, for Holds.
  absl::flat_hash_set<const void*> addresses_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_ALLOCATIONS_CACHE_H_
