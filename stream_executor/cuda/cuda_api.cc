#include "stream_executor/cuda/cuda_api.h"

#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "cuda.h"
#include "cuda_runtime_api.h"
#include "glog/logging.h"
#include "stream_executor/cuda/cuda_conditional.h"

namespace stream_executor::cuda {
namespace {

using gpu::GpuError;
using gpu::GpuEventHandle;
using gpu::GpuFunctionHandle;
using gpu::GpuGraphExecHandle;
using gpu::GpuGraphHandle;
using gpu::GpuGraphNodeHandle;
using gpu::GpuModuleHandle;
using gpu::GpuStreamHandle;

// Driver API entry points, reached through the statically linked runtime so
// that the binary has no link-time dependency on libcuda.
struct DriverFunctions {
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuMemsetD32Async) memset_d32_async = nullptr;
  // Kernel nodes go through the driver because the runtime's
  // cudaKernelNodeParams names a kernel by its host stub, and ours are
  // CUfunctions from modules loaded at run time.
  decltype(&::cuGraphAddKernelNode) graph_add_kernel_node = nullptr;
  decltype(&::cuGraphKernelNodeSetParams) graph_kernel_node_set_params =
      nullptr;
  decltype(&::cuGraphExecKernelNodeSetParams)
      graph_exec_kernel_node_set_params = nullptr;
};

DriverFunctions& Driver() {
  static DriverFunctions* driver = new DriverFunctions;
  return *driver;
}

// The table's error codes are cudaError_t values; driver results (CUresult,
// a different enumeration) are stored negated so that one int says which API
// it came from and error_name/error_string can describe both.
GpuError FromDriver(CUresult result) { return -static_cast<GpuError>(result); }
GpuError FromRuntime(cudaError_t error) { return static_cast<GpuError>(error); }

cudaStream_t ToCuda(GpuStreamHandle stream) {
  return reinterpret_cast<cudaStream_t>(stream);
}
cudaEvent_t ToCuda(GpuEventHandle event) {
  return reinterpret_cast<cudaEvent_t>(event);
}
CUmodule ToCuda(GpuModuleHandle module) {
  return reinterpret_cast<CUmodule>(module);
}
CUfunction ToCuda(GpuFunctionHandle function) {
  return reinterpret_cast<CUfunction>(function);
}
cudaGraph_t ToCuda(GpuGraphHandle graph) {
  return reinterpret_cast<cudaGraph_t>(graph);
}
// cudaGraphNode_t and CUgraphNode (likewise the executable graphs) are the
// same type, so one handle serves the runtime and the driver calls.
cudaGraphNode_t ToCuda(GpuGraphNodeHandle node) {
  return reinterpret_cast<cudaGraphNode_t>(node);
}
const cudaGraphNode_t* ToCuda(const GpuGraphNodeHandle* nodes) {
  return reinterpret_cast<const cudaGraphNode_t*>(nodes);
}
cudaGraphExec_t ToCuda(GpuGraphExecHandle exec) {
  return reinterpret_cast<cudaGraphExec_t>(exec);
}

const char* ErrorName(GpuError error) {
  if (error >= 0) return cudaGetErrorName(static_cast<cudaError_t>(error));
  const char* name = nullptr;
  if (Driver().get_error_name == nullptr ||
      Driver().get_error_name(static_cast<CUresult>(-error), &name) !=
          CUDA_SUCCESS) {
    return "unknown CUDA driver error";
  }
  return name;
}

const char* ErrorString(GpuError error) {
  if (error >= 0) return cudaGetErrorString(static_cast<cudaError_t>(error));
  const char* description = nullptr;
  if (Driver().get_error_string == nullptr ||
      Driver().get_error_string(static_cast<CUresult>(-error), &description) !=
          CUDA_SUCCESS) {
    return "unknown CUDA driver error";
  }
  return description;
}

GpuError GetDeviceCount(int* count) {
  return FromRuntime(cudaGetDeviceCount(count));
}

GpuError SetDevice(int ordinal) { return FromRuntime(cudaSetDevice(ordinal)); }

GpuError GetDeviceProperties(int ordinal, gpu::GpuDeviceProperties* props) {
  cudaDeviceProp prop;
  cudaError_t error = cudaGetDeviceProperties(&prop, ordinal);
  if (error != cudaSuccess) return FromRuntime(error);
  std::snprintf(props->name, sizeof(props->name), "%s", prop.name);
  std::snprintf(props->arch, sizeof(props->arch), "sm_%d%d", prop.major,
                prop.minor);
  props->compute_major = prop.major;
  props->compute_minor = prop.minor;
  props->multiprocessor_count = prop.multiProcessorCount;
  props->total_memory = prop.totalGlobalMem;
  return FromRuntime(cudaSuccess);
}

GpuError DeviceSynchronize() { return FromRuntime(cudaDeviceSynchronize()); }

GpuError VersionString(char* buffer, size_t size) {
  int runtime = 0, driver = 0;
  cudaError_t error = cudaRuntimeGetVersion(&runtime);
  if (error == cudaSuccess) error = cudaDriverGetVersion(&driver);
  if (error != cudaSuccess) return FromRuntime(error);
  std::snprintf(buffer, size, "CUDA runtime %d.%d, driver %d.%d",
                runtime / 1000, (runtime % 1000) / 10, driver / 1000,
                (driver % 1000) / 10);
  return FromRuntime(cudaSuccess);
}

GpuError MemAlloc(void** ptr, size_t size) {
  return FromRuntime(cudaMalloc(ptr, size));
}

GpuError MemFree(void* ptr) { return FromRuntime(cudaFree(ptr)); }

GpuError MemcpyAsync(void* dst, const void* src, size_t size,
                     gpu::GpuMemcpyKind kind, GpuStreamHandle stream) {
  cudaMemcpyKind cuda_kind = cudaMemcpyDeviceToDevice;
  switch (kind) {
    case gpu::GpuMemcpyKind::kHostToDevice:
      cuda_kind = cudaMemcpyHostToDevice;
      break;
    case gpu::GpuMemcpyKind::kDeviceToHost:
      cuda_kind = cudaMemcpyDeviceToHost;
      break;
    case gpu::GpuMemcpyKind::kDeviceToDevice:
      cuda_kind = cudaMemcpyDeviceToDevice;
      break;
  }
  return FromRuntime(
      cudaMemcpyAsync(dst, src, size, cuda_kind, ToCuda(stream)));
}

GpuError Memset8Async(void* dst, uint8_t value, size_t size,
                      GpuStreamHandle stream) {
  return FromRuntime(cudaMemsetAsync(dst, value, size, ToCuda(stream)));
}

// The runtime has no 32-bit memset; the driver's takes the same stream.
GpuError Memset32Async(void* dst, uint32_t pattern, size_t count,
                       GpuStreamHandle stream) {
  return FromDriver(
      Driver().memset_d32_async(reinterpret_cast<CUdeviceptr>(dst), pattern,
                                count, reinterpret_cast<CUstream>(stream)));
}

GpuError StreamCreate(GpuStreamHandle* stream) {
  cudaStream_t cuda_stream = nullptr;
  cudaError_t error =
      cudaStreamCreateWithFlags(&cuda_stream, cudaStreamNonBlocking);
  *stream = reinterpret_cast<GpuStreamHandle>(cuda_stream);
  return FromRuntime(error);
}

GpuError StreamDestroy(GpuStreamHandle stream) {
  return FromRuntime(cudaStreamDestroy(ToCuda(stream)));
}

GpuError StreamSynchronize(GpuStreamHandle stream) {
  return FromRuntime(cudaStreamSynchronize(ToCuda(stream)));
}

GpuError StreamQuery(GpuStreamHandle stream) {
  return FromRuntime(cudaStreamQuery(ToCuda(stream)));
}

GpuError StreamWaitEvent(GpuStreamHandle stream, GpuEventHandle event) {
  return FromRuntime(cudaStreamWaitEvent(ToCuda(stream), ToCuda(event), 0));
}

GpuError LaunchHostFunction(GpuStreamHandle stream, gpu::GpuHostFunction fn,
                            void* user_data) {
  return FromRuntime(cudaLaunchHostFunc(ToCuda(stream), fn, user_data));
}

GpuError EventCreate(GpuEventHandle* event) {
  cudaEvent_t cuda_event = nullptr;
  cudaError_t error =
      cudaEventCreateWithFlags(&cuda_event, cudaEventDisableTiming);
  *event = reinterpret_cast<GpuEventHandle>(cuda_event);
  return FromRuntime(error);
}

GpuError EventDestroy(GpuEventHandle event) {
  return FromRuntime(cudaEventDestroy(ToCuda(event)));
}

GpuError EventRecord(GpuEventHandle event, GpuStreamHandle stream) {
  return FromRuntime(cudaEventRecord(ToCuda(event), ToCuda(stream)));
}

GpuError EventSynchronize(GpuEventHandle event) {
  return FromRuntime(cudaEventSynchronize(ToCuda(event)));
}

GpuError EventQuery(GpuEventHandle event) {
  return FromRuntime(cudaEventQuery(ToCuda(event)));
}

GpuError ModuleLoadData(GpuModuleHandle* module, const void* image) {
  CUmodule cu_module = nullptr;
  CUresult result = Driver().module_load_data(&cu_module, image);
  *module = reinterpret_cast<GpuModuleHandle>(cu_module);
  return FromDriver(result);
}

GpuError ModuleUnload(GpuModuleHandle module) {
  return FromDriver(Driver().module_unload(ToCuda(module)));
}

GpuError ModuleGetFunction(GpuFunctionHandle* function, GpuModuleHandle module,
                           const char* name) {
  CUfunction cu_function = nullptr;
  CUresult result =
      Driver().module_get_function(&cu_function, ToCuda(module), name);
  *function = reinterpret_cast<GpuFunctionHandle>(cu_function);
  return FromDriver(result);
}

GpuError LaunchKernel(GpuFunctionHandle function, unsigned grid_x,
                      unsigned grid_y, unsigned grid_z, unsigned block_x,
                      unsigned block_y, unsigned block_z,
                      unsigned shared_memory_bytes, GpuStreamHandle stream,
                      void** params) {
  return FromDriver(Driver().launch_kernel(
      ToCuda(function), grid_x, grid_y, grid_z, block_x, block_y, block_z,
      shared_memory_bytes, reinterpret_cast<CUstream>(stream), params,
      /*extra=*/nullptr));
}

GpuError StreamBeginCapture(GpuStreamHandle stream) {
  // Relaxed: see GpuApi::stream_begin_capture.
  return FromRuntime(
      cudaStreamBeginCapture(ToCuda(stream), cudaStreamCaptureModeRelaxed));
}

GpuError StreamEndCapture(GpuStreamHandle stream, GpuGraphHandle* graph) {
  cudaGraph_t cuda_graph = nullptr;
  cudaError_t error = cudaStreamEndCapture(ToCuda(stream), &cuda_graph);
  *graph = reinterpret_cast<GpuGraphHandle>(cuda_graph);
  return FromRuntime(error);
}

GpuError GraphDestroy(GpuGraphHandle graph) {
  return FromRuntime(cudaGraphDestroy(ToCuda(graph)));
}

GpuError GraphNumNodes(GpuGraphHandle graph, size_t* count) {
  return FromRuntime(cudaGraphGetNodes(ToCuda(graph), nullptr, count));
}

GpuError GraphCreate(GpuGraphHandle* graph) {
  cudaGraph_t cuda_graph = nullptr;
  cudaError_t error = cudaGraphCreate(&cuda_graph, 0);
  *graph = reinterpret_cast<GpuGraphHandle>(cuda_graph);
  return FromRuntime(error);
}

GpuError GraphClone(GpuGraphHandle* clone, GpuGraphHandle graph) {
  cudaGraph_t cuda_clone = nullptr;
  cudaError_t error = cudaGraphClone(&cuda_clone, ToCuda(graph));
  *clone = reinterpret_cast<GpuGraphHandle>(cuda_clone);
  return FromRuntime(error);
}

CUDA_KERNEL_NODE_PARAMS ToCuda(const gpu::GpuKernelNodeParams& params) {
  // `kern` and `ctx` stay null: with `func` set the driver ignores them and
  // runs the function in the context that loaded its module.
  CUDA_KERNEL_NODE_PARAMS cuda_params = {};
  cuda_params.func = ToCuda(params.function);
  cuda_params.gridDimX = params.grid_x;
  cuda_params.gridDimY = params.grid_y;
  cuda_params.gridDimZ = params.grid_z;
  cuda_params.blockDimX = params.block_x;
  cuda_params.blockDimY = params.block_y;
  cuda_params.blockDimZ = params.block_z;
  cuda_params.sharedMemBytes = params.shared_memory_bytes;
  cuda_params.kernelParams = params.params;
  return cuda_params;
}

cudaMemsetParams Memset32Params(void* dst, uint32_t pattern, size_t count) {
  cudaMemsetParams params = {};
  params.dst = dst;
  params.value = pattern;
  params.elementSize = 4;
  params.width = count;
  params.height = 1;
  return params;
}

GpuGraphNodeHandle FromCuda(cudaGraphNode_t node) {
  return reinterpret_cast<GpuGraphNodeHandle>(node);
}

GpuError GraphAddKernelNode(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                            const GpuGraphNodeHandle* deps, size_t num_deps,
                            const gpu::GpuKernelNodeParams* params) {
  // cuGraphAddKernelNode copies the parameter pointer array and the values
  // it points to during the call (CUDA driver API reference).
  CUDA_KERNEL_NODE_PARAMS cuda_params = ToCuda(*params);
  CUgraphNode cu_node = nullptr;
  CUresult result = Driver().graph_add_kernel_node(
      &cu_node, ToCuda(graph), ToCuda(deps), num_deps, &cuda_params);
  *node = reinterpret_cast<GpuGraphNodeHandle>(cu_node);
  return FromDriver(result);
}

GpuError GraphAddMemcpyD2DNode(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                               const GpuGraphNodeHandle* deps, size_t num_deps,
                               void* dst, const void* src, size_t size) {
  cudaGraphNode_t cuda_node = nullptr;
  cudaError_t error = cudaGraphAddMemcpyNode1D(&cuda_node, ToCuda(graph),
                                               ToCuda(deps), num_deps, dst, src,
                                               size, cudaMemcpyDeviceToDevice);
  *node = FromCuda(cuda_node);
  return FromRuntime(error);
}

GpuError GraphAddMemset32Node(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                              const GpuGraphNodeHandle* deps, size_t num_deps,
                              void* dst, uint32_t pattern, size_t count) {
  cudaMemsetParams params = Memset32Params(dst, pattern, count);
  cudaGraphNode_t cuda_node = nullptr;
  cudaError_t error = cudaGraphAddMemsetNode(&cuda_node, ToCuda(graph),
                                             ToCuda(deps), num_deps, &params);
  *node = FromCuda(cuda_node);
  return FromRuntime(error);
}

GpuError GraphAddChildNode(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                           const GpuGraphNodeHandle* deps, size_t num_deps,
                           GpuGraphHandle child) {
  cudaGraphNode_t cuda_node = nullptr;
  cudaError_t error = cudaGraphAddChildGraphNode(
      &cuda_node, ToCuda(graph), ToCuda(deps), num_deps, ToCuda(child));
  *node = FromCuda(cuda_node);
  return FromRuntime(error);
}

GpuError GraphAddEmptyNode(GpuGraphNodeHandle* node, GpuGraphHandle graph,
                           const GpuGraphNodeHandle* deps, size_t num_deps) {
  cudaGraphNode_t cuda_node = nullptr;
  cudaError_t error =
      cudaGraphAddEmptyNode(&cuda_node, ToCuda(graph), ToCuda(deps), num_deps);
  *node = FromCuda(cuda_node);
  return FromRuntime(error);
}

GpuError GraphAddDependency(GpuGraphHandle graph, GpuGraphNodeHandle from,
                            GpuGraphNodeHandle to) {
  cudaGraphNode_t cuda_from = ToCuda(from), cuda_to = ToCuda(to);
  return FromRuntime(cudaGraphAddDependencies(
      ToCuda(graph), &cuda_from, &cuda_to, /*edgeData=*/nullptr, 1));
}

GpuError GraphAddProgrammaticDependency(GpuGraphHandle graph,
                                        GpuGraphNodeHandle from,
                                        GpuGraphNodeHandle to) {
  cudaGraphNode_t cuda_from = ToCuda(from), cuda_to = ToCuda(to);
  cudaGraphEdgeData edge = {};
  edge.from_port = cudaGraphKernelNodePortProgrammatic;
  edge.type = cudaGraphDependencyTypeProgrammatic;
  return FromRuntime(
      cudaGraphAddDependencies(ToCuda(graph), &cuda_from, &cuda_to, &edge, 1));
}

GpuError GraphDestroyNode(GpuGraphNodeHandle node) {
  return FromRuntime(cudaGraphDestroyNode(ToCuda(node)));
}

cudaError_t SetKernelPriorities(cudaGraph_t graph, int priority);

// Sets `priority` on a kernel node, or on every kernel node of the graph a
// child node embeds (changing that graph changes the node, CUDA runtime
// API reference).
cudaError_t SetKernelPriority(cudaGraphNode_t node, int priority) {
  cudaGraphNodeType type;
  cudaError_t error = cudaGraphNodeGetType(node, &type);
  if (error != cudaSuccess) return error;
  if (type == cudaGraphNodeTypeKernel) {
    cudaLaunchAttributeValue value = {};
    value.priority = priority;
    return cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributePriority,
                                           &value);
  }
  if (type != cudaGraphNodeTypeGraph) return cudaSuccess;
  cudaGraph_t child = nullptr;
  error = cudaGraphChildGraphNodeGetGraph(node, &child);
  return error == cudaSuccess ? SetKernelPriorities(child, priority) : error;
}

cudaError_t SetKernelPriorities(cudaGraph_t graph, int priority) {
  size_t count = 0;
  cudaError_t error = cudaGraphGetNodes(graph, nullptr, &count);
  std::vector<cudaGraphNode_t> nodes(count);
  if (error == cudaSuccess && count > 0) {
    error = cudaGraphGetNodes(graph, nodes.data(), &count);
  }
  for (cudaGraphNode_t node : nodes) {
    if (error != cudaSuccess) break;
    error = SetKernelPriority(node, priority);
  }
  return error;
}

// The current device's highest priority: lower numbers are higher, and
// the range is [greatest, least].
cudaError_t HighestPriority(int* greatest) {
  int least = 0;
  return cudaDeviceGetStreamPriorityRange(&least, greatest);
}

GpuError GraphNodeSetHighPriority(GpuGraphNodeHandle node) {
  int priority = 0;
  cudaError_t error = HighestPriority(&priority);
  if (error == cudaSuccess) error = SetKernelPriority(ToCuda(node), priority);
  return FromRuntime(error);
}

GpuError GraphSetHighPriority(GpuGraphHandle graph) {
  int priority = 0;
  cudaError_t error = HighestPriority(&priority);
  if (error == cudaSuccess) error = SetKernelPriorities(ToCuda(graph), priority);
  return FromRuntime(error);
}

GpuError GraphKernelNodeSetParams(GpuGraphNodeHandle node,
                                  const gpu::GpuKernelNodeParams* params) {
  CUDA_KERNEL_NODE_PARAMS cuda_params = ToCuda(*params);
  return FromDriver(Driver().graph_kernel_node_set_params(
      reinterpret_cast<CUgraphNode>(node), &cuda_params));
}

GpuError GraphMemcpyD2DNodeSetParams(GpuGraphNodeHandle node, void* dst,
                                     const void* src, size_t size) {
  return FromRuntime(cudaGraphMemcpyNodeSetParams1D(
      ToCuda(node), dst, src, size, cudaMemcpyDeviceToDevice));
}

GpuError GraphMemset32NodeSetParams(GpuGraphNodeHandle node, void* dst,
                                    uint32_t pattern, size_t count) {
  cudaMemsetParams params = Memset32Params(dst, pattern, count);
  return FromRuntime(cudaGraphMemsetNodeSetParams(ToCuda(node), &params));
}

GpuError GraphInstantiate(GpuGraphExecHandle* exec, GpuGraphHandle graph) {
  cudaGraphExec_t cuda_exec = nullptr;
  cudaError_t error =
      cudaGraphInstantiate(&cuda_exec, ToCuda(graph),
                           cudaGraphInstantiateFlagUseNodePriority);
  *exec = reinterpret_cast<GpuGraphExecHandle>(cuda_exec);
  return FromRuntime(error);
}

GpuError GraphExecDestroy(GpuGraphExecHandle exec) {
  return FromRuntime(cudaGraphExecDestroy(ToCuda(exec)));
}

GpuError GraphLaunch(GpuGraphExecHandle exec, GpuStreamHandle stream) {
  return FromRuntime(cudaGraphLaunch(ToCuda(exec), ToCuda(stream)));
}

GpuError GraphExecKernelNodeSetParams(GpuGraphExecHandle exec,
                                      GpuGraphNodeHandle node,
                                      const gpu::GpuKernelNodeParams* params) {
  CUDA_KERNEL_NODE_PARAMS cuda_params = ToCuda(*params);
  return FromDriver(Driver().graph_exec_kernel_node_set_params(
      reinterpret_cast<CUgraphExec>(exec), reinterpret_cast<CUgraphNode>(node),
      &cuda_params));
}

GpuError GraphExecMemcpyD2DNodeSetParams(GpuGraphExecHandle exec,
                                         GpuGraphNodeHandle node, void* dst,
                                         const void* src, size_t size) {
  return FromRuntime(cudaGraphExecMemcpyNodeSetParams1D(
      ToCuda(exec), ToCuda(node), dst, src, size, cudaMemcpyDeviceToDevice));
}

GpuError GraphExecMemset32NodeSetParams(GpuGraphExecHandle exec,
                                        GpuGraphNodeHandle node, void* dst,
                                        uint32_t pattern, size_t count) {
  cudaMemsetParams params = Memset32Params(dst, pattern, count);
  return FromRuntime(
      cudaGraphExecMemsetNodeSetParams(ToCuda(exec), ToCuda(node), &params));
}

GpuError GraphExecChildNodeSetParams(GpuGraphExecHandle exec,
                                     GpuGraphNodeHandle node,
                                     GpuGraphHandle child) {
  return FromRuntime(cudaGraphExecChildGraphNodeSetParams(
      ToCuda(exec), ToCuda(node), ToCuda(child)));
}

template <typename Fn>
absl::Status ResolveDriverFunction(const char* symbol, Fn* out) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSuccess;
  cudaError_t error = cudaGetDriverEntryPointByVersion(
      symbol, &address, CUDA_VERSION, cudaEnableDefault, &query);
  if (error != cudaSuccess || address == nullptr ||
      query != cudaDriverEntryPointSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA driver entry point ", symbol, " (CUDA ",
                     CUDA_VERSION, ") not found: ", cudaGetErrorName(error),
                     ", query result ", static_cast<int>(query)));
  }
  *out = reinterpret_cast<Fn>(address);
  return absl::OkStatus();
}

// Fails when no usable driver is present: the runtime reports that from the
// first call that needs one, so the device count doubles as the probe.
absl::Status ProbeDriver() {
  int driver_version = 0;
  cudaDriverGetVersion(&driver_version);
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error == cudaSuccess) return absl::OkStatus();
  std::string detail =
      absl::StrCat(cudaGetErrorName(error), ": ", cudaGetErrorString(error));
  if (error == cudaErrorInsufficientDriver || driver_version == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CUDA driver not found: ", detail,
        driver_version == 0
            ? " (libcuda.so.1 could not be loaded; is an NVIDIA driver "
              "installed?)"
            : absl::StrCat(" (the driver supports CUDA ", driver_version / 1000,
                           ".", (driver_version % 1000) / 10,
                           ", this binary needs ", CUDART_VERSION / 1000, ".",
                           (CUDART_VERSION % 1000) / 10, ")")));
  }
  if (error == cudaErrorNoDevice) {
    return absl::FailedPreconditionError(
        absl::StrCat("no CUDA device is visible: ", detail));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("CUDA initialization failed: ", detail));
}

absl::StatusOr<const gpu::GpuApi*> Load() {
  RETURN_IF_ERROR(ProbeDriver());
  DriverFunctions& driver = Driver();
  RETURN_IF_ERROR(
      ResolveDriverFunction("cuGetErrorName", &driver.get_error_name));
  RETURN_IF_ERROR(
      ResolveDriverFunction("cuGetErrorString", &driver.get_error_string));
  RETURN_IF_ERROR(
      ResolveDriverFunction("cuModuleLoadData", &driver.module_load_data));
  RETURN_IF_ERROR(
      ResolveDriverFunction("cuModuleUnload", &driver.module_unload));
  RETURN_IF_ERROR(ResolveDriverFunction("cuModuleGetFunction",
                                        &driver.module_get_function));
  RETURN_IF_ERROR(
      ResolveDriverFunction("cuLaunchKernel", &driver.launch_kernel));
  RETURN_IF_ERROR(
      ResolveDriverFunction("cuMemsetD32Async", &driver.memset_d32_async));
  RETURN_IF_ERROR(ResolveDriverFunction("cuGraphAddKernelNode",
                                        &driver.graph_add_kernel_node));
  RETURN_IF_ERROR(ResolveDriverFunction("cuGraphKernelNodeSetParams",
                                        &driver.graph_kernel_node_set_params));
  RETURN_IF_ERROR(
      ResolveDriverFunction("cuGraphExecKernelNodeSetParams",
                            &driver.graph_exec_kernel_node_set_params));

  // Conditional nodes are left out where the driver predates them.
  int driver_version = 0;
  cudaDriverGetVersion(&driver_version);
  const bool conditional = driver_version >= kConditionalNodesDriverVersion;
  static const gpu::GpuApi api = {
      .display_name = "CUDA",
      .error_name = &ErrorName,
      .error_string = &ErrorString,
      .out_of_memory_error = FromRuntime(cudaErrorMemoryAllocation),
      .not_ready_error = FromRuntime(cudaErrorNotReady),
      .get_device_count = &GetDeviceCount,
      .set_device = &SetDevice,
      .get_device_properties = &GetDeviceProperties,
      .device_synchronize = &DeviceSynchronize,
      .version_string = &VersionString,
      .mem_alloc = &MemAlloc,
      .mem_free = &MemFree,
      .memcpy_async = &MemcpyAsync,
      .memset8_async = &Memset8Async,
      .memset32_async = &Memset32Async,
      .stream_create = &StreamCreate,
      .stream_destroy = &StreamDestroy,
      .stream_synchronize = &StreamSynchronize,
      .stream_query = &StreamQuery,
      .stream_wait_event = &StreamWaitEvent,
      .launch_host_function = &LaunchHostFunction,
      .event_create = &EventCreate,
      .event_destroy = &EventDestroy,
      .event_record = &EventRecord,
      .event_synchronize = &EventSynchronize,
      .event_query = &EventQuery,
      .module_load_data = &ModuleLoadData,
      .module_unload = &ModuleUnload,
      .module_get_function = &ModuleGetFunction,
      .launch_kernel = &LaunchKernel,
      .stream_begin_capture = &StreamBeginCapture,
      .stream_end_capture = &StreamEndCapture,
      .graph_destroy = &GraphDestroy,
      .graph_num_nodes = &GraphNumNodes,
      .graph_create = &GraphCreate,
      .graph_clone = &GraphClone,
      .graph_add_kernel_node = &GraphAddKernelNode,
      .graph_add_memcpy_d2d_node = &GraphAddMemcpyD2DNode,
      .graph_add_memset32_node = &GraphAddMemset32Node,
      .graph_add_child_node = &GraphAddChildNode,
      .graph_add_empty_node = &GraphAddEmptyNode,
      .graph_add_dependency = &GraphAddDependency,
      .graph_add_programmatic_dependency = &GraphAddProgrammaticDependency,
      .graph_destroy_node = &GraphDestroyNode,
      .graph_node_set_high_priority = &GraphNodeSetHighPriority,
      .graph_set_high_priority = &GraphSetHighPriority,
      .graph_kernel_node_set_params = &GraphKernelNodeSetParams,
      .graph_memcpy_d2d_node_set_params = &GraphMemcpyD2DNodeSetParams,
      .graph_memset32_node_set_params = &GraphMemset32NodeSetParams,
      .graph_instantiate = &GraphInstantiate,
      .graph_exec_destroy = &GraphExecDestroy,
      .graph_launch = &GraphLaunch,
      .graph_exec_kernel_node_set_params = &GraphExecKernelNodeSetParams,
      .graph_exec_memcpy_d2d_node_set_params = &GraphExecMemcpyD2DNodeSetParams,
      .graph_exec_memset32_node_set_params = &GraphExecMemset32NodeSetParams,
      .graph_exec_child_node_set_params = &GraphExecChildNodeSetParams,
      .graph_conditional_handle_create =
          conditional ? &GraphConditionalHandleCreate : nullptr,
      .graph_add_conditional_node =
          conditional ? &GraphAddConditionalNode : nullptr,
      .host_alloc = &HostAlloc,
      .host_free = &HostFree,
      .conditional_kernels = conditional ? kConditionalKernelsPtx : nullptr,
      .graph_traits =
          {
              // CUDA instantiates and launches graphs without nodes, and
              // embeds them as child graphs (a node that does nothing).
              .empty_graph_launch = true,
              .empty_child_graph = true,
              // cuGraphExecDestroy: "If the executable graph is in-flight,
              // it will not be terminated, but rather freed asynchronously
              // on completion" (CUDA driver API reference).
              .exec_destroy_defers_to_launches = true,
          },
  };
  VLOG(1) << "Loaded the CUDA API table (runtime " << CUDART_VERSION
          << ", driver entry points for " << CUDA_VERSION << ")";
  return &api;
}

}  // namespace

absl::StatusOr<const gpu::GpuApi*> LoadCudaApi() {
  // Probed once: cudart caches its initialization result anyway, and a
  // process does not gain a driver later.
  static const absl::StatusOr<const gpu::GpuApi*>* api =
      new absl::StatusOr<const gpu::GpuApi*>(Load());
  return *api;
}

}  // namespace stream_executor::cuda
