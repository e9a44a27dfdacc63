#ifndef XLA_LITE_RUNTIME_SEQUENTIAL_THUNK_H_
#define XLA_LITE_RUNTIME_SEQUENTIAL_THUNK_H_

#include <string>

#include "absl/status/status.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Thunks run one after another on the same stream.
class SequentialThunk : public Thunk {
 public:
  SequentialThunk(std::string name, ThunkSequence thunks);

  absl::Status Initialize(const InitializeParams& params) override;
  // Stops at the first thunk that fails to enqueue; work already enqueued
  // stays on the stream.
  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  const ThunkSequence& thunks() const { return thunks_; }

  // As the nested computation of a recorded loop or branch: whether every
  // thunk is recordable; each thunk recorded into `nested` after the one
  // before (one command per thunk, so thunk i's command is nested.command(i)
  // for UpdateNested).
  bool AllRecordable() const;
  absl::Status RecordNested(const RecordParams& params,
                            se::CommandBuffer& nested) const;
  absl::Status UpdateNested(const RecordParams& params,
                            se::CommandBuffer& nested) const;

 private:
  ThunkSequence thunks_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_SEQUENTIAL_THUNK_H_
