#ifndef XLA_LITE_RUNTIME_GPU_EXECUTABLE_H_
#define XLA_LITE_RUNTIME_GPU_EXECUTABLE_H_

#include <future>
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
#include "xla_lite/runtime/kernel_preload.h"
#include "xla_lite/runtime/run_options.h"
#include "xla_lite/runtime/sequential_thunk.h"

namespace xla_lite::gpu {

class CachedAllocator;

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
// Allocation. Everything an execution obtains on a device, and every free
// of it, goes through one CachedAllocator per device (private to this
// class): memory comes from the run's allocator, and a free of a buffer the
// cache holds is refused under the cache's lock, so no teardown path can
// free a cached buffer. With DebugOptions'
// xla_gpu_command_buffer_use_cached_allocs, temps and results are cached
// by allocation index, so every execution on a device sees the same
// addresses and recorded command buffers replay without updates. Results
// served from the cache are views: valid until the next execution on that
// device, unless RunOptions::copy_cached_results asks for owned copies.
// With parameter stabilization (COPY or STAGED) each entry parameter also
// gets a stable buffer there (see CommandBufferThunk). Executions that
// share cached buffers on one device are ordered on the device: each waits
// for the previous one, whatever stream it ran on. Cached buffers are
// allocated from the run's allocator, which must then outlive the
// executable (or ReleaseCachedAllocations).
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
    // The compiler's loading of the program's kernels. The first
    // initialization on its executor waits for it before loading them
    // itself, then finds them loaded; destruction stops it. May be null.
    std::shared_ptr<KernelPreload> kernel_preload;
    // Work the compiler left running on the device (the BLAS warm-up of
    // its library thread). Initialization waits for it after loading the
    // kernels, so that executions start with the library set up and the
    // warm-up's stream and scratch gone; destruction joins it, so that it
    // never outlives the executable. May be empty.
    std::shared_future<void> device_setup;
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
  // A failed execution returns only after the work it enqueued is done,
  // so the caller, who has no output to wait on, may free borrowed
  // arguments at once.
  absl::StatusOr<ExecutionOutput> ExecuteAsyncOnStream(
      const RunOptions& options, std::vector<ExecutionInput> arguments);

  // Waits for the work of every execution so far, frees what they left to
  // free, and returns every deallocation failure not yet reported.
  absl::Status WaitForOutstandingWork();

  // The stable buffer of entry parameter `parameter_number` on the device
  // of options.stream, allocated from options.allocator on first use.
  // Under PARAMETER_STABILIZATION_STAGED a training loop writes the next
  // batch straight into it (on the execution stream, so after the previous
  // execution has read it) and passes it as the argument: executions then
  // copy nothing. FAILED_PRECONDITION in other modes.
  absl::StatusOr<se::DeviceAddressBase> StableParameterBuffer(
      const RunOptions& options, int64_t parameter_number);

  // Waits for all work, then frees every cached and stable buffer through
  // the allocator that made it, trying them all. Returns every failure,
  // each naming the allocation index, size and device. Results served
  // from the cache are invalid afterwards; later executions allocate anew.
  absl::Status ReleaseCachedAllocations();

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
    explicit ExecutorState(se::StreamExecutor* executor);
    ~ExecutorState();

    // The current generation of `buffers`; takes order_mu, so only for
    // executions that do not hold it already.
    std::shared_ptr<CachedAllocator> CurrentBuffers()
        ABSL_LOCKS_EXCLUDED(order_mu);

    // Constants are uploaded once per executor and freed at destruction.
    std::unique_ptr<se::StreamExecutorAllocator> constants_allocator;
    // By allocation index; null except for constants.
    std::vector<se::ScopedDeviceAddress> constants;

    // When the executable caches (cached allocations or parameter
    // stabilization), held from the first buffer an execution takes until
    // its completion event is recorded, so executions sharing cached
    // buffers are enqueued one after another, each after the previous
    // one's event.
    absl::Mutex order_mu;
    // Every buffer executions obtain on this executor, cached or not, goes
    // through here. ReleaseCachedAllocations replaces it with a fresh one,
    // and the spent one lives on as long as handles of its buffers do.
    std::shared_ptr<CachedAllocator> buffers ABSL_GUARDED_BY(order_mu);
    std::shared_ptr<se::Event> last_done ABSL_GUARDED_BY(order_mu);
    se::Stream* last_stream ABSL_GUARDED_BY(order_mu) = nullptr;
  };
  struct RunState;
  class RunStableBuffers;

  GpuExecutable(Params params,
                std::vector<BufferAllocation::Index> parameter_allocations);

  // Uploads constants and initializes thunks the first time an executor is
  // seen. The state is published only after everything succeeded, so a
  // failed attempt is retried by the next execution.
  absl::StatusOr<ExecutorState*> GetOrInitializeExecutorState(
      se::Stream* stream, ExecutionStats* stats);
  absl::StatusOr<std::unique_ptr<ExecutorState>> InitializeExecutor(
      se::Stream* stream, ExecutionStats* stats);

  absl::Status CheckRunOptions(const RunOptions& options) const;

  // One execution of an executable that caches buffers, ordered after the
  // previous one on the device, which shares them.
  absl::StatusOr<ExecutionOutput> ExecuteOrdered(
      const RunOptions& options, std::vector<ExecutionInput>& arguments,
      std::shared_ptr<ExecutionStats> stats, ExecutorState& state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.order_mu);
  // One execution of an executable that caches nothing: no buffer is
  // shared, so nothing to order.
  absl::StatusOr<ExecutionOutput> ExecuteUnordered(
      const RunOptions& options, std::vector<ExecutionInput>& arguments,
      std::shared_ptr<ExecutionStats> stats, ExecutorState& state);
  // An execution that failed before it could start: `status` says why.
  absl::Status FailBeforeRun(const RunOptions& options,
                             std::vector<ExecutionInput>& arguments,
                             std::shared_ptr<ExecutionStats> stats,
                             absl::Status status);
  // Runs the thunks unless `run` already failed, then records the
  // completion event; errors go to run.status.
  void Enqueue(const RunOptions& options,
               std::vector<ExecutionInput>& arguments, ExecutorState& state,
               ExecutionStats* stats, RunState& run);
  // The output, or the error, of an enqueued execution; everything it owns
  // and does not return is handed to the deferred teardown.
  absl::StatusOr<ExecutionOutput> Finish(const RunOptions& options,
                                         std::vector<ExecutionInput>& arguments,
                                         std::shared_ptr<ExecutionStats> stats,
                                         RunState& run);
  // Frees every cached buffer once all work is done and starts a new
  // generation of each executor's allocator; one status per failure.
  std::vector<absl::Status> ReleaseCaches();
  absl::Status CheckArguments(absl::Span<const ExecutionInput> arguments) const;

  // Everything up to enqueuing the last thunk; the buffers it obtains are
  // recorded in `run` even when it fails, so they can be torn down.
  absl::Status Run(const RunOptions& options,
                   std::vector<ExecutionInput>& arguments, ExecutorState& state,
                   ExecutionStats* stats, RunState& run);
  // Results served from the cache, copied into buffers the caller owns.
  absl::Status CopyCachedResults(const RunOptions& options,
                                 ExecutionStats* stats, RunState& run);

  // The one place that decides where an allocation's memory comes from for
  // an execution: the caller's buffer (or a copy of it) for a parameter,
  // the executor's upload for a constant, the cache or the run's allocator
  // for temps and outputs. What the execution obtains goes through
  // run.buffers and is recorded in `run`.
  absl::StatusOr<se::DeviceAddressBase> BufferForAllocation(
      const BufferAllocation& allocation, const RunOptions& options,
      std::vector<ExecutionInput>& arguments, const ExecutorState& state,
      ExecutionStats* stats, RunState& run);
  // A cached buffer for `allocation`, counted in `stats` and marked in `run`.
  absl::StatusOr<se::DeviceAddressBase> CachedBuffer(
      const BufferAllocation& allocation, const RunOptions& options,
      ExecutionStats* stats, RunState& run);
  // An uncached buffer for `allocation`, counted in `stats`, owned by `run`.
  absl::StatusOr<se::DeviceAddressBase> OwnedBuffer(
      const BufferAllocation& allocation, const RunOptions& options,
      ExecutionStats* stats, RunState& run);
  absl::StatusOr<se::DeviceAddressBase> ParameterBuffer(
      const BufferAllocation& allocation, const RunOptions& options,
      ExecutionInput& argument, ExecutionStats* stats, RunState& run);

  ExecutionOutput MakeOutput(RunState& run,
                             std::shared_ptr<ExecutionStats> stats);

  const std::string module_name_;
  const std::unique_ptr<SequentialThunk> thunks_;
  const std::vector<BufferAllocation> allocations_;
  const std::vector<BufferAllocation::Index> output_allocations_;
  // Allocation index of each parameter.
  const std::vector<BufferAllocation::Index> parameter_allocations_;
  const EntrySignature signature_;
  const DebugOptions debug_options_;
  // Params::kernel_preload and device_setup. Their waits are safe from any
  // thread.
  const std::shared_ptr<KernelPreload> kernel_preload_;
  const std::shared_future<void> device_setup_;
  // Read once from debug_options_.
  const bool use_cached_allocs_;
  const bool stabilize_parameters_;
  // Whether executions share cached buffers, and so are ordered per device.
  const bool ordered_;

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
