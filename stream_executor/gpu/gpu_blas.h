#ifndef STREAM_EXECUTOR_GPU_GPU_BLAS_H_
#define STREAM_EXECUTOR_GPU_GPU_BLAS_H_

#include <cstddef>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/blas.h"
#include "stream_executor/gpu/gpu_blas_api.h"
#include "stream_executor/gpu/gpu_blas_lt.h"

namespace stream_executor::gpu {

class GpuExecutor;
class GpuStream;

// cuBLAS / hipBLAS behind blas::BlasSupport: one handle per executor. Each
// call runs on its own workspace (GemmCall::workspace, kWorkspaceBytes of
// it for the matmul library's algorithms), or on the handle's, allocated
// up front, when it has none; either way no call allocates, which keeps
// gemm legal under stream capture.
class GpuBlas : public blas::BlasSupport {
 public:
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

  // Creates the handle and its workspace on `executor`'s device. Refused
  // while the executor captures. The handle's workspace is the library's own
  // memory: it is not counted against the executor's memory limit. Only
  // calls without a workspace of their own use it, and nothing orders them:
  // warm-ups and timing, whose results nobody reads.
  static absl::StatusOr<std::unique_ptr<GpuBlas>> Create(
      GpuExecutor* executor, const GpuBlasApi& blas_api, bool allow_tf32);
  ~GpuBlas() override;

  // Validates the call, then enqueues one f32 or bf16 strided batched gemm:
  // through the matmul library with the algorithm chosen for the shape
  // (PrepareGemm, or the heuristic's first when none was), or through the
  // classic entry point when there is no matmul library, no algorithm, the
  // call is a full-precision f32 one (UsesLt), an address or batch stride
  // is less aligned than the algorithms assume, or the call's workspace is
  // smaller than the one the algorithms were chosen for.
  absl::Status Gemm(Stream* stream, const blas::GemmCall& call) override;

  // Autotunes the shape in the matmul library (GpuBlasLt::Choose).
  absl::Status PrepareGemm(Stream* stream, const blas::GemmCall& call,
                           int autotune_candidates) override;

  // The matmul library's algorithm choices; null without one.
  const GpuBlasLt* lt() const { return lt_.get(); }

 private:
  GpuBlas(GpuExecutor* executor, const GpuBlasApi& blas_api,
          GpuBlasHandle handle, void* workspace, bool allow_tf32,
          std::unique_ptr<GpuBlasLt> lt)
      : executor_(executor),
        blas_api_(blas_api),
        lt_(std::move(lt)),
        allow_tf32_(allow_tf32),
        handle_(handle),
        math_mode_(allow_tf32 ? GpuBlasMathMode::kAllowTf32
                              : GpuBlasMathMode::kFullPrecision),
        workspace_(workspace) {}

  // Sets the handle's math mode for `call` when it differs from the last.
  absl::Status SetMathModeFor(const blas::GemmCall& call)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool AllowsTf32(const blas::GemmCall& call) const {
    return allow_tf32_ || call.allow_tf32;
  }
  // Whether `call` goes through the matmul library. Full-precision f32
  // (FFMA) gemms stay on the classic entry point: on an H100 the
  // transformer's f32 gemms ran 11% slower in a step with the algorithms
  // autotuning preferred (timed back to back on operands hot in L2) than
  // with cuBLAS's own choice; bf16 ones ran much faster (docs/benchmarks.md).
  bool UsesLt(const blas::GemmCall& call) const {
    return lt_ != nullptr &&
           (call.type != blas::DataType::kF32 || AllowsTf32(call));
  }
  // Checks `call` and that `stream` is one of this executor's.
  absl::StatusOr<GpuStream*> CheckCall(Stream* stream,
                                       const blas::GemmCall& call) const;
  // The classic entry points, with `stream` bound to the handle.
  absl::Status ClassicGemm(GpuStream* stream, const blas::GemmCall& call,
                           const GpuBlasGemm& gemm)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The call's workspace, or the handle's.
  DeviceAddressBase WorkspaceOf(const blas::GemmCall& call) const {
    return call.workspace.is_null()
               ? DeviceAddressBase(workspace_, kWorkspaceBytes)
               : call.workspace;
  }

  GpuExecutor* const executor_;
  const GpuBlasApi& blas_api_;
  // Set at creation; reset only when the handle is destroyed.
  std::unique_ptr<GpuBlasLt> lt_;
  // The executor's TF32 permission, for every f32 call.
  const bool allow_tf32_;

  // A handle is bound to one stream at a time: binding it and enqueueing
  // must happen as one step.
  absl::Mutex mu_;
  GpuBlasHandle handle_ ABSL_GUARDED_BY(mu_);
  // The handle's math mode: set per call, as calls of one handle differ.
  GpuBlasMathMode math_mode_ ABSL_GUARDED_BY(mu_);
  void* const workspace_;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_BLAS_H_
