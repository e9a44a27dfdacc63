#ifndef STREAM_EXECUTOR_CUDA_CUDA_BLAS_H_
#define STREAM_EXECUTOR_CUDA_CUDA_BLAS_H_

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_blas_api.h"

namespace stream_executor::cuda {

// The GpuBlasApi table over cuBLAS, loaded with dlopen on the first call
// (libcublasLt.so.13 first, which cuBLAS needs, then libcublas.so.13; each by
// soname, then from /usr/local/cuda/lib64). FAILED_PRECONDITION naming the
// library and dlerror() when one is missing. Thread-safe; loads once.
absl::StatusOr<const gpu::GpuBlasApi*> LoadCublasApi();

}  // namespace stream_executor::cuda

#endif  // STREAM_EXECUTOR_CUDA_CUDA_BLAS_H_
