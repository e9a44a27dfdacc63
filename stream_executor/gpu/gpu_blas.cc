#include "stream_executor/gpu/gpu_blas.h"

#include <cstdint>
#include <limits>
#include <optional>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_status.h"
#include "stream_executor/gpu/gpu_stream.h"

namespace stream_executor::gpu {
namespace {

// The library takes 32-bit dimensions and batch counts.
absl::Status CheckFitsInt(const char* what, int64_t value) {
  if (value < 0 || value > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "gemm: %s = %d does not fit the BLAS library's int", what, value));
  }
  return absl::OkStatus();
}

absl::Status CheckDimensions(const blas::GemmCall& call) {
  RETURN_IF_ERROR(CheckFitsInt("m", call.m));
  RETURN_IF_ERROR(CheckFitsInt("n", call.n));
  RETURN_IF_ERROR(CheckFitsInt("k", call.k));
  RETURN_IF_ERROR(CheckFitsInt("lda", call.lda));
  RETURN_IF_ERROR(CheckFitsInt("ldb", call.ldb));
  RETURN_IF_ERROR(CheckFitsInt("ldc", call.ldc));
  return CheckFitsInt("batch_count", call.batch_count);
}

absl::Status BlasStatus(const GpuBlasApi& api, int error,
                        const char* operation) {
  if (error == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(api.display_name, " ", operation,
                                          " failed: ", api.error_string(error),
                                          " (", error, ")"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuBlas>> GpuBlas::Create(
    GpuExecutor* executor, const GpuBlasApi& blas_api, bool allow_tf32) {
  const GpuApi& api = executor->api();
  // The workspace is allocated here, so initialization follows the
  // executor's rule for allocation under capture.
  absl::Status may_allocate = executor->capture_tracker().CheckMayAllocate(
      kWorkspaceBytes, executor->device_ordinal());
  if (!may_allocate.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        blas_api.display_name, " cannot be initialized while capturing (call "
        "AsBlas() before capturing): ", may_allocate.message()));
  }
  RETURN_IF_ERROR(executor->Activate());

  void* workspace = nullptr;
  RETURN_IF_ERROR(
      ToStatus(api, api.mem_alloc(&workspace, kWorkspaceBytes),
               absl::StrCat(blas_api.display_name, " workspace allocation")));
  absl::Cleanup free_workspace = [&] { api.mem_free(workspace); };

  GpuBlasHandle handle = nullptr;
  RETURN_IF_ERROR(
      BlasStatus(blas_api, blas_api.create(&handle), "handle creation"));
  absl::Cleanup destroy_handle = [&] { blas_api.destroy(handle); };
  RETURN_IF_ERROR(BlasStatus(
      blas_api, blas_api.set_workspace(handle, workspace, kWorkspaceBytes),
      "set workspace"));
  GpuBlasMathMode mode = allow_tf32 ? GpuBlasMathMode::kAllowTf32
                                    : GpuBlasMathMode::kFullPrecision;
  RETURN_IF_ERROR(BlasStatus(blas_api, blas_api.set_math_mode(handle, mode),
                             "set math mode"));
  ASSIGN_OR_RETURN(std::unique_ptr<GpuBlasLt> lt,
                   GpuBlasLt::Create(executor, blas_api, kWorkspaceBytes));
  std::move(destroy_handle).Cancel();
  std::move(free_workspace).Cancel();
  VLOG(1) << "Created " << blas_api.display_name << " handle on device "
          << executor->device_ordinal() << " with a " << (kWorkspaceBytes >> 20)
          << " MiB workspace" << (allow_tf32 ? ", TF32 allowed" : ", full f32")
          << (lt != nullptr ? ", matmul algorithm selection" : "");
  return std::unique_ptr<GpuBlas>(new GpuBlas(
      executor, blas_api, handle, workspace, allow_tf32, std::move(lt)));
}

GpuBlas::~GpuBlas() {
  const GpuApi& api = executor_->api();
  absl::Status status = executor_->Activate();
  if (!status.ok()) {
    LOG(ERROR) << "Destroying " << blas_api_.display_name << ": " << status;
    return;
  }
  // Released before mu_ is taken: autotuning takes mu_ (for the classic
  // path) while holding the matmul library's lock, never the reverse.
  lt_.reset();
  {
    absl::MutexLock lock(&mu_);
    status = BlasStatus(blas_api_, blas_api_.destroy(handle_), "destroy");
    if (!status.ok()) LOG(ERROR) << status;
  }
  // Work that used the workspace may still run; freeing device memory waits
  // for the device, as the runtime's free does.
  status = ToStatus(api, api.mem_free(workspace_), "BLAS workspace free");
  if (!status.ok()) LOG(ERROR) << status;
}

absl::Status GpuBlas::SetMathModeFor(const blas::GemmCall& call) {
  GpuBlasMathMode mode = allow_tf32_ || call.allow_tf32
                             ? GpuBlasMathMode::kAllowTf32
                             : GpuBlasMathMode::kFullPrecision;
  if (mode == math_mode_) return absl::OkStatus();
  RETURN_IF_ERROR(BlasStatus(blas_api_, blas_api_.set_math_mode(handle_, mode),
                             "set math mode"));
  math_mode_ = mode;
  return absl::OkStatus();
}

absl::StatusOr<GpuStream*> GpuBlas::CheckCall(
    Stream* stream, const blas::GemmCall& call) const {
  RETURN_IF_ERROR(call.Validate());
  RETURN_IF_ERROR(CheckDimensions(call));
  auto* gpu_stream = dynamic_cast<GpuStream*>(stream);
  if (gpu_stream == nullptr || gpu_stream->parent() != executor_) {
    return absl::InvalidArgumentError(
        "gemm: the stream belongs to another executor or platform");
  }
  return gpu_stream;
}

absl::Status GpuBlas::PrepareGemm(Stream* stream, const blas::GemmCall& call,
                                  int autotune_candidates) {
  ASSIGN_OR_RETURN(GpuStream * gpu_stream, CheckCall(stream, call));
  if (!UsesLt(call)) return absl::OkStatus();
  RETURN_IF_ERROR(executor_->Activate());
  auto classic = [&](GpuStream* stream, const GpuBlasGemm& gemm) {
    absl::MutexLock lock(&mu_);
    return ClassicGemm(stream, call, gemm);
  };
  return lt_
      ->Choose(call, AllowsTf32(call), gpu_stream, autotune_candidates,
               classic)
      .status();
}

absl::Status GpuBlas::Gemm(Stream* stream, const blas::GemmCall& call) {
  ASSIGN_OR_RETURN(GpuStream * gpu_stream, CheckCall(stream, call));
  const GpuBlasGemm gemm = ToGpuBlasGemm(call);

  VLOG(5) << blas_api_.display_name << " on stream " << gpu_stream->handle()
          << ": " << call.ToString();
  RETURN_IF_ERROR(executor_->Activate());
  const DeviceAddressBase workspace = WorkspaceOf(call);
  std::optional<GpuBlasLt::Choice> choice;
  if (UsesLt(call) && GpuBlasLt::IsAligned(call) &&
      workspace.size() >= kWorkspaceBytes) {
    // Without PrepareGemm the heuristic's first: no device work, so legal
    // under capture.
    // Nothing is timed, so the classic path is never called here.
    auto classic = [](GpuStream*, const GpuBlasGemm&) {
      return absl::InternalError("gemm: untimed choice ran the classic path");
    };
    ASSIGN_OR_RETURN(
        choice, lt_->Choose(call, AllowsTf32(call), gpu_stream, 1, classic));
  }
  absl::MutexLock lock(&mu_);
  if (choice.has_value() && !choice->classic) {
    return lt_->Run(*choice, gemm, gpu_stream, workspace.opaque(),
                    workspace.size());
  }
  return ClassicGemm(gpu_stream, call, gemm);
}

absl::Status GpuBlas::ClassicGemm(GpuStream* gpu_stream,
                                  const blas::GemmCall& call,
                                  const GpuBlasGemm& gemm) {
  RETURN_IF_ERROR(
      BlasStatus(blas_api_, blas_api_.set_stream(handle_, gpu_stream->handle()),
                 "set stream"));
  // cuBLAS drops a user workspace whenever the stream changes, and each
  // call has its own: binding it every time keeps the library off its own
  // allocations (illegal in capture) and off other calls' workspaces.
  const DeviceAddressBase workspace = WorkspaceOf(call);
  RETURN_IF_ERROR(BlasStatus(
      blas_api_,
      blas_api_.set_workspace(handle_, workspace.opaque(), workspace.size()),
      "set workspace"));
  RETURN_IF_ERROR(SetMathModeFor(call));
  int error;
  if (call.type == blas::DataType::kF32) {
    error = blas_api_.sgemm_strided_batched(handle_, gemm);
  } else if (call.CType() == blas::DataType::kF32) {
    error = blas_api_.bf16_f32_gemm_strided_batched(handle_, gemm);
  } else {
    error = blas_api_.bf16_gemm_strided_batched(handle_, gemm);
  }
  if (error != 0) {
    return absl::InternalError(absl::StrCat(
        blas_api_.display_name, " ", call.ToString(),
        " failed: ", blas_api_.error_string(error), " (", error, ")"));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor::gpu
