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

absl::StatusOr<const se::CommandBuffer::Command*> MemcpyThunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  if (source_.size() == 0) return command_buffer->CreateBarrier(dependencies);
  VLOG(5) << "record memcpy " << ToString();
  return command_buffer->CreateMemcpyD2D(
      params.buffer_allocations->GetDeviceAddress(destination_),
      params.buffer_allocations->GetDeviceAddress(source_), source_.size(),
      dependencies);
}

absl::Status MemcpyThunk::UpdateRecorded(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    const se::CommandBuffer::Command* command) {
  if (source_.size() == 0) return absl::OkStatus();
  VLOG(5) << "update memcpy " << ToString();
  return command_buffer->UpdateMemcpyD2D(
      command, params.buffer_allocations->GetDeviceAddress(destination_),
      params.buffer_allocations->GetDeviceAddress(source_), source_.size());
}

}  // namespace xla_lite::gpu
