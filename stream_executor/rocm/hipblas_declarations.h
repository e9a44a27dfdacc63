#ifndef STREAM_EXECUTOR_ROCM_HIPBLAS_DECLARATIONS_H_
#define STREAM_EXECUTOR_ROCM_HIPBLAS_DECLARATIONS_H_

// The few hipBLAS types, values and entry points the ROCm backend calls,
// declared here because hipBLAS headers are not installed where CI builds
// (Debian has no hipBLAS package) and the library is loaded with dlopen
// anyway. Values are hipBLAS's own (hipblas.h, hipblas-common.h) and are
// stable across its releases; only the data-type arguments of the Ex
// functions changed meaning, in hipBLAS 3 (see HipblasDataTypes).
//
// Names are hipBLAS's, inside our namespace, so that a translation unit that
// also includes the real hipblas.h does not see two definitions.

#include <cstddef>
#include <cstdint>

#include "hip/hip_runtime_api.h"

namespace stream_executor::rocm {

using hipblasHandle_t = void*;
// Elements between consecutive matrices of a strided batch.
using hipblasStride = int64_t;

enum hipblasStatus_t : int {
  HIPBLAS_STATUS_SUCCESS = 0,
  HIPBLAS_STATUS_NOT_INITIALIZED = 1,
  HIPBLAS_STATUS_ALLOC_FAILED = 2,
  HIPBLAS_STATUS_INVALID_VALUE = 3,
  HIPBLAS_STATUS_MAPPING_ERROR = 4,
  HIPBLAS_STATUS_EXECUTION_FAILED = 5,
  HIPBLAS_STATUS_INTERNAL_ERROR = 6,
  HIPBLAS_STATUS_NOT_SUPPORTED = 7,
  HIPBLAS_STATUS_ARCH_MISMATCH = 8,
  HIPBLAS_STATUS_HANDLE_IS_NULLPTR = 9,
  HIPBLAS_STATUS_INVALID_ENUM = 10,
  HIPBLAS_STATUS_UNKNOWN = 11,
};

// The CBLAS values.
enum hipblasOperation_t : int {
  HIPBLAS_OP_N = 111,
  HIPBLAS_OP_T = 112,
  HIPBLAS_OP_C = 113,
};

enum hipblasGemmAlgo_t : int {
  HIPBLAS_GEMM_DEFAULT = 160,
};

// Element and compute types of hipblasGemmStridedBatchedEx. Up to hipBLAS 2
// both are hipblasDatatype_t; hipBLAS 3 takes hipDataType for the elements
// and hipblasComputeType_t for the computation, under the same symbol. Both
// are C enums passed as int, so one prototype serves and only the values
// differ.
struct HipblasDataTypes {
  int bf16;         // Real bfloat16 elements.
  int f32;          // Real f32 elements.
  int f32_compute;  // f32 accumulation.
};

// hipblasDatatype_t: HIPBLAS_R_16B, HIPBLAS_R_32F, HIPBLAS_R_32F.
inline constexpr HipblasDataTypes kHipblasV1DataTypes = {168, 151, 151};
// hipDataType HIP_R_16BF, HIP_R_32F; hipblasComputeType_t
// HIPBLAS_COMPUTE_32F.
inline constexpr HipblasDataTypes kHipblasV3DataTypes = {14, 0, 2};

using HipblasCreateFn = hipblasStatus_t (*)(hipblasHandle_t* handle);
using HipblasDestroyFn = hipblasStatus_t (*)(hipblasHandle_t handle);
using HipblasSetStreamFn = hipblasStatus_t (*)(hipblasHandle_t handle,
                                               hipStream_t stream);
// Absent before hipBLAS 2; without it rocBLAS manages its own workspace.
using HipblasSetWorkspaceFn = hipblasStatus_t (*)(hipblasHandle_t handle,
                                                  void* workspace,
                                                  size_t bytes);
// Absent from early hipBLAS releases.
using HipblasStatusToStringFn = const char* (*)(hipblasStatus_t status);

using HipblasSgemmStridedBatchedFn = hipblasStatus_t (*)(
    hipblasHandle_t handle, hipblasOperation_t trans_a,
    hipblasOperation_t trans_b, int m, int n, int k, const float* alpha,
    const float* a, int lda, hipblasStride stride_a, const float* b, int ldb,
    hipblasStride stride_b, const float* beta, float* c, int ldc,
    hipblasStride stride_c, int batch_count);

// The `int` type arguments take HipblasDataTypes values.
using HipblasGemmStridedBatchedExFn = hipblasStatus_t (*)(
    hipblasHandle_t handle, hipblasOperation_t trans_a,
    hipblasOperation_t trans_b, int m, int n, int k, const void* alpha,
    const void* a, int a_type, int lda, hipblasStride stride_a, const void* b,
    int b_type, int ldb, hipblasStride stride_b, const void* beta, void* c,
    int c_type, int ldc, hipblasStride stride_c, int batch_count,
    int compute_type, hipblasGemmAlgo_t algo);

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_HIPBLAS_DECLARATIONS_H_
