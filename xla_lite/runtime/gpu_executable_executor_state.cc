// GpuExecutable's per-executor state: made once per device, on its first
// execution there (constants uploaded, kernels loaded, thunks initialized),
// and found by every later one.

#include "xla_lite/runtime/gpu_executable.h"

#include <memory>
#include <utility>

#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/cached_allocator.h"

namespace xla_lite::gpu {

GpuExecutable::ExecutorState::ExecutorState(se::StreamExecutor* executor)
    : constants_allocator(
          std::make_unique<se::StreamExecutorAllocator>(executor)),
      buffers(std::make_shared<CachedAllocator>(executor->platform(),
                                                executor->device_ordinal())) {}
GpuExecutable::ExecutorState::~ExecutorState() = default;

std::shared_ptr<CachedAllocator>
GpuExecutable::ExecutorState::CurrentBuffers() {
  absl::MutexLock lock(&order_mu);
  return buffers;
}

absl::StatusOr<GpuExecutable::ExecutorState*>
GpuExecutable::GetOrInitializeExecutorState(se::Stream* stream,
                                            ExecutionStats* stats) {
  // One lock for lookup and initialization: initialization happens once per
  // executor, and a second execution must not see a half-initialized state.
  absl::MutexLock lock(&executors_mu_);
  auto it = executors_.find(stream->parent());
  if (it != executors_.end()) return it->second.get();
  ASSIGN_OR_RETURN(std::unique_ptr<ExecutorState> state,
                   InitializeExecutor(stream, stats));
  ExecutorState* result = state.get();
  executors_.emplace(stream->parent(), std::move(state));
  return result;
}

absl::StatusOr<std::unique_ptr<GpuExecutable::ExecutorState>>
GpuExecutable::InitializeExecutor(se::Stream* stream, ExecutionStats* stats) {
  se::StreamExecutor* executor = stream->parent();
  auto state = std::make_unique<ExecutorState>(executor);
  state->constants.resize(allocations_.size());
  for (const BufferAllocation& allocation : allocations_) {
    if (!allocation.is_constant() || allocation.size() == 0) continue;
    se::ScopedDeviceAddress& buffer = state->constants[allocation.index()];
    ASSIGN_OR_RETURN(
        buffer, state->constants_allocator->Allocate(executor->device_ordinal(),
                                                     allocation.size()));
    // Synchronous, so that executions on any stream of this executor see
    // the data without an extra dependency.
    RETURN_IF_ERROR(executor->SynchronousMemcpyH2D(
        allocation.constant_bytes().data(), allocation.size(), buffer.ptr()));
    ++stats->constants_uploaded;
    stats->constant_bytes_uploaded += allocation.size();
  }
  if (kernel_preload_ != nullptr && kernel_preload_->executor() == executor) {
    kernel_preload_->Wait();
  }
  RETURN_IF_ERROR(thunks_->Initialize(
      Thunk::InitializeParams{executor, stream, &debug_options_}));
  // After the kernels load, which it overlaps.
  if (device_setup_.valid()) device_setup_.wait();
  VLOG(1) << module_name_ << ": initialized on device "
          << executor->device_ordinal();
  return state;
}

}  // namespace xla_lite::gpu
