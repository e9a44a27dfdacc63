#ifndef STREAM_EXECUTOR_DEVICE_ADDRESS_ALLOCATOR_H_
#define STREAM_EXECUTOR_DEVICE_ADDRESS_ALLOCATOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "stream_executor/device_address.h"

namespace stream_executor {

class DeviceAddressAllocator;
class Platform;
class StreamExecutor;

// Owns one allocation and returns it to its allocator when destroyed. Free()
// reports a failing deallocation; the destructor can only log it, so code
// that cares (teardown) calls Free() or Release() explicitly.
class ScopedDeviceAddress {
 public:
  ScopedDeviceAddress() = default;
  ScopedDeviceAddress(DeviceAddressBase address, int device_ordinal,
                      DeviceAddressAllocator* allocator)
      : address_(address), device_ordinal_(device_ordinal), allocator_(allocator) {}
  ~ScopedDeviceAddress();

  ScopedDeviceAddress(ScopedDeviceAddress&& other) noexcept;
  ScopedDeviceAddress& operator=(ScopedDeviceAddress&& other) noexcept;
  ScopedDeviceAddress(const ScopedDeviceAddress&) = delete;
  ScopedDeviceAddress& operator=(const ScopedDeviceAddress&) = delete;

  const DeviceAddressBase& cref() const { return address_; }
  DeviceAddressBase* ptr() { return &address_; }
  bool is_null() const { return address_.is_null(); }
  int device_ordinal() const { return device_ordinal_; }
  DeviceAddressAllocator* allocator() const { return allocator_; }

  // Gives up ownership without freeing.
  DeviceAddressBase Release();
  // Frees now (no-op when empty) and reports the allocator's status.
  absl::Status Free();

 private:
  DeviceAddressBase address_;
  int device_ordinal_ = 0;
  DeviceAddressAllocator* allocator_ = nullptr;
};

// Hands out device memory for one platform's devices. Implementations are
// thread-safe.
class DeviceAddressAllocator {
 public:
  explicit DeviceAddressAllocator(const Platform* platform)
      : platform_(platform) {}
  virtual ~DeviceAddressAllocator() = default;

  virtual absl::StatusOr<ScopedDeviceAddress> Allocate(int device_ordinal,
                                                       uint64_t size) = 0;
  virtual absl::Status Deallocate(int device_ordinal,
                                  DeviceAddressBase mem) = 0;

  const Platform* platform() const { return platform_; }

 private:
  const Platform* platform_;
};

// Allocates straight from StreamExecutors, one per device ordinal.
class StreamExecutorAllocator : public DeviceAddressAllocator {
 public:
  explicit StreamExecutorAllocator(StreamExecutor* executor);
  StreamExecutorAllocator(const Platform* platform,
                          absl::Span<StreamExecutor* const> executors);

  absl::StatusOr<ScopedDeviceAddress> Allocate(int device_ordinal,
                                               uint64_t size) override;
  absl::Status Deallocate(int device_ordinal, DeviceAddressBase mem) override;

  absl::StatusOr<StreamExecutor*> GetExecutor(int device_ordinal) const;

 private:
  std::vector<StreamExecutor*> executors_;
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_DEVICE_ADDRESS_ALLOCATOR_H_
