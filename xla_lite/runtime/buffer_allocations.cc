#include "xla_lite/runtime/buffer_allocations.h"

#include "absl/strings/str_format.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

se::DeviceAddressBase BufferAllocations::GetDeviceAddress(
    BufferAllocation::Index index) const {
  CHECK(index >= 0 && index < size())
      << "allocation " << index << " out of " << size();
  return buffers_[index];
}

se::DeviceAddressBase BufferAllocations::GetDeviceAddress(
    const BufferAllocation::Slice& slice) const {
  se::DeviceAddressBase base = GetDeviceAddress(slice.index());
  CHECK_LE(slice.offset() + slice.size(), base.size())
      << "slice " << slice.ToString() << " exceeds buffer " << base.ToString();
  return base.GetByteSlice(slice.offset(), slice.size());
}

std::string BufferAllocations::ToString() const {
  std::string s = absl::StrFormat("device %d:", device_ordinal_);
  for (size_t i = 0; i < buffers_.size(); ++i) {
    absl::StrAppendFormat(&s, " #%d=%s", i, buffers_[i].ToString());
  }
  return s;
}

}  // namespace xla_lite::gpu
