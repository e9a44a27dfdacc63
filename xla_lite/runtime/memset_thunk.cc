#include "xla_lite/runtime/memset_thunk.h"

#include <utility>

#include "glog/logging.h"

namespace xla_lite::gpu {

MemsetThunk::MemsetThunk(std::string name, BufferAllocation::Slice destination,
                         uint8_t value)
    : Thunk(Kind::kMemset, std::move(name)),
      destination_(destination),
      is_32bit_(false),
      pattern_(value) {}

MemsetThunk::MemsetThunk(std::string name, BufferAllocation::Slice destination,
                         uint32_t pattern)
    : Thunk(Kind::kMemset, std::move(name)),
      destination_(destination),
      is_32bit_(true),
      pattern_(pattern) {
  CHECK_EQ(destination_.size() % 4, 0) << ToString();
}

absl::Status MemsetThunk::ExecuteOnStream(const ExecuteParams& params) {
  if (destination_.size() == 0) return absl::OkStatus();
  se::DeviceAddressBase dst =
      params.buffer_allocations->GetDeviceAddress(destination_);
  VLOG(5) << "memset " << ToString() << " " << dst.ToString() << " pattern "
          << pattern_;
  if (is_32bit_) {
    return params.stream->Memset32(&dst, pattern_, destination_.size());
  }
  return params.stream->Memset8(&dst, static_cast<uint8_t>(pattern_),
                                destination_.size());
}

BufferUses MemsetThunk::buffer_uses() const {
  return {BufferUse::Write(destination_)};
}

}  // namespace xla_lite::gpu
