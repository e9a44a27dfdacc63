#ifndef STREAM_EXECUTOR_ROCM_ROCM_BLAS_H_
#define STREAM_EXECUTOR_ROCM_ROCM_BLAS_H_

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_blas_api.h"

namespace stream_executor::rocm {

// The GpuBlasApi table over hipBLAS (with its rocBLAS backend), loaded with
// dlopen on the first call: libhipblas.so, then the sonames of hipBLAS 0 to 3,
// each by name and then from /opt/rocm/lib. The soname of what loaded selects
// the data-type values of the bf16 gemm (hipBLAS 3 changed them).
// FAILED_PRECONDITION naming libhipblas and dlerror() when it is missing, or
// when the loaded library is a release this code does not know. Thread-safe;
// loads once.
absl::StatusOr<const gpu::GpuBlasApi*> LoadHipblasApi();

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_ROCM_BLAS_H_
