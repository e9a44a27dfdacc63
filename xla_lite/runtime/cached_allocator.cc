#include "xla_lite/runtime/cached_allocator.h"

#include "glog/logging.h"

namespace xla_lite::gpu {

CachedAllocator::CachedAllocator(se::DeviceAddressAllocator* underlying,
                                 AllocationsCache* cache)
    : se::DeviceAddressAllocator(underlying->platform()),
      underlying_(underlying),
      cache_(cache) {}

absl::StatusOr<se::ScopedDeviceAddress> CachedAllocator::Allocate(
    int device_ordinal, uint64_t size) {
  return underlying_->Allocate(device_ordinal, size);
}

absl::Status CachedAllocator::Deallocate(int device_ordinal,
                                         se::DeviceAddressBase mem) {
  if (device_ordinal == cache_->device_ordinal() && cache_->Contains(mem)) {
    VLOG(5) << "not freeing cached buffer " << mem.ToString();
    return absl::OkStatus();
  }
  return underlying_->Deallocate(device_ordinal, mem);
}

absl::StatusOr<se::DeviceAddressBase> CachedAllocator::AllocateCached(
    BufferAllocation::Index index, int64_t size,
    std::vector<se::ScopedDeviceAddress>& retired) {
  return cache_->GetOrAllocate(index, size, *underlying_, retired);
}

}  // namespace xla_lite::gpu
