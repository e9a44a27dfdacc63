#include "xla_lite/runtime/allocations_cache.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

AllocationsCache::AllocationsCache(int device_ordinal)
    : device_ordinal_(device_ordinal) {}

AllocationsCache::~AllocationsCache() {
  for (const absl::Status& failure : ReleaseAll()) {
    LOG(ERROR) << "allocations cache: " << failure;
  }
}

absl::StatusOr<se::DeviceAddressBase> AllocationsCache::GetOrAllocate(
    BufferAllocation::Index index, int64_t size,
    se::DeviceAddressAllocator& allocator,
    std::vector<se::ScopedDeviceAddress>& retired) {
  // Allocating under the lock is the point: a second caller for the same
  // index must wait for this buffer rather than allocate one of its own.
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(index);
  if (it != entries_.end() && it->second.cref().size() >= size) {
    return it->second.cref();
  }
  absl::StatusOr<se::ScopedDeviceAddress> buffer =
      allocator.Allocate(device_ordinal_, size);
  if (!buffer.ok()) {
    return absl::Status(
        buffer.status().code(),
        absl::StrFormat("caching allocation %d (%d bytes) on device %d: %s",
                        index, size, device_ordinal_,
                        buffer.status().message()));
  }
  if (it != entries_.end()) {
    VLOG(1) << "allocation " << index << " outgrew its cached buffer "
            << it->second.cref().ToString() << "; replaced";
    addresses_.erase(it->second.cref().opaque());
    retired.push_back(std::move(it->second));
    entries_.erase(it);
  }
  se::DeviceAddressBase address = buffer->cref();
  addresses_.insert(address.opaque());
  entries_.emplace(index, *std::move(buffer));
  VLOG(3) << "cached allocation " << index << " at " << address.ToString()
          << " on device " << device_ordinal_;
  return address;
}

std::optional<se::DeviceAddressBase> AllocationsCache::Find(
    BufferAllocation::Index index) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(index);
  if (it == entries_.end()) return std::nullopt;
  return it->second.cref();
}

bool AllocationsCache::Contains(const se::DeviceAddressBase& address) const {
  absl::MutexLock lock(&mu_);
  return addresses_.contains(address.opaque());
}

std::vector<absl::Status> AllocationsCache::ReleaseAll() {
  absl::flat_hash_map<BufferAllocation::Index, se::ScopedDeviceAddress> entries;
  {
    absl::MutexLock lock(&mu_);
    entries.swap(entries_);
    addresses_.clear();
  }
  std::vector<absl::Status> failures;
  for (auto& [index, buffer] : entries) {
    int64_t size = buffer.cref().size();
    absl::Status status = buffer.Free();
    if (status.ok()) continue;
    failures.push_back(absl::Status(
        status.code(),
        absl::StrFormat("freeing cached allocation %d (%d bytes) on device "
                        "%d: %s",
                        index, size, device_ordinal_, status.message())));
  }
  return failures;
}

int64_t AllocationsCache::entry_count() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

int64_t AllocationsCache::bytes() const {
  absl::MutexLock lock(&mu_);
  int64_t total = 0;
  for (const auto& [index, buffer] : entries_) total += buffer.cref().size();
  return total;
}

}  // namespace xla_lite::gpu
