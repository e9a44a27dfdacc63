#ifndef STREAM_EXECUTOR_ROCM_ROCM_HIP_HANDLES_H_
#define STREAM_EXECUTOR_ROCM_ROCM_HIP_HANDLES_H_

// The GpuApi handles and their HIP types, for the files that adapt HIP to the
// table (rocm_api.cc, rocm_graph_api.cc).

#include "hip/hip_runtime_api.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/rocm/rocm_handles.h"

namespace stream_executor::rocm {

// Each table handle's HIP type: the table's handles and HIP's are all
// pointers to opaque structs, and naming the pairs once keeps the casts from
// mixing them up. Only their types are used.
constexpr hipStream_t HipHandleType(gpu::GpuStreamHandle) { return nullptr; }
constexpr hipEvent_t HipHandleType(gpu::GpuEventHandle) { return nullptr; }
constexpr hipModule_t HipHandleType(gpu::GpuModuleHandle) { return nullptr; }
constexpr hipFunction_t HipHandleType(gpu::GpuFunctionHandle) {
  return nullptr;
}
constexpr hipGraph_t HipHandleType(gpu::GpuGraphHandle) { return nullptr; }
constexpr hipGraphNode_t HipHandleType(gpu::GpuGraphNodeHandle) {
  return nullptr;
}
constexpr hipGraphExec_t HipHandleType(gpu::GpuGraphExecHandle) {
  return nullptr;
}

template <typename GpuHandle>
using HipHandle = decltype(HipHandleType(GpuHandle()));

template <typename GpuHandle>
HipHandle<GpuHandle> ToHip(GpuHandle handle) {
  return reinterpret_cast<HipHandle<GpuHandle>>(handle);
}

// An array of table nodes (dependencies) as HIP's: both are arrays of
// pointers to opaque structs, so only the element type changes.
inline const hipGraphNode_t* ToHipNodes(const gpu::GpuGraphNodeHandle* nodes) {
  return reinterpret_cast<const hipGraphNode_t*>(nodes);
}

// Creates a HIP object through `create` and stores it as a table handle.
template <typename GpuHandle, typename Create>
gpu::GpuError CreateHipHandle(GpuHandle* out, Create create) {
  return CreateHandle<HipHandle<GpuHandle>>(out, create);
}

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_ROCM_HIP_HANDLES_H_
