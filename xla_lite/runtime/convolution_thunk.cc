#include "xla_lite/runtime/convolution_thunk.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/trace_cache.h"

namespace xla_lite::gpu {

using se::dnn::ConvolutionKind;

ConvolutionThunk::ConvolutionThunk(std::string name,
                                   se::dnn::ConvolutionCall call,
                                   BufferAllocation::Slice input,
                                   BufferAllocation::Slice filter,
                                   BufferAllocation::Slice output)
    : Thunk(Kind::kConvolution, std::move(name)),
      call_(std::move(call)),
      input_(input),
      filter_(filter),
      output_(output) {
  CHECK_GE(input_.size(), call_.input.SpanElements() * sizeof(float))
      << ToString();
  CHECK_GE(filter_.size(), call_.filter.SpanElements() * sizeof(float))
      << ToString();
  CHECK_GE(output_.size(), call_.output.SpanElements() * sizeof(float))
      << ToString();
}

ConvolutionThunk::~ConvolutionThunk() {
  absl::MutexLock lock(&mu_);
  for (auto& [executor, workspace] : workspaces_) {
    absl::Status freed = executor->Deallocate(&workspace);
    if (!freed.ok()) {
      LOG(ERROR) << ToString() << ": freeing the workspace: " << freed;
    }
  }
}

absl::StatusOr<se::DeviceAddressBase> ConvolutionThunk::Workspace(
    se::StreamExecutor* executor) const {
  absl::MutexLock lock(&mu_);
  auto it = workspaces_.find(executor);
  if (it == workspaces_.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat(ToString(), " was not initialized on device ",
                     executor->device_ordinal()));
  }
  return it->second;
}

se::dnn::ConvolutionCall ConvolutionThunk::CallOn(
    const BufferAllocations& buffers) const {
  se::dnn::ConvolutionCall call = call_;
  call.input_data = buffers.GetDeviceAddress(input_);
  call.filter_data = buffers.GetDeviceAddress(filter_);
  call.output_data = buffers.GetDeviceAddress(output_);
  return call;
}

absl::Status ConvolutionThunk::Initialize(const InitializeParams& params) {
  ASSIGN_OR_RETURN(se::dnn::DnnSupport * dnn, params.executor->AsDnn());
  if (params.stream == nullptr) return absl::OkStatus();
  // Preparing reads only sizes: null addresses of the slices' sizes pass
  // the call's checks.
  se::dnn::ConvolutionCall call = call_;
  call.input_data = se::DeviceAddressBase(nullptr, input_.size());
  call.filter_data = se::DeviceAddressBase(nullptr, filter_.size());
  call.output_data = se::DeviceAddressBase(nullptr, output_.size());
  ASSIGN_OR_RETURN(uint64_t bytes,
                   dnn->PrepareConvolution(params.stream, call));
  absl::MutexLock lock(&mu_);
  if (workspaces_.contains(params.executor)) return absl::OkStatus();
  // A zero-byte request gives a null address, which the call accepts.
  ASSIGN_OR_RETURN(se::DeviceAddressBase workspace,
                   params.executor->Allocate(bytes));
  workspaces_.emplace(params.executor, workspace);
  return absl::OkStatus();
}

absl::Status ConvolutionThunk::ExecuteOnStream(const ExecuteParams& params) {
  ASSIGN_OR_RETURN(se::dnn::DnnSupport * dnn, params.executor()->AsDnn());
  ASSIGN_OR_RETURN(se::DeviceAddressBase workspace,
                   Workspace(params.executor()));
  return dnn->Convolution(params.stream, CallOn(*params.buffer_allocations),
                          workspace);
}

absl::StatusOr<std::shared_ptr<const se::CapturedGraph>>
ConvolutionThunk::Trace(const RecordParams& params) const {
  ASSIGN_OR_RETURN(se::dnn::DnnSupport * dnn, params.executor()->AsDnn());
  ASSIGN_OR_RETURN(se::DeviceAddressBase workspace,
                   Workspace(params.executor()));
  const se::dnn::ConvolutionCall call = CallOn(*params.buffer_allocations);
  TraceCache::Key key = {call.input_data, call.filter_data, call.output_data};
  VLOG(5) << "trace convolution " << ToString() << " " << call.ToString();
  return TraceLibraryCall(params.trace_cache, params.stream, key,
                          [&](se::Stream* stream) {
                            return dnn->Convolution(stream, call, workspace);
                          });
}

absl::StatusOr<const se::CommandBuffer::Command*> ConvolutionThunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  ASSIGN_OR_RETURN(std::shared_ptr<const se::CapturedGraph> graph,
                   Trace(params));
  return command_buffer->CreateChild(*graph, dependencies);
}

absl::Status ConvolutionThunk::UpdateRecorded(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    const se::CommandBuffer::Command* command) {
  ASSIGN_OR_RETURN(std::shared_ptr<const se::CapturedGraph> graph,
                   Trace(params));
  return command_buffer->UpdateChild(command, *graph);
}

BufferUses ConvolutionThunk::buffer_uses() const {
  if (call_.kind == ConvolutionKind::kBackwardFilter) {
    return {BufferUse::Read(input_), BufferUse::Read(output_),
            BufferUse::Write(filter_)};
  }
  return {BufferUse::Read(input_), BufferUse::Read(filter_),
          BufferUse::Write(output_)};
}

}  // namespace xla_lite::gpu
