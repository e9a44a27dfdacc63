#include "xla_lite/runtime/gpu_executable.h"

#include <optional>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/allocations_cache.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/cached_allocator.h"
#include "xla_lite/runtime/executable_validation.h"

namespace xla_lite::gpu {

// What one execution obtained, by allocation index.
struct GpuExecutable::RunState {
  explicit RunState(int64_t allocation_count)
      : addresses(allocation_count),
        owned(allocation_count),
        donated(allocation_count, false),
        cached(allocation_count, false) {}

  std::vector<se::DeviceAddressBase> addresses;
  // Memory the execution owns: temps, outputs, parameter copies and donated
  // parameters. Whatever is not handed out as a result is torn down.
  std::vector<se::ScopedDeviceAddress> owned;
  // Parameter allocations whose buffer the caller donated.
  std::vector<bool> donated;
  // Allocations served from the executor's cache, which keeps owning them.
  std::vector<bool> cached;
  // The run's allocator wrapped around the executor's cache; null when the
  // executable uses no cache.
  std::unique_ptr<CachedAllocator> cached_allocator;
  // Cached buffers the cache replaced during the run; torn down with it.
  std::vector<se::ScopedDeviceAddress> retired;
  int device_ordinal = 0;
  int64_t bytes_allocated = 0;
};

// The stable parameter buffers CommandBufferThunks copy moved parameters
// into, for one run: entries of the executor's cache.
class GpuExecutable::RunStableBuffers : public StableBuffers {
 public:
  RunStableBuffers(const GpuExecutable& executable, RunState& run)
      : executable_(executable), run_(run) {}

  bool IsEntryParameter(BufferAllocation::Index index) const override {
    return executable_.allocations_[index].is_entry_parameter();
  }
  absl::StatusOr<se::DeviceAddressBase> Get(
      BufferAllocation::Index index) override {
    return run_.cached_allocator->AllocateCached(
        index, executable_.allocations_[index].size(), run_.retired);
  }

 private:
  const GpuExecutable& executable_;
  RunState& run_;
};

GpuExecutable::ExecutorState::ExecutorState() = default;
GpuExecutable::ExecutorState::~ExecutorState() = default;

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
      absl::StrCat("recording the completion of an execution: ",
                   status.message(),
                   drained.ok() ? "" : absl::StrCat("; draining the stream: ",
                                                    drained.message())));
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuExecutable>> GpuExecutable::Create(
    Params params) {
  BufferUses uses;
  for (const auto& thunk : params.thunks) {
    BufferUses inner = thunk->buffer_uses();
    uses.insert(uses.end(), inner.begin(), inner.end());
  }
  absl::Status valid =
      ValidateExecutable(params.signature, params.allocations,
                         params.output_allocations, uses);
  if (!valid.ok()) {
    return absl::Status(valid.code(),
                        absl::StrCat(params.module_name, ": ", valid.message()));
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
      use_cached_allocs_(
          debug_options_.xla_gpu_command_buffer_use_cached_allocs()),
      stabilize_parameters_(
          debug_options_.xla_gpu_command_buffer_parameter_stabilization() !=
          DebugOptions::PARAMETER_STABILIZATION_NONE),
      stats_(std::make_shared<ExecutionStats>()),
      deallocator_(std::make_shared<DeferredDeallocator>()) {}

GpuExecutable::~GpuExecutable() {
  // Constants, cached buffers and loaded kernels may be in use by queued
  // work until every execution has completed.
  absl::Status status = deallocator_->WaitAndFreeAll();
  if (!status.ok()) LOG(ERROR) << module_name_ << ": " << status;
  for (const absl::Status& failure : ReleaseCaches()) {
    LOG(ERROR) << module_name_ << ": " << failure;
  }
  absl::MutexLock lock(&executors_mu_);
  for (auto& [executor, state] : executors_) {
    status = FreeBuffers(state->constants, /*stats=*/nullptr);
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
  if (!state.ok() || (*state)->cache == nullptr) {
    return Execute(options, arguments, std::move(stats),
                   state.ok() ? *state : nullptr, state.status(),
                   /*ordered=*/false);
  }
  absl::MutexLock lock(&(*state)->order_mu);
  return Execute(options, arguments, std::move(stats), *state,
                 absl::OkStatus(), /*ordered=*/true);
}

absl::StatusOr<ExecutionOutput> GpuExecutable::Execute(
    const RunOptions& options, std::vector<ExecutionInput>& arguments,
    std::shared_ptr<ExecutionStats> stats, ExecutorState* state,
    absl::Status state_status, bool ordered)
    ABSL_NO_THREAD_SAFETY_ANALYSIS /* `ordered` says order_mu is held */ {
  RunState run(allocations_.size());
  absl::Status status = state_status;
  if (status.ok() && ordered && state->last_done != nullptr &&
      state->last_stream != options.stream) {
    status = options.stream->WaitFor(state->last_done.get());
  }
  if (status.ok()) status = Run(options, arguments, *state, stats.get(), run);
  std::shared_ptr<se::Event> done;
  absl::Status recorded = RecordCompletion(options.stream, &done);
  if (ordered) {
    state->last_done = done;
    state->last_stream = options.stream;
  }

  ExecutionOutput output;
  if (status.ok() && recorded.ok()) output = MakeOutput(run, done, stats);
  // Also on failure: work enqueued before it may use these buffers.
  std::vector<se::ScopedDeviceAddress> teardown = std::move(run.retired);
  for (se::ScopedDeviceAddress& buffer : run.owned) {
    if (!buffer.is_null()) teardown.push_back(std::move(buffer));
  }
  for (ExecutionInput& argument : arguments) {
    se::ScopedDeviceAddress unused = argument.TakeOwnership();
    if (!unused.is_null()) teardown.push_back(std::move(unused));
  }
  // Deferred even when empty: the executable's destructor waits for `done`.
  deallocator_->Defer(done, std::move(teardown), stats);

  if (!status.ok() || !recorded.ok()) {
    ++stats->failed_executions;
    return !status.ok() ? status : recorded;
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
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: stable parameter buffers are handed out only with "
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
  std::vector<se::ScopedDeviceAddress> retired;
  ASSIGN_OR_RETURN(se::DeviceAddressBase buffer,
                   state->cache->GetOrAllocate(allocation.index(),
                                               allocation.size(),
                                               *options.allocator, retired));
  // Sizes never change for one allocation, so nothing is ever replaced.
  CHECK(retired.empty());
  return buffer;
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
  absl::MutexLock lock(&executors_mu_);
  for (auto& [executor, state] : executors_) {
    if (state->cache == nullptr) continue;
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
    for (absl::Status& failure : state->cache->ReleaseAll()) {
      failures.push_back(std::move(failure));
    }
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
    const BufferAllocation& allocation = allocations_[parameter_allocations_[p]];
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
          "%s: parameter %d buffer %s is not aligned to %d bytes",
          module_name_, p, buffer.ToString(), allocation.alignment()));
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
  se::StreamExecutor* executor = options.stream->parent();
  run.device_ordinal = executor->device_ordinal();
  if (state.cache != nullptr) {
    run.cached_allocator = std::make_unique<CachedAllocator>(
        options.allocator, state.cache.get());
  }
  for (const BufferAllocation& allocation : allocations_) {
    ASSIGN_OR_RETURN(run.addresses[allocation.index()],
                     BufferForAllocation(allocation, options, arguments,
                                         state, stats, run));
  }
  BufferAllocations buffers(run.addresses, DeviceOrdinal(options));
  VLOG(3) << module_name_ << ": buffers " << buffers.ToString();
  Thunk::ExecuteParams params;
  params.buffer_allocations = &buffers;
  params.stream = options.stream;
  params.debug_options = &debug_options_;
  params.stats = stats;
  RunStableBuffers stable_buffers(*this, run);
  if (stabilize_parameters_) params.stable_buffers = &stable_buffers;
  RETURN_IF_ERROR(thunks_->ExecuteOnStream(params));
  return CopyCachedResults(options, stats, run);
}

absl::Status GpuExecutable::CopyCachedResults(const RunOptions& options,
                                              ExecutionStats* stats,
                                              RunState& run) {
  if (!options.copy_cached_results) return absl::OkStatus();
  for (BufferAllocation::Index index : output_allocations_) {
    if (!run.cached[index] || !run.owned[index].is_null()) continue;
    int64_t size = allocations_[index].size();
    ASSIGN_OR_RETURN(run.owned[index],
                     options.allocator->Allocate(DeviceOrdinal(options), size));
    RETURN_IF_ERROR(options.stream->Memcpy(run.owned[index].ptr(),
                                           run.addresses[index], size));
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
  if (use_cached_allocs_) return CachedBuffer(allocation, stats, run);
  ASSIGN_OR_RETURN(
      se::ScopedDeviceAddress buffer,
      options.allocator->Allocate(DeviceOrdinal(options), allocation.size()));
  se::DeviceAddressBase address = buffer.cref();
  run.owned[allocation.index()] = std::move(buffer);
  run.bytes_allocated += allocation.size();
  ++stats->buffers_allocated;
  stats->bytes_allocated += allocation.size();
  return address;
}

absl::StatusOr<se::DeviceAddressBase> GpuExecutable::ParameterBuffer(
    const BufferAllocation& allocation, const RunOptions& options,
    ExecutionInput& argument, ExecutionStats* stats, RunState& run) {
  BufferAllocation::Index index = allocation.index();
  if (argument.is_donated()) {
    run.owned[index] = argument.TakeOwnership();
    run.donated[index] = true;
    return argument.buffer();
  }
  if (signature_.AliasOfParameter(allocation.parameter_number()) == nullptr ||
      allocation.size() == 0) {
    return argument.buffer();
  }
  // The thunks write the aliased output into this allocation, and the
  // caller kept the buffer, so the execution works on a copy.
  if (use_cached_allocs_) {
    ASSIGN_OR_RETURN(se::DeviceAddressBase copy,
                     CachedBuffer(allocation, stats, run));
    // A caller that passes back the view of an earlier result has nothing
    // to protect: that buffer is the cache's.
    if (copy == argument.buffer()) return copy;
    RETURN_IF_ERROR(
        options.stream->Memcpy(&copy, argument.buffer(), allocation.size()));
    ++stats->parameter_copies;
    stats->parameter_copy_bytes += allocation.size();
    return copy;
  }
  ASSIGN_OR_RETURN(
      run.owned[index],
      options.allocator->Allocate(DeviceOrdinal(options), allocation.size()));
  RETURN_IF_ERROR(options.stream->Memcpy(run.owned[index].ptr(),
                                         argument.buffer(), allocation.size()));
  run.bytes_allocated += allocation.size();
  ++stats->buffers_allocated;
  stats->bytes_allocated += allocation.size();
  ++stats->parameter_copies;
  stats->parameter_copy_bytes += allocation.size();
  return run.owned[index].cref();
}

absl::StatusOr<se::DeviceAddressBase> GpuExecutable::CachedBuffer(
    const BufferAllocation& allocation, ExecutionStats* stats, RunState& run) {
  ASSIGN_OR_RETURN(se::DeviceAddressBase buffer,
                   run.cached_allocator->AllocateCached(
                       allocation.index(), allocation.size(), run.retired));
  run.cached[allocation.index()] = true;
  ++stats->cached_buffers_used;
  return buffer;
}

ExecutionOutput GpuExecutable::MakeOutput(
    RunState& run, std::shared_ptr<se::Event> done,
    std::shared_ptr<ExecutionStats> stats) {
  std::vector<se::ScopedDeviceAddress> results;
  std::vector<std::optional<int64_t>> aliased_parameters;
  for (int64_t i = 0; i < output_allocations_.size(); ++i) {
    BufferAllocation::Index index = output_allocations_[i];
    if (run.owned[index].is_null() && run.cached[index]) {
      // A view: the cache keeps owning the buffer.
      results.emplace_back(run.addresses[index], run.device_ordinal,
                           /*allocator=*/nullptr);
    } else {
      results.push_back(std::move(run.owned[index]));
    }
    std::optional<int64_t> parameter;
    if (run.donated[index]) {
      parameter = allocations_[index].parameter_number();
      ++stats->donated_buffers_reused;
    }
    aliased_parameters.push_back(parameter);
  }
  return ExecutionOutput(std::move(results), std::move(aliased_parameters),
                         std::move(done), deallocator_, std::move(stats));
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
  auto state = std::make_unique<ExecutorState>();
  state->allocator = std::make_unique<se::StreamExecutorAllocator>(executor);
  if (use_cached_allocs_ || stabilize_parameters_) {
    state->cache =
        std::make_unique<AllocationsCache>(executor->device_ordinal());
  }
  state->constants.resize(allocations_.size());
  for (const BufferAllocation& allocation : allocations_) {
    if (!allocation.is_constant() || allocation.size() == 0) continue;
    se::ScopedDeviceAddress& buffer = state->constants[allocation.index()];
    ASSIGN_OR_RETURN(buffer, state->allocator->Allocate(
                                 executor->device_ordinal(), allocation.size()));
    // Synchronous, so that executions on any stream of this executor see
    // the data without an extra dependency.
    RETURN_IF_ERROR(executor->SynchronousMemcpyH2D(
        allocation.constant_bytes().data(), allocation.size(), buffer.ptr()));
    ++stats->constants_uploaded;
    stats->constant_bytes_uploaded += allocation.size();
  }
  RETURN_IF_ERROR(thunks_->Initialize(
      Thunk::InitializeParams{executor, stream, &debug_options_}));
  VLOG(1) << module_name_ << ": initialized on device "
          << executor->device_ordinal();
  return state;
}

}  // namespace xla_lite::gpu
