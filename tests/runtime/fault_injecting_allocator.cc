#include "tests/runtime/fault_injecting_allocator.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace xla_lite::testing {

absl::StatusOr<se::ScopedDeviceAddress> FaultInjectingAllocator::Allocate(
    int device_ordinal, uint64_t size) {
  {
    absl::MutexLock lock(&mu_);
    int64_t call = ++allocate_calls_;
    if (failing_allocates_.contains(call)) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("injected failure of allocation #%d", call));
    }
  }
  ASSIGN_OR_RETURN(se::ScopedDeviceAddress mem,
                   base_.Allocate(device_ordinal, size));
  se::DeviceAddressBase address = mem.Release();
  absl::MutexLock lock(&mu_);
  ++allocations_;
  if (!address.is_null()) live_.insert(address.opaque());
  return se::ScopedDeviceAddress(address, device_ordinal, this);
}

absl::Status FaultInjectingAllocator::Deallocate(int device_ordinal,
                                                 se::DeviceAddressBase mem) {
  if (mem.is_null()) return absl::OkStatus();
  {
    absl::MutexLock lock(&mu_);
    int64_t call = ++deallocate_calls_;
    if (failing_deallocates_.contains(call)) {
      leaked_.emplace_back(device_ordinal, mem);
      ++failed_frees_;
      return absl::InternalError(absl::StrFormat(
          "injected failure of deallocation #%d (%p)", call, mem.opaque()));
    }
  }
  RETURN_IF_ERROR(base_.Deallocate(device_ordinal, mem));
  absl::MutexLock lock(&mu_);
  ++frees_;
  live_.erase(mem.opaque());
  return absl::OkStatus();
}

bool FaultInjectingAllocator::IsLive(const void* ptr) const {
  absl::MutexLock lock(&mu_);
  return live_.contains(ptr);
}

int64_t FaultInjectingAllocator::allocations() const {
  absl::MutexLock lock(&mu_);
  return allocations_;
}

int64_t FaultInjectingAllocator::frees() const {
  absl::MutexLock lock(&mu_);
  return frees_;
}

int64_t FaultInjectingAllocator::failed_frees() const {
  absl::MutexLock lock(&mu_);
  return failed_frees_;
}

int64_t FaultInjectingAllocator::live() const {
  absl::MutexLock lock(&mu_);
  return live_.size();
}

absl::Status FaultInjectingAllocator::FreeLeaked() {
  std::vector<std::pair<int, se::DeviceAddressBase>> leaked;
  {
    absl::MutexLock lock(&mu_);
    leaked.swap(leaked_);
  }
  absl::Status status;
  for (auto& [ordinal, mem] : leaked) {
    status.Update(base_.Deallocate(ordinal, mem));
    absl::MutexLock lock(&mu_);
    live_.erase(mem.opaque());
  }
  return status;
}

}  // namespace xla_lite::testing
