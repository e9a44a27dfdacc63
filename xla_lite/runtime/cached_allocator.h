#ifndef XLA_LITE_RUNTIME_CACHED_ALLOCATOR_H_
#define XLA_LITE_RUNTIME_CACHED_ALLOCATOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/device_address_allocator.h"
#include "xla_lite/runtime/allocations_cache.h"

namespace xla_lite::gpu {

// The allocator one execution uses when cached allocations are on: it wraps
// the caller's allocator and one device's AllocationsCache. Part of
// GpuExecutable's implementation, not of its API.
//
// Plain Allocate passes through (parameter copies and owned results are the
// caller's memory); AllocateCached serves an allocation index from the
// cache. Deallocate of a cached address is a no-op, decided under the
// cache's lock, so a teardown path that does not know where a buffer came
// from can never free a buffer the cache still hands out.
class CachedAllocator : public se::DeviceAddressAllocator {
 public:
  CachedAllocator(se::DeviceAddressAllocator* underlying,
                  AllocationsCache* cache);

  absl::StatusOr<se::ScopedDeviceAddress> Allocate(int device_ordinal,
                                                   uint64_t size) override;
  absl::Status Deallocate(int device_ordinal, se::DeviceAddressBase mem) override;

  // See AllocationsCache::GetOrAllocate; buffers are allocated from the
  // underlying allocator.
  absl::StatusOr<se::DeviceAddressBase> AllocateCached(
      BufferAllocation::Index index, int64_t size,
      std::vector<se::ScopedDeviceAddress>& retired);

  se::DeviceAddressAllocator* underlying() const { return underlying_; }

 private:
  se::DeviceAddressAllocator* const underlying_;
  AllocationsCache* const cache_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_CACHED_ALLOCATOR_H_
