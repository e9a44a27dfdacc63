#ifndef XLA_LITE_RUNTIME_GEMM_THUNK_H_
#define XLA_LITE_RUNTIME_GEMM_THUNK_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// A gemm through the platform's BLAS library (cuBLAS, hipBLAS, Eigen): one
// strided batched call, or one per index of the outer batch dimensions when
// the config's batch dimensions do not collapse into one (GemmConfig).
//
// In a command buffer the library call becomes a traced child graph: the
// library decides what it enqueues, so the only way to record it is stream
// capture, and the only way to update it is a new trace (or one from the
// TraceCache for addresses seen before).
//
// The library's scratch is the thunk's `workspace` slice, written by every
// run: gemms that run at the same time (on several streams, or unordered
// in a command buffer) then never share one, as their buffer uses say.
// Without one (the host, whose library needs none) the library's own.
class GemmThunk : public Thunk {
 public:
  // CHECK-fails when a slice's size differs from its operand's byte size,
  // or a workspace is too small to align.
  GemmThunk(std::string name, GemmConfig config, BufferAllocation::Slice lhs,
            BufferAllocation::Slice rhs, BufferAllocation::Slice output,
            BufferAllocation::Slice workspace = {});

  // Libraries want their workspace aligned to this many bytes (cuBLAS
  // refuses less than 256); the thunk aligns the start of its slice.
  static constexpr uint64_t kWorkspaceAlignment = 256;

  // Creates the BLAS library here, so that its workspace is allocated
  // before any execution and never under stream capture, and lets it choose
  // the gemm's algorithm (autotuned as xla_gpu_autotune_level says).
  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  bool IsRecordable() const override { return true; }
  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override;
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override;

  const GemmConfig& config() const { return config_; }

 private:
  // Enqueues every BLAS call of the gemm on these addresses.
  absl::Status RunGemm(se::blas::BlasSupport* blas, se::Stream* stream,
                       se::DeviceAddressBase lhs, se::DeviceAddressBase rhs,
                       se::DeviceAddressBase output,
                       se::DeviceAddressBase workspace) const;
  // The aligned part of the workspace slice in `buffers`; null without one.
  se::DeviceAddressBase Workspace(const BufferAllocations& buffers) const;

  // The gemm on `params`' addresses as a captured graph, from the trace
  // cache when it has one for these addresses.
  absl::StatusOr<std::shared_ptr<const se::CapturedGraph>> Trace(
      const RecordParams& params) const;

  const GemmConfig config_;
  const BufferAllocation::Slice lhs_, rhs_, output_, workspace_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_GEMM_THUNK_H_
