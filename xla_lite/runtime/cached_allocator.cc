#include "xla_lite/runtime/cached_allocator.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

CachedAllocator::CachedAllocator(const se::Platform* platform,
                                 int device_ordinal)
    : se::DeviceAddressAllocator(platform),
      device_ordinal_(device_ordinal),
      cache_(device_ordinal) {}

CachedAllocator::~CachedAllocator() {
  for (const absl::Status& failure : ReleaseCache()) {
    LOG(ERROR) << "cached allocator: " << failure;
  }
  absl::MutexLock lock(&mu_);
  // Every handle holder keeps this allocator alive, so buffers left here
  // were leaked by a holder; they are freed rather than lost.
  for (auto& [address, buffer] : live_) {
    LOG(ERROR) << "device " << device_ordinal_ << ": buffer "
               << buffer.cref().ToString() << " was never freed";
    absl::Status status = buffer.Free();
    if (!status.ok()) LOG(ERROR) << "freeing it: " << status;
  }
}

absl::StatusOr<se::ScopedDeviceAddress> CachedAllocator::Allocate(
    se::DeviceAddressAllocator& from, uint64_t size) {
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckNotSpent());
  }
  // Outside the lock: only cached requests need to wait for each other.
  ASSIGN_OR_RETURN(se::ScopedDeviceAddress buffer,
                   from.Allocate(device_ordinal_, size));
  return Adopt(std::move(buffer));
}

absl::StatusOr<se::ScopedDeviceAddress> CachedAllocator::AllocateCached(
    se::DeviceAddressAllocator& from, BufferAllocation::Index index,
    uint64_t size) {
  // Allocating under the lock is the point: a second caller for the same
  // index must wait for this buffer rather than allocate one of its own.
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckNotSpent());
  ASSIGN_OR_RETURN(se::DeviceAddressBase address,
                   cache_.GetOrAllocate(index, size, from));
  return se::ScopedDeviceAddress(address, device_ordinal_, this);
}

se::ScopedDeviceAddress CachedAllocator::Adopt(se::ScopedDeviceAddress buffer) {
  if (buffer.is_null() || buffer.allocator() == this) return buffer;
  se::DeviceAddressBase address = buffer.cref();
  int ordinal = buffer.device_ordinal();
  absl::MutexLock lock(&mu_);
  if (cache_.Holds(address.opaque())) {
    VLOG(5) << "a donated buffer is cached buffer " << address.ToString()
            << "; the cache keeps owning it";
    buffer.Release();
  } else if (live_.contains(address.opaque())) {
    LOG(ERROR) << "device " << device_ordinal_ << ": " << address.ToString()
               << " is handed over while already owned here; not taken";
    buffer.Release();
    return se::ScopedDeviceAddress(address, ordinal, /*allocator=*/nullptr);
  } else {
    live_.emplace(address.opaque(), std::move(buffer));
  }
  return se::ScopedDeviceAddress(address, ordinal, this);
}

se::ScopedDeviceAddress CachedAllocator::Detach(
    se::ScopedDeviceAddress buffer) {
  if (buffer.is_null() || buffer.allocator() != this) return buffer;
  int ordinal = buffer.device_ordinal();
  se::DeviceAddressBase address = buffer.Release();
  absl::MutexLock lock(&mu_);
  if (cache_.Holds(address.opaque())) {
    return se::ScopedDeviceAddress(address, ordinal, /*allocator=*/nullptr);
  }
  auto it = live_.find(address.opaque());
  CHECK(it != live_.end()) << "a handle of " << address.ToString()
                           << " outlived its buffer";
  se::ScopedDeviceAddress owned = std::move(it->second);
  live_.erase(it);
  return owned;
}

std::vector<absl::Status> CachedAllocator::ReleaseCache() {
  absl::MutexLock lock(&mu_);
  spent_ = true;
  return cache_.ReleaseAll();
}

absl::StatusOr<se::ScopedDeviceAddress> CachedAllocator::Allocate(
    int device_ordinal, uint64_t size) {
  return absl::UnimplementedError(
      "a CachedAllocator allocates from the allocator each request names");
}

absl::Status CachedAllocator::Deallocate(int device_ordinal,
                                         se::DeviceAddressBase mem) {
  return Reclaim(mem).status();
}

absl::StatusOr<bool> CachedAllocator::Free(se::ScopedDeviceAddress buffer) {
  if (buffer.allocator() != this) {
    RETURN_IF_ERROR(buffer.Free());
    return true;
  }
  return Reclaim(buffer.Release());
}

absl::StatusOr<bool> CachedAllocator::Reclaim(se::DeviceAddressBase mem) {
  if (mem.is_null()) return false;
  se::ScopedDeviceAddress owned;
  {
    absl::MutexLock lock(&mu_);
    if (cache_.Holds(mem.opaque())) {
      VLOG(5) << "not freeing cached buffer " << mem.ToString();
      return false;
    }
    auto it = live_.find(mem.opaque());
    if (it == live_.end()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "device %d: %s is not a live buffer of this executable (freed "
          "twice?)",
          device_ordinal_, mem.ToString()));
    }
    owned = std::move(it->second);
    live_.erase(it);
  }
  RETURN_IF_ERROR(owned.Free());
  return true;
}

absl::Status CachedAllocator::CheckNotSpent() const {
  if (!spent_) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "device %d: this cache generation was released", device_ordinal_));
}

}  // namespace xla_lite::gpu
