#include "xla_lite/runtime/gemm_thunk.h"

#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/trace_cache.h"

namespace xla_lite::gpu {

GemmThunk::GemmThunk(std::string name, GemmConfig config,
                     BufferAllocation::Slice lhs, BufferAllocation::Slice rhs,
                     BufferAllocation::Slice output,
                     BufferAllocation::Slice workspace)
    : Thunk(Kind::kGemm, std::move(name)),
      config_(std::move(config)),
      lhs_(lhs),
      rhs_(rhs),
      output_(output),
      workspace_(workspace) {
  CHECK_EQ(lhs_.size(), config_.lhs_shape.ByteSize()) << ToString();
  CHECK_EQ(rhs_.size(), config_.rhs_shape.ByteSize()) << ToString();
  CHECK_EQ(output_.size(), config_.output_shape.ByteSize()) << ToString();
  CHECK(!workspace_.valid() || workspace_.size() > kWorkspaceAlignment)
      << ToString();
}

se::DeviceAddressBase GemmThunk::Workspace(
    const BufferAllocations& buffers) const {
  if (!workspace_.valid()) return se::DeviceAddressBase();
  se::DeviceAddressBase slice = buffers.GetDeviceAddress(workspace_);
  const uint64_t address = reinterpret_cast<uintptr_t>(slice.opaque());
  const uint64_t skip = (kWorkspaceAlignment - address % kWorkspaceAlignment) %
                        kWorkspaceAlignment;
  return slice.GetByteSlice(skip, slice.size() - skip);
}

absl::Status GemmThunk::Initialize(const InitializeParams& params) {
  ASSIGN_OR_RETURN(se::blas::BlasSupport * blas, params.executor->AsBlas());
  if (params.stream == nullptr) return absl::OkStatus();
  int level = params.debug_options == nullptr
                  ? 0
                  : params.debug_options->xla_gpu_autotune_level();
  // Every call of one gemm has the same shape; only the addresses differ,
  // and choosing reads none.
  std::vector<se::blas::GemmCall> calls = config_.ToBlasCalls(
      se::DeviceAddressBase(nullptr, lhs_.size()),
      se::DeviceAddressBase(nullptr, rhs_.size()),
      se::DeviceAddressBase(nullptr, output_.size()));
  if (calls.empty()) return absl::OkStatus();
  return blas->PrepareGemm(params.stream, calls.front(), 4 * level);
}

absl::Status GemmThunk::ExecuteOnStream(const ExecuteParams& params) {
  ASSIGN_OR_RETURN(se::blas::BlasSupport * blas, params.executor()->AsBlas());
  const BufferAllocations& buffers = *params.buffer_allocations;
  VLOG(5) << "gemm " << ToString() << " " << config_.ToString();
  return RunGemm(blas, params.stream, buffers.GetDeviceAddress(lhs_),
                 buffers.GetDeviceAddress(rhs_),
                 buffers.GetDeviceAddress(output_), Workspace(buffers));
}

absl::Status GemmThunk::RunGemm(se::blas::BlasSupport* blas, se::Stream* stream,
                                se::DeviceAddressBase lhs,
                                se::DeviceAddressBase rhs,
                                se::DeviceAddressBase output,
                                se::DeviceAddressBase workspace) const {
  for (se::blas::GemmCall& call : config_.ToBlasCalls(lhs, rhs, output)) {
    call.workspace = workspace;
    RETURN_IF_ERROR(blas->Gemm(stream, call));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const se::CapturedGraph>> GemmThunk::Trace(
    const RecordParams& params) const {
  ASSIGN_OR_RETURN(se::blas::BlasSupport * blas, params.executor()->AsBlas());
  const BufferAllocations& buffers = *params.buffer_allocations;
  TraceCache::Key key = {
      buffers.GetDeviceAddress(lhs_), buffers.GetDeviceAddress(rhs_),
      buffers.GetDeviceAddress(output_), Workspace(buffers)};
  VLOG(5) << "trace gemm " << ToString() << " " << config_.ToString();
  return TraceLibraryCall(params.trace_cache, params.stream, key,
                          [&](se::Stream* stream) {
                            return RunGemm(blas, stream, key[0], key[1],
                                           key[2], key[3]);
                          });
}

absl::StatusOr<const se::CommandBuffer::Command*> GemmThunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  ASSIGN_OR_RETURN(std::shared_ptr<const se::CapturedGraph> graph,
                   Trace(params));
  return command_buffer->CreateChild(*graph, dependencies);
}

absl::Status GemmThunk::UpdateRecorded(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    const se::CommandBuffer::Command* command) {
  ASSIGN_OR_RETURN(std::shared_ptr<const se::CapturedGraph> graph,
                   Trace(params));
  return command_buffer->UpdateChild(command, *graph);
}

BufferUses GemmThunk::buffer_uses() const {
  BufferUses uses = {BufferUse::Read(lhs_), BufferUse::Read(rhs_),
                     BufferUse::Write(output_)};
  if (workspace_.valid()) uses.push_back(BufferUse::Write(workspace_));
  return uses;
}

}  // namespace xla_lite::gpu
