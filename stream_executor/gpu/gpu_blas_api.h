#ifndef STREAM_EXECUTOR_GPU_GPU_BLAS_API_H_
#define STREAM_EXECUTOR_GPU_GPU_BLAS_API_H_

#include <cstddef>

#include "stream_executor/gpu/gpu_api.h"

namespace stream_executor::gpu {

using GpuBlasHandle = struct GpuBlasOpaque*;

enum class GpuBlasMathMode {
  // Full f32 products, reductions accumulated in the compute type.
  kFullPrecision,
  // f32 products may use TF32 tensor cores.
  kAllowTf32,
};

// One column-major strided batched product, already validated and range
// checked by the caller; the element type is implied by the entry point.
struct GpuBlasGemm {
  bool transpose_a = false;
  bool transpose_b = false;
  int m = 0, n = 0, k = 0;
  const float* alpha = nullptr;  // Host pointers.
  const float* beta = nullptr;
  const void* a = nullptr;
  int lda = 0;
  long long stride_a = 0;  // In elements.
  const void* b = nullptr;
  int ldb = 0;
  long long stride_b = 0;
  void* c = nullptr;
  int ldc = 0;
  long long stride_c = 0;
  int batch_count = 1;
};

// cuBLAS or hipBLAS. Error codes are 0 for success; error_string describes
// the rest. A plain table a backend fills from dlsym.
struct GpuBlasApi {
  // "cuBLAS", "hipBLAS": used in messages.
  const char* display_name;

  const char* (*error_string)(int error);

  // Creates a handle on the current device.
  int (*create)(GpuBlasHandle* handle);
  int (*destroy)(GpuBlasHandle handle);
  int (*set_stream)(GpuBlasHandle handle, GpuStreamHandle stream);
  // Bytes must stay allocated for the handle's lifetime.
  int (*set_workspace)(GpuBlasHandle handle, void* workspace, size_t bytes);
  int (*set_math_mode)(GpuBlasHandle handle, GpuBlasMathMode mode);

  // f32 in and out, f32 accumulation.
  int (*sgemm_strided_batched)(GpuBlasHandle handle, const GpuBlasGemm& gemm);
  // bf16 in and out, f32 accumulation and f32 alpha/beta.
  int (*bf16_gemm_strided_batched)(GpuBlasHandle handle,
                                   const GpuBlasGemm& gemm);
  // bf16 in, f32 out, f32 accumulation and f32 alpha/beta.
  int (*bf16_f32_gemm_strided_batched)(GpuBlasHandle handle,
                                       const GpuBlasGemm& gemm);
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_BLAS_API_H_
