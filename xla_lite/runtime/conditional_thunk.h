#ifndef XLA_LITE_RUNTIME_CONDITIONAL_THUNK_H_
#define XLA_LITE_RUNTIME_CONDITIONAL_THUNK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Runs one of its branches, each a thunk sequence, as the selector the
// device computed says: a pred[] `selector` runs branch 0 when true and
// branch 1 when false (XLA's true_computation / false_computation); an
// s32[] one runs that branch, an index outside [0, branches) the last, as
// XLA does. The selector is read back to the host (ReadDeviceScalar).
class ConditionalThunk : public Thunk {
 public:
  ConditionalThunk(std::string name, BufferAllocation::Slice selector,
                   std::vector<std::unique_ptr<SequentialThunk>> branches);

  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  // Recorded (on platforms with conditional nodes, when every branch is
  // recordable), one CommandBuffer branch node: the branches are recorded
  // once into its nested command buffers and the device picks one, with
  // no read back; conditional_branches then counts nothing.
  bool IsRecordable() const override;
  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override;
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override;

  // The branch a selector value picks.
  int64_t BranchFor(int64_t selector_value) const;
  const std::vector<std::unique_ptr<SequentialThunk>>& branches() const {
    return branches_;
  }

 private:
  BufferAllocation::Slice selector_;
  std::vector<std::unique_ptr<SequentialThunk>> branches_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_CONDITIONAL_THUNK_H_
