#include "stream_executor/host/host_memory.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_format.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define XLA_LITE_ASAN_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define XLA_LITE_ASAN_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define XLA_LITE_ASAN_POISON(p, n) ((void)(p), (void)(n))
#define XLA_LITE_ASAN_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace stream_executor::host {

HostMemory::~HostMemory() {
  absl::MutexLock lock(&mu_);
  for (const Block& block : quarantine_) {
    XLA_LITE_ASAN_UNPOISON(block.ptr, block.size);
    std::free(block.ptr);
  }
  // Live blocks are the caller's leak; LeakSanitizer reports them with the
  // stack that allocated them, so they are deliberately not freed here.
}

absl::StatusOr<DeviceAddressBase> HostMemory::Allocate(uint64_t size,
                                                       int ordinal) {
  if (size == 0) return DeviceAddressBase();
  uint64_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  absl::MutexLock lock(&mu_);
  if (limit_bytes_ > 0 && allocated_bytes_ + rounded > limit_bytes_) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "host device %d: allocating %d bytes would exceed the memory limit "
        "(%d of %d bytes in use)",
        ordinal, size, allocated_bytes_, limit_bytes_));
  }
  void* ptr = std::aligned_alloc(kAlignment, rounded);
  if (ptr == nullptr) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "host device %d: out of host memory allocating %d bytes", ordinal, size));
  }
  live_.emplace(ptr, rounded);
  allocated_bytes_ += rounded;
  return DeviceAddressBase(ptr, size);
}

absl::Status HostMemory::Deallocate(const DeviceAddressBase& mem, int ordinal) {
  if (mem.is_null()) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  auto it = live_.find(mem.opaque());
  if (it == live_.end()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "host device %d: deallocating %p, which this device did not allocate "
        "or already freed",
        ordinal, mem.opaque()));
  }
  Block block{it->first, it->second};
  live_.erase(it);
  allocated_bytes_ -= block.size;
  std::memset(block.ptr, kPoisonByte, block.size);
  QuarantineLocked(block);
  return absl::OkStatus();
}

void HostMemory::QuarantineLocked(Block block) {
  XLA_LITE_ASAN_POISON(block.ptr, block.size);
  quarantine_.push_back(block);
  quarantine_bytes_ += block.size;
  while (quarantine_bytes_ > kQuarantineBytes && quarantine_.size() > 1) {
    Block old = quarantine_.front();
    quarantine_.pop_front();
    quarantine_bytes_ -= old.size;
    XLA_LITE_ASAN_UNPOISON(old.ptr, old.size);
    std::free(old.ptr);
  }
}

int64_t HostMemory::allocated_bytes() const {
  absl::MutexLock lock(&mu_);
  return allocated_bytes_;
}

}  // namespace stream_executor::host
