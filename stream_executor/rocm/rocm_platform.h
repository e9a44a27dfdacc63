#ifndef STREAM_EXECUTOR_ROCM_ROCM_PLATFORM_H_
#define STREAM_EXECUTOR_ROCM_ROCM_PLATFORM_H_

namespace stream_executor::rocm {

// The PlatformManager name of the platform that linking :rocm_platform
// registers: a GpuPlatform over the HIP, hiprtc and hipBLAS tables.
inline constexpr char kRocmPlatformName[] = "rocm";

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_ROCM_PLATFORM_H_
