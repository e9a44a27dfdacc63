#include "stream_executor/rocm/rocm_blas.h"

#include <iterator>

#include "absl/base/attributes.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/rocm/hipblas_declarations.h"
#include "stream_executor/rocm/rocm_handles.h"
#include "stream_executor/rocm/rocm_library.h"

namespace stream_executor::rocm {
namespace {

using gpu::GpuBlasGemm;
using gpu::GpuBlasHandle;
using gpu::GpuBlasMathMode;
using gpu::GpuStreamHandle;

constexpr char kDisplayName[] = "hipBLAS";

// The unversioned development link first, like the HIP runtime; the soname
// behind it then decides the ABI (kVersionedSonames).
constexpr const char* kSonames[] = {"libhipblas.so", "libhipblas.so.0",
                                    "libhipblas.so.1", "libhipblas.so.2",
                                    "libhipblas.so.3"};

struct VersionedSoname {
  const char* soname;
  HipblasDataTypes data_types;
};
constexpr VersionedSoname kVersionedSonames[] = {
    {"libhipblas.so.0", kHipblasV1DataTypes},
    {"libhipblas.so.1", kHipblasV1DataTypes},
    {"libhipblas.so.2", kHipblasV1DataTypes},
    {"libhipblas.so.3", kHipblasV3DataTypes},
};

struct HipblasFunctions {
  HipblasStatusToStringFn status_to_string = nullptr;  // Optional.
  HipblasCreateFn create = nullptr;
  HipblasDestroyFn destroy = nullptr;
  HipblasSetStreamFn set_stream = nullptr;
  HipblasSetWorkspaceFn set_workspace = nullptr;  // Optional.
  HipblasSgemmStridedBatchedFn sgemm_strided_batched = nullptr;
  HipblasGemmStridedBatchedExFn gemm_strided_batched_ex = nullptr;
  HipblasDataTypes data_types = {};
};

// Filled once by Load, before the table that calls it is handed out.
ABSL_CONST_INIT HipblasFunctions hipblas;

hipblasHandle_t ToHipblas(GpuBlasHandle handle) {
  return reinterpret_cast<hipblasHandle_t>(handle);
}

hipblasOperation_t ToOperation(bool transpose) {
  return transpose ? HIPBLAS_OP_T : HIPBLAS_OP_N;
}

const char* ErrorString(int error) {
  if (hipblas.status_to_string != nullptr) {
    return hipblas.status_to_string(static_cast<hipblasStatus_t>(error));
  }
  static constexpr const char* kNames[] = {
      "HIPBLAS_STATUS_SUCCESS",        "HIPBLAS_STATUS_NOT_INITIALIZED",
      "HIPBLAS_STATUS_ALLOC_FAILED",   "HIPBLAS_STATUS_INVALID_VALUE",
      "HIPBLAS_STATUS_MAPPING_ERROR",  "HIPBLAS_STATUS_EXECUTION_FAILED",
      "HIPBLAS_STATUS_INTERNAL_ERROR", "HIPBLAS_STATUS_NOT_SUPPORTED",
      "HIPBLAS_STATUS_ARCH_MISMATCH",  "HIPBLAS_STATUS_HANDLE_IS_NULLPTR",
      "HIPBLAS_STATUS_INVALID_ENUM",   "HIPBLAS_STATUS_UNKNOWN"};
  if (error < 0 || error >= static_cast<int>(std::size(kNames))) {
    return "unknown hipBLAS status";
  }
  return kNames[error];
}

int Create(GpuBlasHandle* handle) {
  return CreateHandle<hipblasHandle_t>(handle, hipblas.create);
}

int Destroy(GpuBlasHandle handle) { return hipblas.destroy(ToHipblas(handle)); }

int SetStream(GpuBlasHandle handle, GpuStreamHandle stream) {
  return hipblas.set_stream(ToHipblas(handle),
                            reinterpret_cast<hipStream_t>(stream));
}

int SetWorkspace(GpuBlasHandle handle, void* workspace, size_t bytes) {
  // Without hipblasSetWorkspace rocBLAS allocates its own workspace, on the
  // first call that needs one; see docs/rocm.md on capture.
  if (hipblas.set_workspace == nullptr) return HIPBLAS_STATUS_SUCCESS;
  return hipblas.set_workspace(ToHipblas(handle), workspace, bytes);
}

int SetMathMode(GpuBlasHandle, GpuBlasMathMode) {
  // rocBLAS computes f32 products in full precision unless asked for XF32,
  // which satisfies kFullPrecision and is allowed under kAllowTf32; bf16
  // products accumulate in the f32 compute type we pass.
  return HIPBLAS_STATUS_SUCCESS;
}

int SgemmStridedBatched(GpuBlasHandle handle, const GpuBlasGemm& g) {
  return hipblas.sgemm_strided_batched(
      ToHipblas(handle), ToOperation(g.transpose_a), ToOperation(g.transpose_b),
      g.m, g.n, g.k, g.alpha, static_cast<const float*>(g.a), g.lda, g.stride_a,
      static_cast<const float*>(g.b), g.ldb, g.stride_b, g.beta,
      static_cast<float*>(g.c), g.ldc, g.stride_c, g.batch_count);
}

// bf16 operands summed in the f32 compute type, C stored as `c_type` (a
// HipblasDataTypes value).
int Bf16GemmStridedBatchedEx(GpuBlasHandle handle, const GpuBlasGemm& g,
                             int c_type) {
  const HipblasDataTypes& types = hipblas.data_types;
  return hipblas.gemm_strided_batched_ex(
      ToHipblas(handle), ToOperation(g.transpose_a), ToOperation(g.transpose_b),
      g.m, g.n, g.k, g.alpha, g.a, types.bf16, g.lda, g.stride_a, g.b,
      types.bf16, g.ldb, g.stride_b, g.beta, g.c, c_type, g.ldc, g.stride_c,
      g.batch_count, types.f32_compute, HIPBLAS_GEMM_DEFAULT);
}

int Bf16GemmStridedBatched(GpuBlasHandle handle, const GpuBlasGemm& g) {
  return Bf16GemmStridedBatchedEx(handle, g, hipblas.data_types.bf16);
}

int Bf16F32GemmStridedBatched(GpuBlasHandle handle, const GpuBlasGemm& g) {
  return Bf16GemmStridedBatchedEx(handle, g, hipblas.data_types.f32);
}

// The data-type values of the Ex entry points depend on the release, which
// only the soname tells: the function kept its symbol when hipBLAS 3 changed
// them. A release this code does not know is refused rather than guessed.
absl::StatusOr<HipblasDataTypes> DataTypesOf(const RocmLibrary& library) {
  for (const VersionedSoname& versioned : kVersionedSonames) {
    if (library.HasSoname(versioned.soname)) return versioned.data_types;
  }
  return absl::FailedPreconditionError(
      "the loaded hipBLAS library is none of libhipblas.so.0 to "
      "libhipblas.so.3, whose gemm data types this build knows");
}

absl::StatusOr<const gpu::GpuBlasApi*> Load() {
  ASSIGN_OR_RETURN(RocmLibrary library,
                   RocmLibrary::Open(kDisplayName, kSonames));
  HipblasFunctions& f = hipblas;
  ASSIGN_OR_RETURN(f.data_types, DataTypesOf(library));
  library.ResolveOptional("hipblasStatusToString", &f.status_to_string);
  RETURN_IF_ERROR(library.Resolve("hipblasCreate", &f.create));
  RETURN_IF_ERROR(library.Resolve("hipblasDestroy", &f.destroy));
  RETURN_IF_ERROR(library.Resolve("hipblasSetStream", &f.set_stream));
  library.ResolveOptional("hipblasSetWorkspace", &f.set_workspace);
  RETURN_IF_ERROR(
      library.Resolve("hipblasSgemmStridedBatched", &f.sgemm_strided_batched));
  RETURN_IF_ERROR(library.Resolve("hipblasGemmStridedBatchedEx",
                                  &f.gemm_strided_batched_ex));

  static const gpu::GpuBlasApi* api = [] {
    auto* api = new gpu::GpuBlasApi{};
    api->display_name = kDisplayName;
    api->error_string = &ErrorString;
    api->create = &Create;
    api->destroy = &Destroy;
    api->set_stream = &SetStream;
    api->set_workspace = &SetWorkspace;
    api->set_math_mode = &SetMathMode;
    api->sgemm_strided_batched = &SgemmStridedBatched;
    api->bf16_gemm_strided_batched = &Bf16GemmStridedBatched;
    api->bf16_f32_gemm_strided_batched = &Bf16F32GemmStridedBatched;
    return api;
  }();
  VLOG(1) << "Loaded hipBLAS"
          << (f.set_workspace == nullptr ? " (no hipblasSetWorkspace)" : "");
  return api;
}

}  // namespace

absl::StatusOr<const gpu::GpuBlasApi*> LoadHipblasApi() {
  return LoadOnce<&Load>();
}

}  // namespace stream_executor::rocm
