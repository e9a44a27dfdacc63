#include "stream_executor/cuda/cuda_conditional.h"

#include "cuda_runtime_api.h"

namespace stream_executor::cuda {
namespace {

gpu::GpuError FromRuntime(cudaError_t error) {
  return static_cast<gpu::GpuError>(error);
}

cudaGraphConditionalNodeType ToCuda(gpu::GpuApi::ConditionalKind kind) {
  switch (kind) {
    case gpu::GpuApi::ConditionalKind::kIf:
      return cudaGraphCondTypeIf;
    case gpu::GpuApi::ConditionalKind::kWhile:
      return cudaGraphCondTypeWhile;
    case gpu::GpuApi::ConditionalKind::kSwitch:
      return cudaGraphCondTypeSwitch;
  }
  return cudaGraphCondTypeIf;
}

}  // namespace

gpu::GpuError GraphConditionalHandleCreate(uint64_t* handle,
                                           gpu::GpuGraphHandle graph,
                                           unsigned default_value,
                                           bool reset_on_launch) {
  cudaGraphConditionalHandle cuda_handle = 0;
  cudaError_t error = cudaGraphConditionalHandleCreate(
      &cuda_handle, reinterpret_cast<cudaGraph_t>(graph), default_value,
      reset_on_launch ? cudaGraphCondAssignDefault : 0);
  *handle = cuda_handle;
  return FromRuntime(error);
}

gpu::GpuError GraphAddConditionalNode(gpu::GpuGraphNodeHandle* node,
                                      gpu::GpuGraphHandle graph,
                                      const gpu::GpuGraphNodeHandle* deps,
                                      size_t num_deps, uint64_t handle,
                                      gpu::GpuApi::ConditionalKind kind,
                                      unsigned num_bodies,
                                      gpu::GpuGraphHandle* bodies) {
  cudaGraphNodeParams params = {};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = ToCuda(kind);
  params.conditional.size = num_bodies;
  cudaGraphNode_t cuda_node = nullptr;
  cudaError_t error = cudaGraphAddNode(
      &cuda_node, reinterpret_cast<cudaGraph_t>(graph),
      reinterpret_cast<const cudaGraphNode_t*>(deps), /*dependencyData=*/nullptr,
      num_deps, &params);
  *node = reinterpret_cast<gpu::GpuGraphNodeHandle>(cuda_node);
  if (error == cudaSuccess) {
    for (unsigned i = 0; i < num_bodies; ++i) {
      bodies[i] =
          reinterpret_cast<gpu::GpuGraphHandle>(params.conditional.phGraph_out[i]);
    }
  }
  return FromRuntime(error);
}

gpu::GpuError HostAlloc(void** ptr, size_t size) {
  return FromRuntime(cudaMallocHost(ptr, size));
}

gpu::GpuError HostFree(void* ptr) { return FromRuntime(cudaFreeHost(ptr)); }

// Generic addressing throughout: the predicate and the trip counter are
// device memory, `exceeded` is pinned host memory seen through the same
// address (unified addressing).
const char kConditionalKernelsPtx[] = R"ptx(
.version 8.0
.target sm_60
.address_size 64

.extern .func cudaGraphSetConditional
(
  .param .b64 handle,
  .param .b32 value
);

.visible .entry set_while_condition(
  .param .u64 p_handle,
  .param .u64 p_predicate,
  .param .u64 p_trips,
  .param .u64 p_max_trips,
  .param .u64 p_exceeded,
  .param .u32 p_first
)
{
  .reg .pred %p<5>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [p_handle];
  ld.param.u64 %rd2, [p_predicate];
  ld.param.u64 %rd3, [p_trips];
  ld.param.u64 %rd4, [p_max_trips];
  ld.param.u64 %rd5, [p_exceeded];
  ld.param.u32 %r1, [p_first];

  // trips = first ? 0 : trips + 1
  mov.u64 %rd6, 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra STORE_TRIPS;
  ld.u64 %rd6, [%rd3];
  add.u64 %rd6, %rd6, 1;
STORE_TRIPS:
  st.u64 [%rd3], %rd6;

  ld.u8 %rs1, [%rd2];
  setp.ne.u16 %p2, %rs1, 0;
  setp.ge.u64 %p3, %rd6, %rd4;
  and.pred %p4, %p2, %p3;
  selp.u32 %r2, 1, 0, %p2;
  @%p4 st.u64 [%rd5], %rd4;
  @%p4 mov.u32 %r2, 0;

  {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd1;
    .param .b32 param1;
    st.param.b32 [param1+0], %r2;
    call.uni cudaGraphSetConditional, (param0, param1);
  }
  ret;
}

.visible .entry set_case_condition(
  .param .u64 p_handle,
  .param .u64 p_selector,
  .param .u32 p_is_pred,
  .param .u32 p_num_branches
)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;

  ld.param.u64 %rd1, [p_handle];
  ld.param.u64 %rd2, [p_selector];
  ld.param.u32 %r1, [p_is_pred];
  ld.param.u32 %r2, [p_num_branches];

  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra PRED;
  // An s32 index; negative ones compare as large unsigned values.
  ld.u32 %r3, [%rd2];
  setp.ge.u32 %p2, %r3, %r2;
  sub.u32 %r4, %r2, 1;
  @%p2 mov.u32 %r3, %r4;
  bra.uni SET;
PRED:
  ld.u8 %rs1, [%rd2];
  setp.ne.u16 %p3, %rs1, 0;
  selp.u32 %r3, 0, 1, %p3;
SET:
  {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd1;
    .param .b32 param1;
    st.param.b32 [param1+0], %r3;
    call.uni cudaGraphSetConditional, (param0, param1);
  }
  ret;
}
)ptx";

}  // namespace stream_executor::cuda
