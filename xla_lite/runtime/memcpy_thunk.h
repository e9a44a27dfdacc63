#ifndef XLA_LITE_RUNTIME_MEMCPY_THUNK_H_
#define XLA_LITE_RUNTIME_MEMCPY_THUNK_H_

#include <string>

#include "absl/status/status.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// A device-to-device copy of one slice into another of the same size. In a
// command buffer an empty copy becomes a barrier, because its slices may
// have null addresses that no copy node should see.
class MemcpyThunk : public Thunk {
 public:
  // CHECK-fails when the sizes differ.
  MemcpyThunk(std::string name, BufferAllocation::Slice source,
              BufferAllocation::Slice destination);

  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  bool IsRecordable() const override { return true; };
  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override;
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override;

  const BufferAllocation::Slice& source() const { return source_; }
  const BufferAllocation::Slice& destination() const { return destination_; }

 private:
  const BufferAllocation::Slice source_, destination_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_MEMCPY_THUNK_H_
