#include "xla_lite/runtime/gpu_executable.h"

#include <optional>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/cached_allocator.h"
#include "xla_lite/runtime/executable_validation.h"

namespace xla_lite::gpu {

// What one execution obtained, by allocation index, and how it went.
struct GpuExecutable::RunState {
  RunState(int64_t allocation_count, std::shared_ptr<CachedAllocator> buffers)
      : addresses(allocation_count),
        owned(allocation_count),
        donated(allocation_count, false),
        cached(allocation_count, false),
        buffers(std::move(buffers)) {}

  std::vector<se::DeviceAddressBase> addresses;
  // Handles of `buffers` for everything the execution obtained: temps,
  // outputs, parameter copies, cached buffers and donated parameters.
  // Whatever is not handed out as a result is torn down, and `buffers`
  // keeps what its cache owns.
  std::vector<se::ScopedDeviceAddress> owned;
  // Parameter allocations whose buffer the caller donated.
  std::vector<bool> donated;
  // Allocations served from the cache.
  std::vector<bool> cached;
  // The executor's allocator, generation of this run; null when the
  // executor could not be initialized.
  std::shared_ptr<CachedAllocator> buffers;
  absl::Status status;
  // After the execution's work; null when that work is known complete.
  std::shared_ptr<se::Event> done;
  int64_t bytes_allocated = 0;
};

// The stable parameter buffers CommandBufferThunks copy moved parameters
// into, for one run: entries of the executor's cache.
class GpuExecutable::RunStableBuffers : public StableBuffers {
 public:
  RunStableBuffers(const GpuExecutable& executable,
                   se::DeviceAddressAllocator& from, RunState& run)
      : executable_(executable), from_(from), run_(run) {}

  bool IsEntryParameter(BufferAllocation::Index index) const override {
    return executable_.allocations_[index].is_entry_parameter();
  }
  absl::StatusOr<se::DeviceAddressBase> Get(
      BufferAllocation::Index index) override {
    ASSIGN_OR_RETURN(se::ScopedDeviceAddress buffer,
                     run_.buffers->AllocateCached(
                         from_, index, executable_.allocations_[index].size()));
    return buffer.Release();  // The cache keeps owning it.
  }

 private:
  const GpuExecutable& executable_;
  se::DeviceAddressAllocator& from_;
  RunState& run_;
};

namespace {

int DeviceOrdinal(const RunOptions& options) {
  return options.stream->parent()->device_ordinal();
}

// Records an event after everything enqueued on `stream` so far. Without an
// event nothing could tell when that work is done, so on failure the stream
// is drained instead and `done` left null (meaning "already complete").
absl::Status RecordCompletion(se::Stream* stream,
                              std::shared_ptr<se::Event>* done) {
  absl::StatusOr<std::unique_ptr<se::Event>> event =
      stream->parent()->CreateEvent();
  absl::Status status = event.status();
  if (status.ok()) status = stream->RecordEvent(event->get());
  if (status.ok()) {
    *done = std::move(*event);
    return absl::OkStatus();
  }
  done->reset();
  absl::Status drained = stream->BlockHostUntilDone();
  return absl::Status(
      status.code(),
      absl::StrCat(
          "recording the completion of an execution: ", status.message(),
          drained.ok()
              ? ""
              : absl::StrCat("; draining the stream: ", drained.message())));
}

// A failed execution hands the caller no output to wait on, yet the work
// it enqueued before failing may still read borrowed arguments (a
// parameter copied into its stable buffer) or write the caller's stream.
// Returning only once that work is done lets the caller free its buffers
// as soon as it sees the error. Without `done`, RecordCompletion already
// drained the stream.
absl::Status WaitForFailedRun(se::Event* done, const absl::Status& failure) {
  if (done == nullptr) return failure;
  absl::Status waited = done->Synchronize();
  if (waited.ok()) return failure;
  return absl::Status(
      failure.code(),
      absl::StrCat(failure.message(),
                   "; waiting for the work enqueued before the failure: ",
                   waited.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuExecutable>> GpuExecutable::Create(
    Params params) {
  BufferUses uses;
  for (const auto& thunk : params.thunks) {
    BufferUses inner = thunk->buffer_uses();
    uses.insert(uses.end(), inner.begin(), inner.end());
  }
  absl::Status valid = ValidateExecutable(params.signature, params.allocations,
                                          params.output_allocations, uses);
  if (!valid.ok()) {
    return absl::Status(
        valid.code(), absl::StrCat(params.module_name, ": ", valid.message()));
  }
  std::vector<BufferAllocation::Index> parameter_allocations(
      params.signature.parameter_shapes.size());
  for (const BufferAllocation& allocation : params.allocations) {
    if (allocation.is_entry_parameter()) {
      parameter_allocations[allocation.parameter_number()] = allocation.index();
    }
  }
  return absl::WrapUnique(
      new GpuExecutable(std::move(params), std::move(parameter_allocations)));
}

GpuExecutable::GpuExecutable(
    Params params, std::vector<BufferAllocation::Index> parameter_allocations)
    : module_name_(std::move(params.module_name)),
      thunks_(std::make_unique<SequentialThunk>(module_name_,
                                                std::move(params.thunks))),
      allocations_(std::move(params.allocations)),
      output_allocations_(std::move(params.output_allocations)),
      parameter_allocations_(std::move(parameter_allocations)),
      signature_(std::move(params.signature)),
      debug_options_(std::move(params.debug_options)),
      kernel_preload_(std::move(params.kernel_preload)),
      device_setup_(std::move(params.device_setup)),
      use_cached_allocs_(
          debug_options_.xla_gpu_command_buffer_use_cached_allocs()),
      stabilize_parameters_(
          debug_options_.xla_gpu_command_buffer_parameter_stabilization() !=
          DebugOptions::PARAMETER_STABILIZATION_NONE),
      ordered_(use_cached_allocs_ || stabilize_parameters_),
      stats_(std::make_shared<ExecutionStats>()),
      deallocator_(std::make_shared<DeferredDeallocator>()) {}

GpuExecutable::~GpuExecutable() {
  // Before the device memory goes: the setup uses the device too.
  if (kernel_preload_ != nullptr) {
    // Kernels nobody will launch need not finish loading.
    kernel_preload_->Stop();
    kernel_preload_->Wait();
  }
  if (device_setup_.valid()) device_setup_.wait();
  // Constants, cached buffers and loaded kernels may be in use by queued
  // work until every execution has completed.
  absl::Status status = deallocator_->WaitAndFreeAll();
  if (!status.ok()) LOG(ERROR) << module_name_ << ": " << status;
  for (const absl::Status& failure : ReleaseCaches()) {
    LOG(ERROR) << module_name_ << ": " << failure;
  }
  absl::MutexLock lock(&executors_mu_);
  for (auto& [executor, state] : executors_) {
    status = FreeBuffers(state->constants, /*allocator=*/nullptr,
                         /*stats=*/nullptr);
    if (!status.ok()) {
      LOG(ERROR) << module_name_ << ": freeing constants on device "
                 << executor->device_ordinal() << ": " << status;
    }
  }
  VLOG(1) << module_name_ << ": destroyed after " << stats_->ToString();
}

absl::Status GpuExecutable::WaitForOutstandingWork() {
  return deallocator_->WaitAndFreeAll();
}

absl::StatusOr<ExecutionOutput> GpuExecutable::ExecuteAsyncOnStream(
    const RunOptions& options, std::vector<ExecutionInput> arguments) {
  RETURN_IF_ERROR(CheckRunOptions(options));
  std::shared_ptr<ExecutionStats> stats =
      options.stats != nullptr ? options.stats : stats_;
  deallocator_->Poll();
  absl::StatusOr<ExecutorState*> state =
      GetOrInitializeExecutorState(options.stream, stats.get());
  if (!state.ok()) {
    return FailBeforeRun(options, arguments, std::move(stats), state.status());
  }
  if (!ordered_) {
    return ExecuteUnordered(options, arguments, std::move(stats), **state);
  }
  absl::MutexLock lock(&(*state)->order_mu);
  return ExecuteOrdered(options, arguments, std::move(stats), **state);
}

absl::StatusOr<ExecutionOutput> GpuExecutable::ExecuteOrdered(
    const RunOptions& options, std::vector<ExecutionInput>& arguments,
    std::shared_ptr<ExecutionStats> stats, ExecutorState& state) {
  RunState run(allocations_.size(), state.buffers);
  if (state.last_done != nullptr && state.last_stream != options.stream) {
    run.status = options.stream->WaitFor(state.last_done.get());
  }
  Enqueue(options, arguments, state, stats.get(), run);
  state.last_done = run.done;
  state.last_stream = options.stream;
  return Finish(options, arguments, std::move(stats), run);
}

absl::StatusOr<ExecutionOutput> GpuExecutable::ExecuteUnordered(
    const RunOptions& options, std::vector<ExecutionInput>& arguments,
    std::shared_ptr<ExecutionStats> stats, ExecutorState& state) {
  RunState run(allocations_.size(), state.CurrentBuffers());
  Enqueue(options, arguments, state, stats.get(), run);
  return Finish(options, arguments, std::move(stats), run);
}

absl::Status GpuExecutable::FailBeforeRun(
    const RunOptions& options, std::vector<ExecutionInput>& arguments,
    std::shared_ptr<ExecutionStats> stats, absl::Status status) {
  RunState run(allocations_.size(), /*buffers=*/nullptr);
  run.status = std::move(status);
  // Donated arguments are freed only after the work enqueued before. A
  // failure to record that is secondary to `status`, the one reported.
  RecordCompletion(options.stream, &run.done).IgnoreError();
  return Finish(options, arguments, std::move(stats), run).status();
}

void GpuExecutable::Enqueue(const RunOptions& options,
                            std::vector<ExecutionInput>& arguments,
                            ExecutorState& state, ExecutionStats* stats,
                            RunState& run) {
  if (run.status.ok()) run.status = Run(options, arguments, state, stats, run);
  absl::Status recorded = RecordCompletion(options.stream, &run.done);
  if (run.status.ok()) run.status = std::move(recorded);
}

absl::StatusOr<ExecutionOutput> GpuExecutable::Finish(
    const RunOptions& options, std::vector<ExecutionInput>& arguments,
    std::shared_ptr<ExecutionStats> stats, RunState& run) {
  ExecutionOutput output;
  if (run.status.ok()) output = MakeOutput(run, stats);
  // Also on failure: work enqueued before it may use these buffers.
  std::vector<se::ScopedDeviceAddress> teardown;
  for (se::ScopedDeviceAddress& buffer : run.owned) {
    if (!buffer.is_null()) teardown.push_back(std::move(buffer));
  }
  for (ExecutionInput& argument : arguments) {
    se::ScopedDeviceAddress unused = argument.TakeOwnership();
    if (unused.is_null()) continue;
    if (run.buffers != nullptr) unused = run.buffers->Adopt(std::move(unused));
    teardown.push_back(std::move(unused));
  }
  // Deferred even when empty: the executable's destructor waits for `done`.
  deallocator_->Defer(run.done, std::move(teardown), run.buffers, stats);

  if (!run.status.ok()) {
    ++stats->failed_executions;
    return WaitForFailedRun(run.done.get(), run.status);
  }
  ++stats->executions;
  VLOG(3) << module_name_ << ": enqueued on device " << DeviceOrdinal(options)
          << ", " << run.bytes_allocated << " bytes allocated";
  VLOG(1) << module_name_ << ": " << stats->ToString();
  return output;
}

absl::StatusOr<se::DeviceAddressBase> GpuExecutable::StableParameterBuffer(
    const RunOptions& options, int64_t parameter_number) {
  RETURN_IF_ERROR(CheckRunOptions(options));
  if (debug_options_.xla_gpu_command_buffer_parameter_stabilization() !=
      DebugOptions::PARAMETER_STABILIZATION_STAGED) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: stable parameter buffers are handed out only with "
                        "PARAMETER_STABILIZATION_STAGED",
                        module_name_));
  }
  if (parameter_number < 0 ||
      parameter_number >= parameter_allocations_.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: no parameter %d; there are %d", module_name_,
                        parameter_number, parameter_allocations_.size()));
  }
  ASSIGN_OR_RETURN(ExecutorState * state,
                   GetOrInitializeExecutorState(options.stream, stats_.get()));
  const BufferAllocation& allocation =
      allocations_[parameter_allocations_[parameter_number]];
  absl::MutexLock lock(&state->order_mu);
  ASSIGN_OR_RETURN(
      se::ScopedDeviceAddress buffer,
      state->buffers->AllocateCached(*options.allocator, allocation.index(),
                                     allocation.size()));
  return buffer.Release();  // The cache keeps owning it.
}

absl::Status GpuExecutable::ReleaseCachedAllocations() {
  std::vector<absl::Status> failures;
  absl::Status waited = deallocator_->WaitAndFreeAll();
  if (!waited.ok()) failures.push_back(waited);
  for (absl::Status& failure : ReleaseCaches()) failures.push_back(failure);
  if (failures.empty()) return absl::OkStatus();
  std::string message = absl::StrFormat(
      "%s: %d failures releasing cached allocations:", module_name_,
      failures.size());
  for (const absl::Status& failure : failures) {
    absl::StrAppend(&message, "\n  ", failure.ToString());
  }
  return absl::Status(failures.front().code(), message);
}

std::vector<absl::Status> GpuExecutable::ReleaseCaches() {
  std::vector<absl::Status> failures;
  // Without ordering nothing is ever cached.
  if (!ordered_) return failures;
  absl::MutexLock lock(&executors_mu_);
  for (auto& [executor, state] : executors_) {
    absl::MutexLock order(&state->order_mu);
    // The last execution on the device covers all earlier ones, which it
    // waited for.
    if (state->last_done != nullptr) {
      absl::Status done = state->last_done->Synchronize();
      if (!done.ok()) done = executor->SynchronizeAllActivity();
      if (!done.ok()) {
        failures.push_back(absl::Status(
            done.code(),
            absl::StrFormat("device %d: cached buffers kept, since its work "
                            "could not be waited for: %s",
                            executor->device_ordinal(), done.message())));
        continue;
      }
    }
    for (absl::Status& failure : state->buffers->ReleaseCache()) {
      failures.push_back(std::move(failure));
    }
    // Handles of the released buffers may outlive this (results nobody
    // dropped); the spent allocator keeps refusing them, while later
    // executions cache anew in a fresh one.
    state->buffers = std::make_shared<CachedAllocator>(
        executor->platform(), executor->device_ordinal());
  }
  return failures;
}

absl::Status GpuExecutable::CheckRunOptions(const RunOptions& options) const {
  if (options.stream == nullptr || options.allocator == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: run options need a stream and an allocator", module_name_));
  }
  se::StreamExecutor* executor = options.stream->parent();
  if (options.device_ordinal >= 0 &&
      options.device_ordinal != executor->device_ordinal()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: run options name device %d but the stream is on device %d",
        module_name_, options.device_ordinal, executor->device_ordinal()));
  }
  if (options.allocator->platform() != executor->platform()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the allocator is for another platform than the stream",
        module_name_));
  }
  return absl::OkStatus();
}

absl::Status GpuExecutable::CheckArguments(
    absl::Span<const ExecutionInput> arguments) const {
  if (arguments.size() != parameter_allocations_.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: expected %d arguments, got %d", module_name_,
                        parameter_allocations_.size(), arguments.size()));
  }
  for (int64_t p = 0; p < arguments.size(); ++p) {
    const BufferAllocation& allocation =
        allocations_[parameter_allocations_[p]];
    const se::DeviceAddressBase& buffer = arguments[p].buffer();
    const Shape& shape = signature_.parameter_shapes[p];
    if (buffer.size() != allocation.size() ||
        (buffer.is_null() && allocation.size() > 0)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: parameter %d (%s) needs a buffer of %d bytes, got %s",
          module_name_, p, shape.ToString(), allocation.size(),
          buffer.ToString()));
    }
    if (reinterpret_cast<uintptr_t>(buffer.opaque()) % allocation.alignment()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: parameter %d buffer %s is not aligned to %d bytes", module_name_,
          p, buffer.ToString(), allocation.alignment()));
    }
    const InputOutputAlias* alias = signature_.AliasOfParameter(p);
    if (alias != nullptr && alias->kind == InputOutputAlias::Kind::kMustAlias &&
        !arguments[p].is_donated()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: parameter %d (%s) must be donated: %s", module_name_, p,
          shape.ToString(), alias->ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status GpuExecutable::Run(const RunOptions& options,
                                std::vector<ExecutionInput>& arguments,
                                ExecutorState& state, ExecutionStats* stats,
                                RunState& run) {
  RETURN_IF_ERROR(CheckArguments(arguments));
  for (const BufferAllocation& allocation : allocations_) {
    ASSIGN_OR_RETURN(
        run.addresses[allocation.index()],
        BufferForAllocation(allocation, options, arguments, state, stats, run));
  }
  BufferAllocations buffers(run.addresses, DeviceOrdinal(options));
  VLOG(3) << module_name_ << ": buffers " << buffers.ToString();
  Thunk::ExecuteParams params;
  params.buffer_allocations = &buffers;
  params.stream = options.stream;
  params.debug_options = &debug_options_;
  params.stats = stats;
  params.profiler = options.profiler;
  params.collectives = options.collectives;
  RunStableBuffers stable_buffers(*this, *options.allocator, run);
  if (stabilize_parameters_) params.stable_buffers = &stable_buffers;
  RETURN_IF_ERROR(thunks_->ExecuteOnStream(params));
  return CopyCachedResults(options, stats, run);
}

absl::Status GpuExecutable::CopyCachedResults(const RunOptions& options,
                                              ExecutionStats* stats,
                                              RunState& run) {
  if (!options.copy_cached_results) return absl::OkStatus();
  for (BufferAllocation::Index index : output_allocations_) {
    if (!run.cached[index]) continue;
    int64_t size = allocations_[index].size();
    ASSIGN_OR_RETURN(se::ScopedDeviceAddress copy,
                     run.buffers->Allocate(*options.allocator, size));
    RETURN_IF_ERROR(
        options.stream->Memcpy(copy.ptr(), run.addresses[index], size));
    // The cached buffer's handle goes: a refused free.
    run.owned[index] = std::move(copy);
    run.cached[index] = false;
    ++stats->cached_results_copied;
  }
  return absl::OkStatus();
}

absl::StatusOr<se::DeviceAddressBase> GpuExecutable::BufferForAllocation(
    const BufferAllocation& allocation, const RunOptions& options,
    std::vector<ExecutionInput>& arguments, const ExecutorState& state,
    ExecutionStats* stats, RunState& run) {
  switch (allocation.kind()) {
    case BufferAllocation::Kind::kParameter:
      return ParameterBuffer(allocation, options,
                             arguments[allocation.parameter_number()], stats,
                             run);
    case BufferAllocation::Kind::kConstant:
      return state.constants[allocation.index()].cref();
    case BufferAllocation::Kind::kTemp:
    case BufferAllocation::Kind::kOutput:
      break;
  }
  if (allocation.size() == 0) return se::DeviceAddressBase();
  if (use_cached_allocs_) return CachedBuffer(allocation, options, stats, run);
  return OwnedBuffer(allocation, options, stats, run);
}

absl::StatusOr<se::DeviceAddressBase> GpuExecutable::ParameterBuffer(
    const BufferAllocation& allocation, const RunOptions& options,
    ExecutionInput& argument, ExecutionStats* stats, RunState& run) {
  BufferAllocation::Index index = allocation.index();
  if (argument.is_donated()) {
    // Adopted, so that its free is refused if the caller handed back a
    // buffer of the cache.
    run.owned[index] = run.buffers->Adopt(argument.TakeOwnership());
    run.donated[index] = true;
    return argument.buffer();
  }
  if (signature_.AliasOfParameter(allocation.parameter_number()) == nullptr ||
      allocation.size() == 0) {
    return argument.buffer();
  }
  // The thunks write the aliased output into this allocation, and the
  // caller kept the buffer, so the execution works on a copy.
  ASSIGN_OR_RETURN(se::DeviceAddressBase copy,
                   use_cached_allocs_
                       ? CachedBuffer(allocation, options, stats, run)
                       : OwnedBuffer(allocation, options, stats, run));
  // A caller that passes back the view of an earlier result has nothing
  // to protect: that buffer is the cache's.
  if (copy == argument.buffer()) return copy;
  RETURN_IF_ERROR(
      options.stream->Memcpy(&copy, argument.buffer(), allocation.size()));
  ++stats->parameter_copies;
  stats->parameter_copy_bytes += allocation.size();
  return copy;
}

absl::StatusOr<se::DeviceAddressBase> GpuExecutable::CachedBuffer(
    const BufferAllocation& allocation, const RunOptions& options,
    ExecutionStats* stats, RunState& run) {
  BufferAllocation::Index index = allocation.index();
  ASSIGN_OR_RETURN(run.owned[index],
                   run.buffers->AllocateCached(*options.allocator, index,
                                               allocation.size()));
  run.cached[index] = true;
  ++stats->cached_buffers_used;
  return run.owned[index].cref();
}

absl::StatusOr<se::DeviceAddressBase> GpuExecutable::OwnedBuffer(
    const BufferAllocation& allocation, const RunOptions& options,
    ExecutionStats* stats, RunState& run) {
  BufferAllocation::Index index = allocation.index();
  ASSIGN_OR_RETURN(run.owned[index], run.buffers->Allocate(*options.allocator,
                                                           allocation.size()));
  run.bytes_allocated += allocation.size();
  ++stats->buffers_allocated;
  stats->bytes_allocated += allocation.size();
  return run.owned[index].cref();
}

ExecutionOutput GpuExecutable::MakeOutput(
    RunState& run, std::shared_ptr<ExecutionStats> stats) {
  std::vector<se::ScopedDeviceAddress> results;
  std::vector<std::optional<int64_t>> aliased_parameters;
  for (int64_t i = 0; i < output_allocations_.size(); ++i) {
    BufferAllocation::Index index = output_allocations_[i];
    // Cached ones too: their handles' frees are refused.
    results.push_back(std::move(run.owned[index]));
    std::optional<int64_t> parameter;
    if (run.donated[index]) {
      parameter = allocations_[index].parameter_number();
      ++stats->donated_buffers_reused;
    }
    aliased_parameters.push_back(parameter);
  }
  return ExecutionOutput(std::move(results), std::move(aliased_parameters),
                         run.done, deallocator_, run.buffers, std::move(stats));
}

}  // namespace xla_lite::gpu
