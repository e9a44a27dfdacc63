#ifndef STREAM_EXECUTOR_CUDA_CUDA_NVRTC_H_
#define STREAM_EXECUTOR_CUDA_CUDA_NVRTC_H_

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_compiler_api.h"

namespace stream_executor::cuda {

// The GpuCompilerApi table over NVRTC, loaded with dlopen (libnvrtc.so.13,
// then /usr/local/cuda/lib64) on the first call. FAILED_PRECONDITION naming
// the library and dlerror() when it is missing. Thread-safe; loads once.
//
// Targets: CUBIN for sm_XY when this NVRTC supports the device's compute
// capability, otherwise PTX for the newest compute_XY it supports below it,
// which the driver compiles on load. Options: -default-device -std=c++17
// --fmad=false, and no --use_fast_math, so f32 arithmetic is IEEE with every
// operation rounded, as on the host platform.
absl::StatusOr<const gpu::GpuCompilerApi*> LoadNvrtcApi();

}  // namespace stream_executor::cuda

#endif  // STREAM_EXECUTOR_CUDA_CUDA_NVRTC_H_
