#ifndef XLA_LITE_RUNTIME_CACHED_ALLOCATOR_H_
#define XLA_LITE_RUNTIME_CACHED_ALLOCATOR_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/device_address_allocator.h"
#include "xla_lite/runtime/allocations_cache.h"
#include "xla_lite/runtime/buffer_allocation.h"

namespace xla_lite::gpu {

// Every buffer an executable's executions hold on one device goes through
// one CachedAllocator: temps, results, parameter copies and stable
// parameter buffers, cached or not, and donated parameters it takes over.
// Part of GpuExecutable's implementation, not of its API.
//
// Memory comes from the allocator each request names (the execution's);
// what is handed out is a handle owned by this allocator, so every free
// comes back here. One lock guards the cache and the set of live uncached
// buffers, and decides each free under it:
//   - a cached buffer is refused: Deallocate returns OK and frees nothing,
//     the cache keeps the buffer until ReleaseCache;
//   - an uncached buffer is freed through the allocator that made it;
//   - anything else (freed twice, never handed out here) is
//     FAILED_PRECONDITION and frees nothing.
// So teardown code frees whatever an execution obtained without knowing
// where it came from, and can never free a buffer the cache hands out.
//
// After ReleaseCache this allocator is spent: it hands out nothing more
// (FAILED_PRECONDITION) but keeps refusing the addresses its cache held, so
// handles of those buffers that outlive the release stay harmless even
// when the device reuses the addresses for buffers of a newer allocator.
class CachedAllocator : public se::DeviceAddressAllocator {
 public:
  CachedAllocator(const se::Platform* platform, int device_ordinal);
  // Releases the cache if ReleaseCache has not, and frees buffers still
  // live, logging each failure.
  ~CachedAllocator() override;

  // `size` bytes from `from`, uncached.
  absl::StatusOr<se::ScopedDeviceAddress> Allocate(
      se::DeviceAddressAllocator& from, uint64_t size);
  // The cache's buffer for allocation `index`, allocated from `from` on the
  // first request; `from` must outlive it. Freeing the handle is refused.
  absl::StatusOr<se::ScopedDeviceAddress> AllocateCached(
      se::DeviceAddressAllocator& from, BufferAllocation::Index index,
      uint64_t size);

  // Takes over a buffer owned elsewhere (a donated parameter), so that its
  // free comes here too: it is refused if the address is a cached buffer.
  se::ScopedDeviceAddress Adopt(se::ScopedDeviceAddress buffer);
  // Hands a buffer out for good: an uncached one comes back owned by the
  // allocator that made it, a cached one as a view that frees nothing.
  // Buffers owned elsewhere pass through.
  se::ScopedDeviceAddress Detach(se::ScopedDeviceAddress buffer);

  // Frees `buffer` as its Deallocate would (buffers owned elsewhere through
  // their own allocator). True when memory was freed, false when the cache
  // keeps it: what counters of freed buffers need to know.
  absl::StatusOr<bool> Free(se::ScopedDeviceAddress buffer);

  // Frees every cached buffer (see AllocationsCache::ReleaseAll) and spends
  // the allocator. The caller makes sure no queued work uses the buffers.
  std::vector<absl::Status> ReleaseCache();

  // UNIMPLEMENTED: requests name the allocator to allocate from.
  absl::StatusOr<se::ScopedDeviceAddress> Allocate(int device_ordinal,
                                                   uint64_t size) override;
  // As the class comment says; the address alone identifies the buffer.
  absl::Status Deallocate(int device_ordinal,
                          se::DeviceAddressBase mem) override;

  int device_ordinal() const { return device_ordinal_; }

 private:
  absl::Status CheckNotSpent() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deallocate's decision; true when memory was freed.
  absl::StatusOr<bool> Reclaim(se::DeviceAddressBase mem)
      ABSL_LOCKS_EXCLUDED(mu_);

  const int device_ordinal_;
  mutable absl::Mutex mu_;
  AllocationsCache cache_ ABSL_GUARDED_BY(mu_);
  // Uncached buffers handed out and not yet freed or detached, by address,
  // each owned by the allocator that made it.
  absl::flat_hash_map<const void*, se::ScopedDeviceAddress> live_
      ABSL_GUARDED_BY(mu_);
  bool spent_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_CACHED_ALLOCATOR_H_
