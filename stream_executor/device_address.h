#ifndef STREAM_EXECUTOR_DEVICE_ADDRESS_H_
#define STREAM_EXECUTOR_DEVICE_ADDRESS_H_

#include <cstdint>

#include "absl/strings/str_format.h"

namespace stream_executor {

// An untyped range of device memory: an opaque pointer and a size in bytes.
// It owns nothing; ScopedDeviceAddress owns.
class DeviceAddressBase {
 public:
  DeviceAddressBase() = default;
  DeviceAddressBase(void* opaque, uint64_t size) : opaque_(opaque), size_(size) {}

  void* opaque() const { return opaque_; }
  uint64_t size() const { return size_; }
  bool is_null() const { return opaque_ == nullptr; }

  // A sub-range [offset, offset + size). The caller checks the bounds.
  DeviceAddressBase GetByteSlice(uint64_t offset, uint64_t size) const {
    return DeviceAddressBase(static_cast<char*>(opaque_) + offset, size);
  }

  bool IsSameAs(const DeviceAddressBase& other) const {
    return opaque_ == other.opaque_ && size_ == other.size_;
  }
  bool operator==(const DeviceAddressBase& other) const { return IsSameAs(other); }
  bool operator!=(const DeviceAddressBase& other) const { return !IsSameAs(other); }

  std::string ToString() const {
    return absl::StrFormat("%p[%d]", opaque_, size_);
  }

 private:
  void* opaque_ = nullptr;
  uint64_t size_ = 0;
};

// Typed view for code that knows the element type (tests, host kernels).
template <typename T>
class DeviceAddress : public DeviceAddressBase {
 public:
  DeviceAddress() = default;
  explicit DeviceAddress(const DeviceAddressBase& base) : DeviceAddressBase(base) {}
  T* base() const { return static_cast<T*>(opaque()); }
  uint64_t ElementCount() const { return size() / sizeof(T); }
};

}  // namespace stream_executor

namespace se = ::stream_executor;

#endif  // STREAM_EXECUTOR_DEVICE_ADDRESS_H_
