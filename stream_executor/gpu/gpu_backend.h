#ifndef STREAM_EXECUTOR_GPU_GPU_BACKEND_H_
#define STREAM_EXECUTOR_GPU_GPU_BACKEND_H_

#include <string>

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/gpu/gpu_blas_api.h"
#include "stream_executor/gpu/gpu_compiler_api.h"
#include "stream_executor/gpu/gpu_dnn_api.h"

namespace stream_executor::gpu {

// Each loader returns the same process-wide table on every call (loading it
// on the first), or why it cannot: no driver, library missing. Loaders are
// thread-safe and never crash, so a binary starts on any machine and the
// platform reports itself unavailable instead.
using GpuApiLoader = absl::StatusOr<const GpuApi*> (*)();
using GpuCompilerLoader = absl::StatusOr<const GpuCompilerApi*> (*)();
using GpuBlasLoader = absl::StatusOr<const GpuBlasApi*> (*)();
using GpuDnnLoader = absl::StatusOr<const GpuDnnApi*> (*)();

// Everything that makes a GpuPlatform CUDA or ROCm.
struct GpuBackend {
  std::string platform_name;  // "cuda", "rocm": the PlatformManager key.
  GpuApiLoader load_api = nullptr;
  // Loaded on the first LoadKernel, so that a machine without the runtime
  // compiler can still allocate, copy and run BLAS.
  GpuCompilerLoader load_compiler = nullptr;
  // Loaded on the first AsBlas().
  GpuBlasLoader load_blas = nullptr;
  // Loaded on the first AsDnn(); null where the backend has none (ROCm:
  // MIOpen is not loaded), and convolutions keep the emitted kernels.
  GpuDnnLoader load_dnn = nullptr;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_BACKEND_H_
