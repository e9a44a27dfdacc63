#include "xla_lite/runtime/memcpy_thunk.h"

#include <utility>

#include "glog/logging.h"

namespace xla_lite::gpu {

MemcpyThunk::MemcpyThunk(std::string name, BufferAllocation::Slice source,
                         BufferAllocation::Slice destination)
    : Thunk(Kind::kMemcpy, std::move(name)),
      source_(source),
      destination_(destination) {
  CHECK_EQ(source_.size(), destination_.size()) << ToString();
}

absl::Status MemcpyThunk::ExecuteOnStream(const ExecuteParams& params) {
  // Zero-byte slices may have null addresses, which no copy should see.
  if (source_.size() == 0) return absl::OkStatus();
  se::DeviceAddressBase src =
      params.buffer_allocations->GetDeviceAddress(source_);
  se::DeviceAddressBase dst =
      params.buffer_allocations->GetDeviceAddress(destination_);
  VLOG(5) << "memcpy " << ToString() << " " << src.ToString() << " -> "
          << dst.ToString();
  return params.stream->Memcpy(&dst, src, source_.size());
}

BufferUses MemcpyThunk::buffer_uses() const {
  return {BufferUse::Read(source_), BufferUse::Write(destination_)};
}

}  // namespace xla_lite::gpu
