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

uint32_t MemsetThunk::Pattern32() const {
  return is_32bit_ ? pattern_ : pattern_ * 0x01010101u;
}

bool MemsetThunk::IsRecordable() const {
  // Allocations are aligned to at least 16 bytes, so a 4-aligned offset
  // gives the 4-aligned address that 32-bit fills need on GPUs.
  return is_32bit_ ||
         (destination_.size() % 4 == 0 && destination_.offset() % 4 == 0);
}

absl::StatusOr<const se::CommandBuffer::Command*> MemsetThunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  if (!IsRecordable()) {
    return Thunk::Record(params, command_buffer, dependencies);
  }
  if (destination_.size() == 0) {
    return command_buffer->CreateBarrier(dependencies);
  }
  VLOG(5) << "record memset " << ToString() << " pattern " << Pattern32();
  return command_buffer->CreateMemset(
      params.buffer_allocations->GetDeviceAddress(destination_), Pattern32(),
      destination_.size(), dependencies);
}

absl::Status MemsetThunk::UpdateRecorded(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    const se::CommandBuffer::Command* command) {
  if (!IsRecordable()) {
    return Thunk::UpdateRecorded(params, command_buffer, command);
  }
  if (destination_.size() == 0) return absl::OkStatus();
  VLOG(5) << "update memset " << ToString();
  return command_buffer->UpdateMemset(
      command, params.buffer_allocations->GetDeviceAddress(destination_),
      Pattern32(), destination_.size());
}

}  // namespace xla_lite::gpu
