#ifndef STREAM_EXECUTOR_HOST_HOST_MEMORY_H_
#define STREAM_EXECUTOR_HOST_HOST_MEMORY_H_

#include <cstdint>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/device_address.h"

namespace stream_executor::host {

// "Device" memory of a host executor: aligned host memory with a limit.
//
// Freed blocks are filled with kPoisonByte and held in a bounded quarantine
// before they go back to the C library, so a kernel that still reads a buffer
// freed too early reads poison deterministically instead of whatever malloc
// reused the memory for. Under AddressSanitizer the quarantined blocks are
// also poisoned for ASan, so such a read is reported with a stack trace.
class HostMemory {
 public:
  static constexpr uint8_t kPoisonByte = 0xDB;
  static constexpr uint64_t kAlignment = 64;
  static constexpr int64_t kQuarantineBytes = 64 << 20;

  explicit HostMemory(int64_t limit_bytes) : limit_bytes_(limit_bytes) {}
  ~HostMemory();

  absl::StatusOr<DeviceAddressBase> Allocate(uint64_t size, int ordinal);
  absl::Status Deallocate(const DeviceAddressBase& mem, int ordinal);

  int64_t allocated_bytes() const;
  int64_t limit_bytes() const { return limit_bytes_; }

 private:
  struct Block {
    void* ptr;
    uint64_t size;
  };
  void QuarantineLocked(Block block) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int64_t limit_bytes_;  // 0: unlimited.
  mutable absl::Mutex mu_;
  absl::flat_hash_map<void*, uint64_t> live_ ABSL_GUARDED_BY(mu_);
  int64_t allocated_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<Block> quarantine_ ABSL_GUARDED_BY(mu_);
  int64_t quarantine_bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_MEMORY_H_
