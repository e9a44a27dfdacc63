#include "stream_executor/cuda/cuda_blas.h"

#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/cuda/cublas_includes.h"
#include "stream_executor/cuda/cuda_blas_lt.h"
#include "stream_executor/gpu/dso_loader.h"

namespace stream_executor::cuda {
namespace {

using gpu::GpuBlasGemm;
using gpu::GpuBlasHandle;
using gpu::GpuBlasMathMode;
using gpu::GpuStreamHandle;

constexpr char kDisplayName[] = "cuBLAS";
constexpr char kLtDisplayName[] = "cuBLASLt";
constexpr char kCudaLibDir[] = "/usr/local/cuda/lib64";

// cublas_api.h overloads cublasGemmStridedBatchedEx in C++ (a legacy
// cudaDataType compute-type form), so decltype cannot name the exported one.
using GemmStridedBatchedExFn = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
    const void*, const void*, cudaDataType, int, long long int, const void*,
    cudaDataType, int, long long int, const void*, void*, cudaDataType, int,
    long long int, int, cublasComputeType_t, cublasGemmAlgo_t);

struct CublasFunctions {
  decltype(&::cublasGetStatusString) get_status_string = nullptr;
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetStream_v2) set_stream = nullptr;
  decltype(&::cublasSetWorkspace_v2) set_workspace = nullptr;
  decltype(&::cublasSetMathMode) set_math_mode = nullptr;
  decltype(&::cublasSgemmStridedBatched) sgemm_strided_batched = nullptr;
  GemmStridedBatchedExFn gemm_strided_batched_ex = nullptr;
};

CublasFunctions& Cublas() {
  static CublasFunctions* functions = new CublasFunctions;
  return *functions;
}

cublasHandle_t ToCublas(GpuBlasHandle handle) {
  return reinterpret_cast<cublasHandle_t>(handle);
}

cublasOperation_t ToOperation(bool transpose) {
  return transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
}

const char* ErrorString(int error) {
  return Cublas().get_status_string(static_cast<cublasStatus_t>(error));
}

int Create(GpuBlasHandle* handle) {
  cublasHandle_t cublas_handle = nullptr;
  cublasStatus_t status = Cublas().create(&cublas_handle);
  *handle = reinterpret_cast<GpuBlasHandle>(cublas_handle);
  return status;
}

int Destroy(GpuBlasHandle handle) { return Cublas().destroy(ToCublas(handle)); }

int SetStream(GpuBlasHandle handle, GpuStreamHandle stream) {
  return Cublas().set_stream(ToCublas(handle),
                             reinterpret_cast<cudaStream_t>(stream));
}

int SetWorkspace(GpuBlasHandle handle, void* workspace, size_t bytes) {
  return Cublas().set_workspace(ToCublas(handle), workspace, bytes);
}

int SetMathMode(GpuBlasHandle handle, GpuBlasMathMode mode) {
  // Reductions stay in the f32 compute type even when the output is bf16,
  // matching blas::GemmCall's promise of f32 accumulation.
  int math = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
  math |= mode == GpuBlasMathMode::kAllowTf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                              : CUBLAS_DEFAULT_MATH;
  return Cublas().set_math_mode(ToCublas(handle),
                                static_cast<cublasMath_t>(math));
}

int SgemmStridedBatched(GpuBlasHandle handle, const GpuBlasGemm& g) {
  return Cublas().sgemm_strided_batched(
      ToCublas(handle), ToOperation(g.transpose_a), ToOperation(g.transpose_b),
      g.m, g.n, g.k, g.alpha, static_cast<const float*>(g.a), g.lda, g.stride_a,
      static_cast<const float*>(g.b), g.ldb, g.stride_b, g.beta,
      static_cast<float*>(g.c), g.ldc, g.stride_c, g.batch_count);
}

// bf16 operands summed in the f32 compute type (tensor cores on sm_80+),
// C stored as `c_type`.
int Bf16GemmStridedBatchedEx(GpuBlasHandle handle, const GpuBlasGemm& g,
                             cudaDataType c_type) {
  return Cublas().gemm_strided_batched_ex(
      ToCublas(handle), ToOperation(g.transpose_a), ToOperation(g.transpose_b),
      g.m, g.n, g.k, g.alpha, g.a, CUDA_R_16BF, g.lda, g.stride_a, g.b,
      CUDA_R_16BF, g.ldb, g.stride_b, g.beta, g.c, c_type, g.ldc, g.stride_c,
      g.batch_count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

int Bf16GemmStridedBatched(GpuBlasHandle handle, const GpuBlasGemm& g) {
  return Bf16GemmStridedBatchedEx(handle, g, CUDA_R_16BF);
}

int Bf16F32GemmStridedBatched(GpuBlasHandle handle, const GpuBlasGemm& g) {
  return Bf16GemmStridedBatchedEx(handle, g, CUDA_R_32F);
}

absl::StatusOr<const gpu::GpuBlasApi*> Load() {
  // cuBLAS finds cuBLASLt through its own RUNPATH when loaded by path, but
  // not when found by soname in an unusual place; loading it first, globally,
  // covers both and names the missing library precisely.
  ASSIGN_OR_RETURN(
      void* lt_library,
      gpu::OpenLibrary(kLtDisplayName, gpu::LibraryCandidates(
                                           "libcublasLt.so.13", {kCudaLibDir})));
  ASSIGN_OR_RETURN(
      void* library,
      gpu::OpenLibrary(kDisplayName, gpu::LibraryCandidates("libcublas.so.13",
                                                            {kCudaLibDir})));
  CublasFunctions& f = Cublas();
  auto resolve = [&](const char* symbol, auto* out) {
    return gpu::ResolveFunction(library, kDisplayName, symbol, out);
  };
  RETURN_IF_ERROR(resolve("cublasGetStatusString", &f.get_status_string));
  RETURN_IF_ERROR(resolve("cublasCreate_v2", &f.create));
  RETURN_IF_ERROR(resolve("cublasDestroy_v2", &f.destroy));
  RETURN_IF_ERROR(resolve("cublasSetStream_v2", &f.set_stream));
  RETURN_IF_ERROR(resolve("cublasSetWorkspace_v2", &f.set_workspace));
  RETURN_IF_ERROR(resolve("cublasSetMathMode", &f.set_math_mode));
  RETURN_IF_ERROR(
      resolve("cublasSgemmStridedBatched", &f.sgemm_strided_batched));
  RETURN_IF_ERROR(
      resolve("cublasGemmStridedBatchedEx", &f.gemm_strided_batched_ex));

  static gpu::GpuBlasApi api = {
      .display_name = kDisplayName,
      .error_string = &ErrorString,
      .create = &Create,
      .destroy = &Destroy,
      .set_stream = &SetStream,
      .set_workspace = &SetWorkspace,
      .set_math_mode = &SetMathMode,
      .sgemm_strided_batched = &SgemmStridedBatched,
      .bf16_gemm_strided_batched = &Bf16GemmStridedBatched,
      .bf16_f32_gemm_strided_batched = &Bf16F32GemmStridedBatched,
  };
  // Without the matmul entry points every gemm takes the classic path.
  absl::Status lt = FillCublasLtEntries(lt_library, api);
  if (!lt.ok()) LOG(WARNING) << "cuBLASLt matmul unavailable: " << lt;
  VLOG(1) << "Loaded cuBLAS";
  return &api;
}

}  // namespace

absl::StatusOr<const gpu::GpuBlasApi*> LoadCublasApi() {
  static const absl::StatusOr<const gpu::GpuBlasApi*>* api =
      new absl::StatusOr<const gpu::GpuBlasApi*>(Load());
  return *api;
}

}  // namespace stream_executor::cuda
