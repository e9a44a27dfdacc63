#include "xla_lite/runtime/allocations_cache.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

AllocationsCache::AllocationsCache(int device_ordinal)
    : device_ordinal_(device_ordinal) {}

absl::StatusOr<se::DeviceAddressBase> AllocationsCache::GetOrAllocate(
    BufferAllocation::Index index, uint64_t size,
    se::DeviceAddressAllocator& from) {
  auto it = entries_.find(index);
  if (it != entries_.end()) {
    if (it->second.cref().size() == size) return it->second.cref();
    return absl::InternalError(absl::StrFormat(
        "allocation %d is cached on device %d with %d bytes, asked for %d",
        index, device_ordinal_, it->second.cref().size(), size));
  }
  absl::StatusOr<se::ScopedDeviceAddress> buffer =
      from.Allocate(device_ordinal_, size);
  if (!buffer.ok()) {
    return absl::Status(
        buffer.status().code(),
        absl::StrFormat("caching allocation %d (%d bytes) on device %d: %s",
                        index, size, device_ordinal_,
                        buffer.status().message()));
  }
  se::DeviceAddressBase address = buffer->cref();
  if (!address.is_null()) addresses_.insert(address.opaque());
  entries_.emplace(index, *std::move(buffer));
  VLOG(3) << "cached allocation " << index << " at " << address.ToString()
          << " on device " << device_ordinal_;
  return address;
}

bool AllocationsCache::Holds(const void* address) const {
  return addresses_.contains(address);
}

std::vector<absl::Status> AllocationsCache::ReleaseAll() {
  std::vector<absl::Status> failures;
  for (auto& [index, buffer] : entries_) {
    uint64_t size = buffer.cref().size();
    absl::Status status = buffer.Free();
    if (status.ok()) continue;
    failures.push_back(absl::Status(
        status.code(),
        absl::StrFormat("freeing cached allocation %d (%d bytes) on device "
                        "%d: %s",
                        index, size, device_ordinal_, status.message())));
  }
  entries_.clear();
  return failures;
}

}  // namespace xla_lite::gpu
