#ifndef XLA_LITE_RUNTIME_GPU_EXECUTABLE_H_
#define XLA_LITE_RUNTIME_GPU_EXECUTABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/deferred_deallocator.h"
#include "xla_lite/runtime/entry_signature.h"
#include "xla_lite/runtime/execution_input.h"
#include "xla_lite/runtime/execution_output.h"
#include "xla_lite/runtime/execution_stats.h"
#include "xla_lite/runtime/run_options.h"
#include "xla_lite/runtime/sequential_thunk.h"

namespace xla_lite::gpu {

// A compiled program: a sequence of thunks over a buffer assignment, plus
// the entry signature callers see. Thread-safe: executions may run
// concurrently, on several streams and devices.
//
// Buffer lifetime. An execution enqueues its work and returns; every buffer
// it frees itself (temps, results nobody keeps, donated parameters it does
// not reuse) is handed to a DeferredDeallocator together with an event
// recorded after the execution's work, and freed only once that event has
// completed. Constants live until the executable is destroyed; the
// destructor first waits for the work of every execution, on every stream
// it ran on. Deallocation failures are collected and returned by
// WaitForOutstandingWork (or logged by the destructor).
//
// Per-executor state (constants, loaded kernels) is keyed by executor, so
// every executor the executable runs on must outlive it.
class GpuExecutable {
 public:
  struct Params {
    std::string module_name;
    ThunkSequence thunks;
    // allocations[i].index() == i.
    std::vector<BufferAllocation> allocations;
    // The allocation that holds each output tuple element, whole.
    std::vector<BufferAllocation::Index> output_allocations;
    EntrySignature signature;
    DebugOptions debug_options;
  };

  // INVALID_ARGUMENT when the pieces disagree (see ValidateExecutable).
  static absl::StatusOr<std::unique_ptr<GpuExecutable>> Create(Params params);

  ~GpuExecutable();
  GpuExecutable(const GpuExecutable&) = delete;
  GpuExecutable& operator=(const GpuExecutable&) = delete;

  // Enqueues one execution on options.stream and returns without waiting.
  // arguments[p] is parameter p. A donated parameter's buffer becomes the
  // result it aliases; a borrowed parameter that an output may alias is
  // copied first, so the caller's contents survive; a must-alias parameter
  // has to be donated (INVALID_ARGUMENT otherwise). Donated buffers that
  // are not reused are freed after the execution, also when it fails (at
  // once only when the options name no stream to order the free after).
  absl::StatusOr<ExecutionOutput> ExecuteAsyncOnStream(
      const RunOptions& options, std::vector<ExecutionInput> arguments);

  // Waits for the work of every execution so far, frees what they left to
  // free, and returns every deallocation failure not yet reported.
  absl::Status WaitForOutstandingWork();

  const std::string& module_name() const { return module_name_; }
  const EntrySignature& signature() const { return signature_; }
  absl::Span<const BufferAllocation> allocations() const {
    return allocations_;
  }
  const SequentialThunk& thunks() const { return *thunks_; }
  // Counters of executions run without a stats sink of their own.
  const ExecutionStats& stats() const { return *stats_; }

 private:
  // What lives on one executor for the executable's whole life.
  struct ExecutorState {
    std::unique_ptr<se::StreamExecutorAllocator> allocator;
    // By allocation index; null except for constants.
    std::vector<se::ScopedDeviceAddress> constants;
  };
  struct RunState;

  GpuExecutable(Params params,
                std::vector<BufferAllocation::Index> parameter_allocations);

  // Uploads constants and initializes thunks the first time an executor is
  // seen. The state is published only after everything succeeded, so a
  // failed attempt is retried by the next execution.
  absl::StatusOr<const ExecutorState*> GetOrInitializeExecutorState(
      se::Stream* stream, ExecutionStats* stats);
  absl::StatusOr<std::unique_ptr<ExecutorState>> InitializeExecutor(
      se::Stream* stream, ExecutionStats* stats);

  absl::Status CheckRunOptions(const RunOptions& options) const;
  absl::Status CheckArguments(absl::Span<const ExecutionInput> arguments) const;

  // Everything up to enqueuing the last thunk; the buffers it obtains are
  // recorded in `run` even when it fails, so they can be torn down.
  absl::Status Run(const RunOptions& options,
                   std::vector<ExecutionInput>& arguments,
                   ExecutionStats* stats, RunState& run);

  // The one place that decides where an allocation's memory comes from for
  // an execution: the caller's buffer (or a copy of it) for a parameter,
  // the executor's upload for a constant, the run's allocator for temps and
  // outputs. Memory the execution owns is recorded in `run`.
  absl::StatusOr<se::DeviceAddressBase> BufferForAllocation(
      const BufferAllocation& allocation, const RunOptions& options,
      std::vector<ExecutionInput>& arguments, const ExecutorState& state,
      ExecutionStats* stats, RunState& run);
  absl::StatusOr<se::DeviceAddressBase> ParameterBuffer(
      const BufferAllocation& allocation, const RunOptions& options,
      ExecutionInput& argument, ExecutionStats* stats, RunState& run);

  ExecutionOutput MakeOutput(RunState& run, std::shared_ptr<se::Event> done,
                             std::shared_ptr<ExecutionStats> stats);

  const std::string module_name_;
  const std::unique_ptr<SequentialThunk> thunks_;
  const std::vector<BufferAllocation> allocations_;
  const std::vector<BufferAllocation::Index> output_allocations_;
  // Allocation index of each parameter.
  const std::vector<BufferAllocation::Index> parameter_allocations_;
  const EntrySignature signature_;
  const DebugOptions debug_options_;

  const std::shared_ptr<ExecutionStats> stats_;
  // Shared with ExecutionOutputs, which may outlive the executable.
  const std::shared_ptr<DeferredDeallocator> deallocator_;

  // Entries are added once and never removed before destruction, so a
  // pointer to one stays valid without the lock.
  absl::Mutex executors_mu_;
  absl::flat_hash_map<se::StreamExecutor*, std::unique_ptr<ExecutorState>>
      executors_ ABSL_GUARDED_BY(executors_mu_);
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_GPU_EXECUTABLE_H_
