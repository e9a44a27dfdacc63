#ifndef STREAM_EXECUTOR_ROCM_ROCM_HIPRTC_H_
#define STREAM_EXECUTOR_ROCM_ROCM_HIPRTC_H_

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_compiler_api.h"

namespace stream_executor::rocm {

// The GpuCompilerApi table over hiprtc, loaded with dlopen on the first call:
// libhiprtc (ROCm 5.3 and later ship it apart), then the HIP runtime, which
// contains hiprtc up to ROCm 5.2. FAILED_PRECONDITION naming the library and
// dlerror() when neither is there. Thread-safe; loads once. hiprtc runs on the
// host, so it compiles for any AMD GPU without one present.
//
// Targets: a code object (hsaco) for the device's processor ("gfx90a"), with
// its features (xnack, sramecc) unspecified so the object loads in any mode.
// Options: -O3 -std=c++17 -ffp-contract=off, the last so that f32 arithmetic
// rounds every operation, as on the host platform and with NVRTC's
// --fmad=false.
absl::StatusOr<const gpu::GpuCompilerApi*> LoadHiprtcApi();

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_ROCM_HIPRTC_H_
