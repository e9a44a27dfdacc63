#ifndef STREAM_EXECUTOR_CUDA_CUDA_CONDITIONAL_H_
#define STREAM_EXECUTOR_CUDA_CUDA_CONDITIONAL_H_

#include <cstddef>
#include <cstdint>

#include "stream_executor/gpu/gpu_api.h"

namespace stream_executor::cuda {

// The conditional-node entries of the CUDA GpuApi table (see gpu_api.h).
// Conditional nodes need a driver of CUDA 12.8 or later, the first with
// `switch` nodes; LoadCudaApi leaves these entries out on older drivers.
inline constexpr int kConditionalNodesDriverVersion = 12080;

gpu::GpuError GraphConditionalHandleCreate(uint64_t* handle,
                                           gpu::GpuGraphHandle graph,
                                           unsigned default_value,
                                           bool reset_on_launch);
gpu::GpuError GraphAddConditionalNode(gpu::GpuGraphNodeHandle* node,
                                      gpu::GpuGraphHandle graph,
                                      const gpu::GpuGraphNodeHandle* deps,
                                      size_t num_deps, uint64_t handle,
                                      gpu::GpuApi::ConditionalKind kind,
                                      unsigned num_bodies,
                                      gpu::GpuGraphHandle* bodies);
gpu::GpuError HostAlloc(void** ptr, size_t size);
gpu::GpuError HostFree(void* ptr);

// PTX of set_while_condition and set_case_condition. Written as assembly
// because they call cudaGraphSetConditional, a device-runtime function that
// the driver resolves when it loads PTX; the runtime compiler's CUBIN would
// leave the call unresolved.
extern const char kConditionalKernelsPtx[];

}  // namespace stream_executor::cuda

#endif  // STREAM_EXECUTOR_CUDA_CUDA_CONDITIONAL_H_
