#ifndef XLA_LITE_RUNTIME_MEMSET_THUNK_H_
#define XLA_LITE_RUNTIME_MEMSET_THUNK_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Fills a slice with a byte, or with a 32-bit pattern (a broadcast f32 or
// s32 scalar). The value's type picks which: pass uint8_t{0} to zero.
//
// Command buffers only fill 32-bit patterns, so a byte fill is recordable
// when its slice is 4-byte aligned with a size that is a multiple of 4 (the
// byte is replicated four times); an empty fill becomes a barrier.
class MemsetThunk : public Thunk {
 public:
  MemsetThunk(std::string name, BufferAllocation::Slice destination,
              uint8_t value);
  // CHECK-fails unless the slice size is a multiple of 4.
  MemsetThunk(std::string name, BufferAllocation::Slice destination,
              uint32_t pattern);

  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  bool IsRecordable() const override;
  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override;
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override;

  const BufferAllocation::Slice& destination() const { return destination_; }

 private:
  // The 32-bit pattern that fills the slice as this thunk does.
  uint32_t Pattern32() const;

  const BufferAllocation::Slice destination_;
  const bool is_32bit_;
  const uint32_t pattern_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_MEMSET_THUNK_H_
