#ifndef STREAM_EXECUTOR_CUDA_CUDA_BLAS_LT_H_
#define STREAM_EXECUTOR_CUDA_CUDA_BLAS_LT_H_

#include "absl/status/status.h"
#include "stream_executor/gpu/gpu_blas_api.h"

namespace stream_executor::cuda {

// Resolves cuBLASLt's matmul entry points from `library` (libcublasLt,
// already open) and fills the lt_* members of `api`. On error `api` is left
// as it was, so the classic cuBLAS entry points serve every call.
absl::Status FillCublasLtEntries(void* library, gpu::GpuBlasApi& api);

}  // namespace stream_executor::cuda

#endif  // STREAM_EXECUTOR_CUDA_CUDA_BLAS_LT_H_
