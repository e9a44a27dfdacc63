#ifndef XLA_LITE_RUNTIME_COMMAND_BUFFER_THUNK_H_
#define XLA_LITE_RUNTIME_COMMAND_BUFFER_THUNK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/runtime/parameter_stabilizer.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/thunk.h"
#include "xla_lite/runtime/trace_cache.h"

namespace xla_lite::gpu {

// Runs a sequence of recordable thunks as one command buffer (a CUDA or HIP
// graph; recorded closures on the host), one per executor. The executions
// on an executor go through three stages:
//
//   1. Warmup. The first runs the thunks op by op: a program that runs once
//      never pays for recording, and whatever libraries set up lazily on
//      first use happens outside stream capture, which refuses allocation.
//   2. Record. The second records one command per thunk, ordered by their
//      buffer uses (see CommandDependencies), finalizes and submits. With
//      xla_gpu_command_buffer_priorities, the commands of the graph's
//      longest path launch at high priority (see command_priorities.h).
//   3. Replay. Later ones compare the addresses of the allocations the
//      commands use with those they hold. All equal: submit only. Some
//      moved: update the commands that use a moved allocation, then
//      submit. Traced commands take the trace for their new addresses from
//      a TraceCache, so cycling through a few buffer sets stops re-tracing.
//
// With parameter stabilization (DebugOptions, and stable buffers from the
// executable in ExecuteParams), an entry parameter whose address moves is
// copied into a stable buffer instead, and the commands keep pointing there
// (see ParameterStabilizer): a caller with a new batch buffer every step
// then costs one copy per step, not an update and a re-trace.
//
// A failed record leaves nothing behind and a failed update discards the
// command buffer (half updated, it matches no addresses, and a GPU command
// buffer is unusable after a failed Finalize); either way the error is
// returned and the next execution records again. On platforms without
// command buffers, or without a node kind the sequence needs (a loop node
// where there are no conditional nodes: record returned UNIMPLEMENTED),
// every execution runs op by op.
//
// Thread-safe. Each executor's state has its own lock, held while an
// execution updates and submits, so that no other execution's update can
// slip in between; a submit snapshots the commands, so work already queued
// keeps the addresses it was submitted with.
class CommandBufferThunk : public Thunk {
 public:
  // CHECK-fails unless every thunk is recordable.
  CommandBufferThunk(std::string name, ThunkSequence thunks);
  ~CommandBufferThunk() override;

  // Initializes the thunks and sets up the executor's state; the trace
  // cache capacity is params.debug_options'
  // xla_gpu_command_buffer_trace_cache_size (0 without options).
  absl::Status Initialize(const InitializeParams& params) override;
  // With params.debug_options naming xla_gpu_dump_command_buffer_dot_dir,
  // each record is written there as Graphviz DOT.
  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  const ThunkSequence& thunks() const { return sequence_->thunks(); }
  // By thunk: the earlier thunks its command waits for.
  const std::vector<std::vector<int64_t>>& dependencies() const {
    return dependencies_;
  }
  // By thunk: whether its command is on the longest path (CriticalCommands).
  const std::vector<bool>& critical() const { return critical_; }

 private:
  struct ExecutorState {
    ExecutorState(int64_t thunk_count, int64_t trace_cache_capacity,
                  std::vector<BufferAllocation::Index> allocations,
                  std::vector<bool> written);

    absl::Mutex mu;
    bool warmed_up ABSL_GUARDED_BY(mu) = false;
    // CreateCommandBuffer or a command is UNIMPLEMENTED here: op by op
    // for good.
    bool unsupported ABSL_GUARDED_BY(mu) = false;
    // Null until a record succeeds, and again after a failed update.
    std::unique_ptr<se::CommandBuffer> command_buffer ABSL_GUARDED_BY(mu);
    // By thunk: its command in `command_buffer`.
    std::vector<const se::CommandBuffer::Command*> commands ABSL_GUARDED_BY(mu);
    // By position in `allocations_`: the addresses the commands hold.
    std::vector<se::DeviceAddressBase> addresses ABSL_GUARDED_BY(mu);
    // By thunk. They outlive command buffers: a trace stays right for its
    // addresses whatever happens to the buffer it was added to.
    std::vector<std::unique_ptr<TraceCache>> trace_caches ABSL_GUARDED_BY(mu);
    ParameterStabilizer stabilizer ABSL_GUARDED_BY(mu);
    int64_t executions ABSL_GUARDED_BY(mu) = 0;
    int64_t records ABSL_GUARDED_BY(mu) = 0;
  };

  absl::StatusOr<ExecutorState*> GetState(se::StreamExecutor* executor);

  absl::Status Execute(ExecutorState& state, const ExecuteParams& params)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mu);
  absl::Status RunOpByOp(const ExecuteParams& params);
  // Records a new command buffer into `state`, or marks the platform
  // unsupported.
  absl::Status Record(ExecutorState& state, const ExecuteParams& params)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mu);
  absl::StatusOr<std::vector<const se::CommandBuffer::Command*>> RecordCommands(
      ExecutorState& state, const ExecuteParams& params,
      se::CommandBuffer& command_buffer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mu);
  // Updates the commands that use an allocation whose address moved.
  absl::Status UpdateMoved(ExecutorState& state, const ExecuteParams& params)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mu);
  // Returns how many commands it updated.
  absl::StatusOr<int64_t> UpdateCommands(ExecutorState& state,
                                         const ExecuteParams& params,
                                         const std::vector<bool>& moved)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mu);
  absl::Status Submit(ExecutorState& state, const ExecuteParams& params)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mu);

  RecordParams MakeRecordParams(ExecutorState& state,
                                const ExecuteParams& params, int64_t thunk)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mu);
  std::vector<se::DeviceAddressBase> CurrentAddresses(
      const BufferAllocations& buffers) const;
  void DumpDot(const ExecutorState& state, const ExecuteParams& params) const
      ABSL_SHARED_LOCKS_REQUIRED(state.mu);
  absl::Status Annotate(const absl::Status& status) const;

  const std::unique_ptr<SequentialThunk> sequence_;
  // The allocations the thunks use, ascending.
  const std::vector<BufferAllocation::Index> allocations_;
  // By thunk: positions in `allocations_` of the allocations it uses.
  const std::vector<std::vector<int64_t>> thunk_allocations_;
  // By position in `allocations_`: whether some thunk writes it.
  const std::vector<bool> written_;
  const std::vector<std::vector<int64_t>> dependencies_;
  const std::vector<bool> critical_;

  // Guards the map only. Entries are added by Initialize and never removed,
  // so a state found under the lock stays valid after it is released.
  absl::Mutex mu_;
  absl::flat_hash_map<se::StreamExecutor*, std::unique_ptr<ExecutorState>>
      states_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_COMMAND_BUFFER_THUNK_H_
