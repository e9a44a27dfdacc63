#ifndef XLA_LITE_RUNTIME_ALLOCATIONS_CACHE_H_
#define XLA_LITE_RUNTIME_ALLOCATIONS_CACHE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/device_address_allocator.h"
#include "xla_lite/runtime/buffer_allocation.h"

namespace xla_lite::gpu {

// One device's stable buffers of one executable, by allocation index: the
// temps and live-out results of every execution, and the stable copies of
// entry parameters. Part of GpuExecutable's implementation, not of its API.
//
// A buffer is owned here from its first request until ReleaseAll, and keeps
// its address all that time, which is what lets recorded command buffers
// replay without updates. Thread-safe: the lookup, the allocation of a
// missing entry and its insertion happen under one lock, so concurrent
// requests for one index get one buffer and none is leaked.
class AllocationsCache {
 public:
  explicit AllocationsCache(int device_ordinal);
  // Frees what ReleaseAll has not, logging each failure.
  ~AllocationsCache();
  AllocationsCache(const AllocationsCache&) = delete;
  AllocationsCache& operator=(const AllocationsCache&) = delete;

  // The buffer of `index`. A missing entry, or one smaller than `size`, is
  // (re)allocated from `allocator`, which must outlive the entry. A
  // replaced buffer is appended to `retired`: queued work may still use it,
  // so the caller frees it once that work is done.
  absl::StatusOr<se::DeviceAddressBase> GetOrAllocate(
      BufferAllocation::Index index, int64_t size,
      se::DeviceAddressAllocator& allocator,
      std::vector<se::ScopedDeviceAddress>& retired);

  std::optional<se::DeviceAddressBase> Find(BufferAllocation::Index index) const;
  // Whether `address` starts a cached buffer.
  bool Contains(const se::DeviceAddressBase& address) const;

  // Frees every entry through the allocator that made it, going on past
  // failures, and returns one error per failed entry naming its allocation
  // index, size and device. The cache is empty afterwards. The caller makes
  // sure no queued work still uses the buffers.
  std::vector<absl::Status> ReleaseAll();

  int device_ordinal() const { return device_ordinal_; }
  int64_t entry_count() const;
  int64_t bytes() const;

 private:
  const int device_ordinal_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<BufferAllocation::Index, se::ScopedDeviceAddress>
      entries_ ABSL_GUARDED_BY(mu_);
  // The entries' addresses, for Contains.
  absl::flat_hash_set<const void*> addresses_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_ALLOCATIONS_CACHE_H_
