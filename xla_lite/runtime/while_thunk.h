#ifndef XLA_LITE_RUNTIME_WHILE_THUNK_H_
#define XLA_LITE_RUNTIME_WHILE_THUNK_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Reads the pred (1 byte) or s32 (4 bytes) scalar at `slice` back to the
// host: enqueues the copy on params.stream and waits for it, so everything
// enqueued before has run. Control flow decides on the host, op by op,
// from values the device computed.
absl::StatusOr<int64_t> ReadDeviceScalar(const Thunk::ExecuteParams& params,
                                         const BufferAllocation::Slice& slice);

// A while loop whose condition and body are thunk sequences over the
// executable's allocations. The loop state lives in allocations both
// sequences share, so the body updates it in place: nothing is copied per
// iteration beyond what the body's own thunks copy. Each iteration runs
// the condition, which writes a pred[] into `predicate`, reads it back
// (ReadDeviceScalar), and runs the body while it is true: at most
// MaxIterations times, after which the run fails naming the loop, so that
// a trip count read from an input cannot hang the caller.
//
// Recorded (on platforms with conditional nodes, when every thunk of the
// condition and body is recordable), the loop is one CommandBuffer while
// node: the condition's and body's commands are recorded once into its
// nested command buffers, in order, and the device decides each
// iteration, with no read back. Its bound is the same; loop_iterations
// then counts nothing, since the host never sees the iterations.
class WhileThunk : public Thunk {
 public:
  static constexpr int64_t kDefaultMaxIterations = int64_t{1} << 24;
  // xla_gpu_max_loop_iterations, or the default when it is 0 or there are
  // no options.
  static int64_t MaxIterations(const DebugOptions* options);

  WhileThunk(std::string name, BufferAllocation::Slice predicate,
             std::unique_ptr<SequentialThunk> condition,
             std::unique_ptr<SequentialThunk> body);

  absl::Status Initialize(const InitializeParams& params) override;
  // Runs the loop to its end before returning: unlike other thunks it
  // waits for the device once per iteration.
  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  bool IsRecordable() const override;
  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override;
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override;

  const SequentialThunk& condition() const { return *condition_; }
  const SequentialThunk& body() const { return *body_; }

 private:
  BufferAllocation::Slice predicate_;
  std::unique_ptr<SequentialThunk> condition_;
  std::unique_ptr<SequentialThunk> body_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_WHILE_THUNK_H_
