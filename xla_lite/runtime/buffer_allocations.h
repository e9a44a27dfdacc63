#ifndef XLA_LITE_RUNTIME_BUFFER_ALLOCATIONS_H_
#define XLA_LITE_RUNTIME_BUFFER_ALLOCATIONS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stream_executor/device_address.h"
#include "xla_lite/runtime/buffer_allocation.h"

namespace xla_lite::gpu {

// The device addresses of one execution's allocations, by allocation index.
// It owns nothing: the executable decides where each address comes from and
// who frees it.
class BufferAllocations {
 public:
  BufferAllocations(std::vector<se::DeviceAddressBase> buffers,
                    int device_ordinal)
      : buffers_(std::move(buffers)), device_ordinal_(device_ordinal) {}

  int64_t size() const { return buffers_.size(); }
  int device_ordinal() const { return device_ordinal_; }

  // CHECK-fails on an index or a slice outside the allocations: slices are
  // validated against the allocations when an executable is created.
  se::DeviceAddressBase GetDeviceAddress(BufferAllocation::Index index) const;
  se::DeviceAddressBase GetDeviceAddress(
      const BufferAllocation::Slice& slice) const;

  // By allocation index.
  const std::vector<se::DeviceAddressBase>& buffers() const { return buffers_; }

  std::string ToString() const;

 private:
  std::vector<se::DeviceAddressBase> buffers_;
  int device_ordinal_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_BUFFER_ALLOCATIONS_H_
