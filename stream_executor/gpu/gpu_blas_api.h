#ifndef STREAM_EXECUTOR_GPU_GPU_BLAS_API_H_
#define STREAM_EXECUTOR_GPU_GPU_BLAS_API_H_

#include <cstddef>

#include "stream_executor/gpu/gpu_api.h"

namespace stream_executor::gpu {

using GpuBlasHandle = struct GpuBlasOpaque*;
// The matmul library beside the classic one (cuBLASLt), and one gemm shape's
// descriptors in it: created once per shape, used by any number of calls.
using GpuBlasLtHandle = struct GpuBlasLtOpaque*;
using GpuBlasLtPlan = struct GpuBlasLtPlanOpaque*;

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

enum class GpuBlasElementType { kF32, kBF16 };

// What a matmul plan is made for: everything of a GpuBlasGemm but the
// addresses and scalars, plus the element types and the math mode.
struct GpuBlasLtShape {
  bool transpose_a = false;
  bool transpose_b = false;
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  long long stride_a = 0, stride_b = 0, stride_c = 0;  // In elements.
  int batch_count = 1;
  GpuBlasElementType ab_type = GpuBlasElementType::kF32;
  GpuBlasElementType c_type = GpuBlasElementType::kF32;
  // f32 products may use TF32 tensor cores.
  bool allow_tf32 = false;
};

// One algorithm of a plan as the library's heuristic describes it (the
// library's own opaque record, copied), and the workspace it needs.
struct GpuBlasLtAlgorithm {
  alignas(8) unsigned char data[64] = {};
  size_t workspace_bytes = 0;
};

// Every address a matmul algorithm reads or writes is aligned to this many
// bytes; plans ask the heuristic for algorithms that need no more.
inline constexpr int kGpuBlasLtMinAlignmentBytes = 16;

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

  // The matmul library with algorithm selection. Optional: null where the
  // backend has none (hipBLASLt is not loaded yet), and then the entry
  // points above serve every call.
  int (*lt_create)(GpuBlasLtHandle* handle) = nullptr;
  int (*lt_destroy)(GpuBlasLtHandle handle) = nullptr;
  int (*lt_plan_create)(const GpuBlasLtShape& shape,
                        GpuBlasLtPlan* plan) = nullptr;
  int (*lt_plan_destroy)(GpuBlasLtPlan plan) = nullptr;
  // Up to `max` algorithms for `plan` that need at most `max_workspace`
  // bytes, best first by the library's heuristic; `*count` says how many.
  int (*lt_algorithms)(GpuBlasLtHandle handle, GpuBlasLtPlan plan,
                       size_t max_workspace, int max, GpuBlasLtAlgorithm* out,
                       int* count) = nullptr;
  // Enqueues one product of `plan`'s shape on `gemm`'s addresses and
  // scalars (its shape fields are not read) with `algorithm`.
  int (*lt_matmul)(GpuBlasLtHandle handle, GpuBlasLtPlan plan,
                   const GpuBlasGemm& gemm,
                   const GpuBlasLtAlgorithm& algorithm, void* workspace,
                   size_t workspace_bytes, GpuStreamHandle stream) = nullptr;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_BLAS_API_H_
