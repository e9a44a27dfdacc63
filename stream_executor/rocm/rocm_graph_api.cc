#include "stream_executor/rocm/rocm_graph_api.h"

#include <cstddef>
#include <cstdint>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hip/hip_runtime_api.h"
#include "stream_executor/rocm/rocm_hip_handles.h"

namespace stream_executor::rocm {
namespace {

using gpu::GpuError;
using gpu::GpuGraphExecHandle;
using gpu::GpuGraphHandle;
using gpu::GpuGraphNodeHandle;
using gpu::GpuKernelNodeParams;
using gpu::GpuStreamHandle;

// HIP 6.0, in hipRuntimeGetVersion's encoding. Before it,
// hipGraphExecChildGraphNodeSetParams is not called (see
// RefuseExecChildNodeSetParams).
constexpr int kHip6 = 60000000;

struct HipGraphFunctions {
  decltype(&::hipGraphCreate) create = nullptr;
  decltype(&::hipGraphClone) clone = nullptr;
  decltype(&::hipGraphAddKernelNode) add_kernel_node = nullptr;
  decltype(&::hipGraphAddMemcpyNode1D) add_memcpy_node_1d = nullptr;
  decltype(&::hipGraphAddMemsetNode) add_memset_node = nullptr;
  decltype(&::hipGraphAddChildGraphNode) add_child_graph_node = nullptr;
  decltype(&::hipGraphAddEmptyNode) add_empty_node = nullptr;
  decltype(&::hipGraphAddDependencies) add_dependencies = nullptr;
  decltype(&::hipGraphDestroyNode) destroy_node = nullptr;
  decltype(&::hipGraphKernelNodeSetParams) kernel_node_set_params = nullptr;
  decltype(&::hipGraphMemcpyNodeSetParams1D) memcpy_node_set_params_1d =
      nullptr;
  decltype(&::hipGraphMemsetNodeSetParams) memset_node_set_params = nullptr;
  decltype(&::hipGraphInstantiate) instantiate = nullptr;
  decltype(&::hipGraphExecDestroy) exec_destroy = nullptr;
  decltype(&::hipGraphLaunch) launch = nullptr;
  decltype(&::hipGraphExecKernelNodeSetParams) exec_kernel_node_set_params =
      nullptr;
  decltype(&::hipGraphExecMemcpyNodeSetParams1D)
      exec_memcpy_node_set_params_1d = nullptr;
  decltype(&::hipGraphExecMemsetNodeSetParams) exec_memset_node_set_params =
      nullptr;
  decltype(&::hipGraphExecChildGraphNodeSetParams)
      exec_child_graph_node_set_params = nullptr;
};

// Filled by FillHipGraphEntries before the table that calls it is handed out.
// Constant initialized, so usable at any point of static initialization.
ABSL_CONST_INIT HipGraphFunctions hip_graph;

// Resolves every function into `f`; returns the symbols the library lacks.
std::vector<std::string> ResolveAll(const RocmLibrary& library,
                                    HipGraphFunctions& f) {
  std::vector<std::string> missing;
  auto resolve = [&](const char* symbol, auto* out) {
    if (!library.Resolve(symbol, out).ok()) missing.push_back(symbol);
  };
  resolve("hipGraphCreate", &f.create);
  resolve("hipGraphClone", &f.clone);
  resolve("hipGraphAddKernelNode", &f.add_kernel_node);
  resolve("hipGraphAddMemcpyNode1D", &f.add_memcpy_node_1d);
  resolve("hipGraphAddMemsetNode", &f.add_memset_node);
  resolve("hipGraphAddChildGraphNode", &f.add_child_graph_node);
  resolve("hipGraphAddEmptyNode", &f.add_empty_node);
  resolve("hipGraphAddDependencies", &f.add_dependencies);
  resolve("hipGraphDestroyNode", &f.destroy_node);
  resolve("hipGraphKernelNodeSetParams", &f.kernel_node_set_params);
  resolve("hipGraphMemcpyNodeSetParams1D", &f.memcpy_node_set_params_1d);
  resolve("hipGraphMemsetNodeSetParams", &f.memset_node_set_params);
  resolve("hipGraphInstantiate", &f.instantiate);
  resolve("hipGraphExecDestroy", &f.exec_destroy);
  resolve("hipGraphLaunch", &f.launch);
  resolve("hipGraphExecKernelNodeSetParams", &f.exec_kernel_node_set_params);
  resolve("hipGraphExecMemcpyNodeSetParams1D",
          &f.exec_memcpy_node_set_params_1d);
  resolve("hipGraphExecMemsetNodeSetParams", &f.exec_memset_node_set_params);
  resolve("hipGraphExecChildGraphNodeSetParams",
          &f.exec_child_graph_node_set_params);
  return missing;
}

// What HIP reads from `kernelParams` for a kernel without parameters: HIP
// refuses a kernel node that has neither `kernelParams` nor `extra`
// (hipErrorInvalidValue, checked in HIP 5.2.3), while GpuKernelNodeParams
// leaves `params` null then. HIP copies as many values as the kernel
// declares, so this array is never read.
void* empty_kernel_params[1] = {nullptr};

// The kernel node names the kernel by a module function (hipModuleGetFunction)
// although hipKernelNodeParams.func is documented, like CUDA's runtime
// cudaKernelNodeParams.func, as a kernel's host stub; HIP 5.2 has no
// driver-style kernel node taking a hipFunction_t the way CUDA's
// cuGraphAddKernelNode takes a CUfunction. HIP looks `func` up among the host
// stubs registered by hipcc-compiled code and, when it is not one, uses it as
// a hipFunction_t. Checked in the disassembly of the HIP 5.2.3 runtime
// (Debian's libamdhip64.so.5.2.21153): hipGraphAddKernelNode's validation and
// node creation both fall back to `func` whenever the stub lookup fails; ROCm
// 4.5 still answered hipErrorInvalidDeviceFunction (ROCm/hip#2450), and later
// runtimes (hipamd, clr) keep the fallback for pointers that are no stub
// (hipErrorInvalidSymbol from the lookup). The risk: the fallback is in the
// implementation, not the documentation, and has never run on a device here. A
// module function is a heap object, so it cannot be mistaken for a stub (stubs
// are code addresses; this binary registers none). HIP copies the parameter
// values, as many as the kernel's signature declares, into the node before
// returning.
hipKernelNodeParams KernelNodeParams(const GpuKernelNodeParams& params) {
  hipKernelNodeParams hip_params = {};
  hip_params.func = ToHip(params.function);
  hip_params.gridDim = dim3(params.grid_x, params.grid_y, params.grid_z);
  hip_params.blockDim = dim3(params.block_x, params.block_y, params.block_z);
  hip_params.sharedMemBytes = params.shared_memory_bytes;
  hip_params.kernelParams =
      params.params != nullptr ? params.params : empty_kernel_params;
  hip_params.extra = nullptr;
  return hip_params;
}

hipMemsetParams Memset32Params(void* dst, uint32_t pattern, size_t count) {
  hipMemsetParams params = {};
  params.dst = dst;
  params.value = pattern;
  params.elementSize = 4;
  params.width = count;
  params.height = 1;
  // HIP reads the pitch only for more than one row; one row's pitch is its
  // size, which also satisfies a runtime that checks it regardless.
  params.pitch = count * 4;
  return params;
}

GpuError GraphCreate(GpuGraphHandle* graph) {
  return CreateHipHandle(graph, [](hipGraph_t* hip_graph_out) {
    return hip_graph.create(hip_graph_out, /*flags=*/0);
  });
}

GpuError GraphClone(GpuGraphHandle* clone, GpuGraphHandle graph) {
  return CreateHipHandle(clone, [graph](hipGraph_t* hip_clone) {
    return hip_graph.clone(hip_clone, ToHip(graph));
  });
}

GpuError GraphAddKernelNode(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                            const GpuGraphNodeHandle* deps, size_t num_deps,
                            const GpuKernelNodeParams* params) {
  hipKernelNodeParams hip_params = KernelNodeParams(*params);
  return CreateHipHandle(node, [&](hipGraphNode_t* hip_node) {
    return hip_graph.add_kernel_node(hip_node, ToHip(graph), ToHipNodes(deps),
                                     num_deps, &hip_params);
  });
}

GpuError GraphAddMemcpyD2DNode(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                               const GpuGraphNodeHandle* deps, size_t num_deps,
                               void* dst, const void* src, size_t size) {
  return CreateHipHandle(node, [&](hipGraphNode_t* hip_node) {
    return hip_graph.add_memcpy_node_1d(hip_node, ToHip(graph),
                                        ToHipNodes(deps), num_deps, dst, src,
                                        size, hipMemcpyDeviceToDevice);
  });
}

GpuError GraphAddMemset32Node(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                              const GpuGraphNodeHandle* deps, size_t num_deps,
                              void* dst, uint32_t pattern, size_t count) {
  hipMemsetParams params = Memset32Params(dst, pattern, count);
  return CreateHipHandle(node, [&](hipGraphNode_t* hip_node) {
    return hip_graph.add_memset_node(hip_node, ToHip(graph), ToHipNodes(deps),
                                     num_deps, &params);
  });
}

GpuError GraphAddChildNode(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                           const GpuGraphNodeHandle* deps, size_t num_deps,
                           GpuGraphHandle child) {
  // HIP's child node holds a clone of `child`, as the table requires.
  return CreateHipHandle(node, [&](hipGraphNode_t* hip_node) {
    return hip_graph.add_child_graph_node(
        hip_node, ToHip(graph), ToHipNodes(deps), num_deps, ToHip(child));
  });
}

GpuError GraphAddEmptyNode(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                           const GpuGraphNodeHandle* deps, size_t num_deps) {
  return CreateHipHandle(node, [&](hipGraphNode_t* hip_node) {
    return hip_graph.add_empty_node(hip_node, ToHip(graph), ToHipNodes(deps),
                                    num_deps);
  });
}

GpuError GraphAddDependency(GpuGraphHandle graph, GpuGraphNodeHandle from,
                            GpuGraphNodeHandle to) {
  hipGraphNode_t hip_from = ToHip(from), hip_to = ToHip(to);
  return hip_graph.add_dependencies(ToHip(graph), &hip_from, &hip_to, 1);
}

GpuError GraphDestroyNode(GpuGraphNodeHandle node) {
  return hip_graph.destroy_node(ToHip(node));
}

GpuError GraphKernelNodeSetParams(GpuGraphNodeHandle node,
                                  const GpuKernelNodeParams* params) {
  hipKernelNodeParams hip_params = KernelNodeParams(*params);
  return hip_graph.kernel_node_set_params(ToHip(node), &hip_params);
}

GpuError GraphMemcpyD2DNodeSetParams(GpuGraphNodeHandle node, void* dst,
                                     const void* src, size_t size) {
  return hip_graph.memcpy_node_set_params_1d(ToHip(node), dst, src, size,
                                             hipMemcpyDeviceToDevice);
}

GpuError GraphMemset32NodeSetParams(GpuGraphNodeHandle node, void* dst,
                                    uint32_t pattern, size_t count) {
  hipMemsetParams params = Memset32Params(dst, pattern, count);
  return hip_graph.memset_node_set_params(ToHip(node), &params);
}

GpuError GraphInstantiate(GpuGraphExecHandle* exec, GpuGraphHandle graph) {
  return CreateHipHandle(exec, [graph](hipGraphExec_t* hip_exec) {
    // The error node and log are not used: the status names the failure, and
    // HIP 5.2 fills neither. A real node slot costs nothing should a runtime
    // write one.
    hipGraphNode_t error_node = nullptr;
    return hip_graph.instantiate(hip_exec, ToHip(graph), &error_node,
                                 /*pLogBuffer=*/nullptr, /*bufferSize=*/0);
  });
}

GpuError GraphExecDestroy(GpuGraphExecHandle exec) {
  return hip_graph.exec_destroy(ToHip(exec));
}

GpuError GraphLaunch(GpuGraphExecHandle exec, GpuStreamHandle stream) {
  return hip_graph.launch(ToHip(exec), ToHip(stream));
}

GpuError GraphExecKernelNodeSetParams(GpuGraphExecHandle exec,
                                      GpuGraphNodeHandle node,
                                      const GpuKernelNodeParams* params) {
  hipKernelNodeParams hip_params = KernelNodeParams(*params);
  return hip_graph.exec_kernel_node_set_params(ToHip(exec), ToHip(node),
                                               &hip_params);
}

GpuError GraphExecMemcpyD2DNodeSetParams(GpuGraphExecHandle exec,
                                         GpuGraphNodeHandle node, void* dst,
                                         const void* src, size_t size) {
  return hip_graph.exec_memcpy_node_set_params_1d(
      ToHip(exec), ToHip(node), dst, src, size, hipMemcpyDeviceToDevice);
}

GpuError GraphExecMemset32NodeSetParams(GpuGraphExecHandle exec,
                                        GpuGraphNodeHandle node, void* dst,
                                        uint32_t pattern, size_t count) {
  hipMemsetParams params = Memset32Params(dst, pattern, count);
  return hip_graph.exec_memset_node_set_params(ToHip(exec), ToHip(node),
                                               &params);
}

GpuError GraphExecChildNodeSetParams(GpuGraphExecHandle exec,
                                     GpuGraphNodeHandle node,
                                     GpuGraphHandle child) {
  return hip_graph.exec_child_graph_node_set_params(ToHip(exec), ToHip(node),
                                                    ToHip(child));
}

// Before HIP 6. HIP 5.2's hipGraphExecChildGraphNodeSetParams checks the new
// child with hipGraphExecUpdate(exec, child): against the whole executable,
// not the child node, and hipGraphExecUpdate sets each executable node's
// parameters from the child's node at the same position while it compares.
// So it refuses almost every update, after overwriting nodes of the
// executable; and where the child's node types happen to match the whole
// executable's, it succeeds with the executable's own nodes rewritten.
// Refusing makes GpuCommandBuffer re-instantiate from its template graph,
// which it would almost always have done anyway, without touching the
// executable. hipamd later checks the topology against the child node alone;
// HIP 6 (clr) is the first release known to have that.
GpuError RefuseExecChildNodeSetParams(GpuGraphExecHandle, GpuGraphNodeHandle,
                                      GpuGraphHandle) {
  return hipErrorNotSupported;
}

}  // namespace

std::vector<std::string> MissingHipGraphFunctions(const RocmLibrary& library) {
  HipGraphFunctions unused;
  return ResolveAll(library, unused);
}

absl::Status FillHipGraphEntries(const RocmLibrary& library,
                                 int hip_runtime_version, gpu::GpuApi* api) {
  HipGraphFunctions functions;
  std::vector<std::string> missing = ResolveAll(library, functions);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the HIP runtime lacks graph functions: ",
                     absl::StrJoin(missing, ", ")));
  }
  hip_graph = functions;

  api->graph_create = &GraphCreate;
  api->graph_clone = &GraphClone;
  api->graph_add_kernel_node = &GraphAddKernelNode;
  api->graph_add_memcpy_d2d_node = &GraphAddMemcpyD2DNode;
  api->graph_add_memset32_node = &GraphAddMemset32Node;
  api->graph_add_child_node = &GraphAddChildNode;
  api->graph_add_empty_node = &GraphAddEmptyNode;
  api->graph_add_dependency = &GraphAddDependency;
  api->graph_destroy_node = &GraphDestroyNode;
  api->graph_kernel_node_set_params = &GraphKernelNodeSetParams;
  api->graph_memcpy_d2d_node_set_params = &GraphMemcpyD2DNodeSetParams;
  api->graph_memset32_node_set_params = &GraphMemset32NodeSetParams;
  api->graph_instantiate = &GraphInstantiate;
  api->graph_exec_destroy = &GraphExecDestroy;
  api->graph_launch = &GraphLaunch;
  api->graph_exec_kernel_node_set_params = &GraphExecKernelNodeSetParams;
  api->graph_exec_memcpy_d2d_node_set_params = &GraphExecMemcpyD2DNodeSetParams;
  api->graph_exec_memset32_node_set_params = &GraphExecMemset32NodeSetParams;
  api->graph_exec_child_node_set_params = hip_runtime_version >= kHip6
                                              ? &GraphExecChildNodeSetParams
                                              : &RefuseExecChildNodeSetParams;
  api->graph_traits = {
      // HIP documents nothing for a graph without nodes, and this has never
      // been launched on a device: one empty node is cheap insurance.
      .empty_graph_launch = false,
      // Likewise for an empty child graph; and HIP 5.2 runs a child node's
      // graph through its own run lists, which no test here has seen empty.
      .empty_child_graph = false,
      // HIP 5.2's hipGraphExecDestroy deletes the executable at once, with
      // nothing that waits for launches in flight (and the documentation
      // promises no deferral), so the command buffer must wait for its latest
      // launch first.
      .exec_destroy_defers_to_launches = false,
  };
  return absl::OkStatus();
}

}  // namespace stream_executor::rocm
