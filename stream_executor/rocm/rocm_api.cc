#include "stream_executor/rocm/rocm_api.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "hip/hip_runtime_api.h"
#include "stream_executor/rocm/rocm_graph_api.h"
#include "stream_executor/rocm/rocm_hip_handles.h"
#include "stream_executor/rocm/rocm_library.h"

namespace stream_executor::rocm {
namespace {

using gpu::GpuError;
using gpu::GpuEventHandle;
using gpu::GpuFunctionHandle;
using gpu::GpuGraphHandle;
using gpu::GpuModuleHandle;
using gpu::GpuStreamHandle;
// The handle conversions, overloaded below for the memcpy kind.
using rocm::ToHip;

constexpr char kDisplayName[] = "HIP runtime";

// hipDeviceProp_t changed layout in HIP 6, which gave each layout its own
// symbol; the unversioned name kept the old layout for binaries built before.
// Resolving by the layout the headers declare keeps the struct and the
// library in agreement whichever release is installed.
using GetDevicePropertiesFn = hipError_t (*)(hipDeviceProp_t*, int);
#if HIP_VERSION_MAJOR >= 6
constexpr const char* kDevicePropertiesSymbols[] = {
    "hipGetDevicePropertiesR0600"};
#else
constexpr const char* kDevicePropertiesSymbols[] = {
    "hipGetDevicePropertiesR0000", "hipGetDeviceProperties"};
#endif

struct HipFunctions {
  decltype(&::hipGetErrorName) get_error_name = nullptr;
  decltype(&::hipGetErrorString) get_error_string = nullptr;
  decltype(&::hipGetDeviceCount) get_device_count = nullptr;
  decltype(&::hipSetDevice) set_device = nullptr;
  GetDevicePropertiesFn get_device_properties = nullptr;
  decltype(&::hipDeviceSynchronize) device_synchronize = nullptr;
  decltype(&::hipRuntimeGetVersion) runtime_get_version = nullptr;
  decltype(&::hipDriverGetVersion) driver_get_version = nullptr;
  // hipMalloc is also a C++ template overload, which decltype cannot pick.
  hipError_t (*mem_alloc)(void** ptr, size_t size) = nullptr;
  decltype(&::hipFree) mem_free = nullptr;
  decltype(&::hipMemcpyAsync) memcpy_async = nullptr;
  decltype(&::hipMemsetAsync) memset_async = nullptr;
  decltype(&::hipMemsetD32Async) memset_d32_async = nullptr;
  decltype(&::hipStreamCreateWithFlags) stream_create_with_flags = nullptr;
  decltype(&::hipStreamDestroy) stream_destroy = nullptr;
  decltype(&::hipStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::hipStreamQuery) stream_query = nullptr;
  decltype(&::hipStreamWaitEvent) stream_wait_event = nullptr;
  // Null where the library lacks it: HIP 5.2 declares hipLaunchHostFunc but
  // does not export it. hipStreamAddCallback stands in.
  decltype(&::hipLaunchHostFunc) launch_host_func = nullptr;
  decltype(&::hipStreamAddCallback) stream_add_callback = nullptr;
  decltype(&::hipEventCreateWithFlags) event_create_with_flags = nullptr;
  decltype(&::hipEventDestroy) event_destroy = nullptr;
  decltype(&::hipEventRecord) event_record = nullptr;
  decltype(&::hipEventSynchronize) event_synchronize = nullptr;
  decltype(&::hipEventQuery) event_query = nullptr;
  decltype(&::hipModuleLoadData) module_load_data = nullptr;
  decltype(&::hipModuleUnload) module_unload = nullptr;
  decltype(&::hipModuleGetFunction) module_get_function = nullptr;
  decltype(&::hipModuleLaunchKernel) module_launch_kernel = nullptr;
  decltype(&::hipStreamBeginCapture) stream_begin_capture = nullptr;
  decltype(&::hipStreamEndCapture) stream_end_capture = nullptr;
  decltype(&::hipGraphDestroy) graph_destroy = nullptr;
  decltype(&::hipGraphGetNodes) graph_get_nodes = nullptr;
};

// Filled once by Load, before the table that calls it is handed out. Constant
// initialized, so usable at any point of static initialization.
ABSL_CONST_INIT HipFunctions hip;

// HIP encodes versions as major * 10^7 + minor * 10^5 + patch.
std::string HipVersion(int version) {
  return absl::StrCat(version / 10000000, ".", (version / 100000) % 100, ".",
                      version % 100000);
}

const char* ErrorName(GpuError error) {
  return hip.get_error_name(static_cast<hipError_t>(error));
}

const char* ErrorString(GpuError error) {
  return hip.get_error_string(static_cast<hipError_t>(error));
}

GpuError GetDeviceCount(int* count) { return hip.get_device_count(count); }

GpuError SetDevice(int ordinal) { return hip.set_device(ordinal); }

GpuError GetDeviceProperties(int ordinal, gpu::GpuDeviceProperties* props) {
  hipDeviceProp_t prop = {};
  hipError_t error = hip.get_device_properties(&prop, ordinal);
  if (error != hipSuccess) return error;
  std::snprintf(props->name, sizeof(props->name), "%s", prop.name);
  // gcnArchName carries the target's feature settings
  // ("gfx90a:sramecc+:xnack-"). Code compiled for the processor alone leaves
  // those features unspecified and loads whatever the device's settings are,
  // so the processor is the compile target.
  absl::string_view arch = prop.gcnArchName;
  arch = arch.substr(0, arch.find(':'));
  std::snprintf(props->arch, sizeof(props->arch), "%.*s",
                static_cast<int>(arch.size()), arch.data());
  // HIP's own approximation of a compute capability (9.0 for gfx90a); only
  // messages and caches use it.
  props->compute_major = prop.major;
  props->compute_minor = prop.minor;
  props->multiprocessor_count = prop.multiProcessorCount;
  props->total_memory = prop.totalGlobalMem;
  VLOG(1) << "HIP device " << ordinal << ": " << prop.name << ", "
          << prop.gcnArchName;
  return hipSuccess;
}

GpuError DeviceSynchronize() { return hip.device_synchronize(); }

GpuError VersionString(char* buffer, size_t size) {
  int runtime = 0, driver = 0;
  hipError_t error = hip.runtime_get_version(&runtime);
  if (error == hipSuccess) error = hip.driver_get_version(&driver);
  if (error != hipSuccess) return error;
  std::snprintf(buffer, size, "HIP runtime %s, driver %s",
                HipVersion(runtime).c_str(), HipVersion(driver).c_str());
  return hipSuccess;
}

GpuError MemAlloc(void** ptr, size_t size) { return hip.mem_alloc(ptr, size); }

GpuError MemFree(void* ptr) { return hip.mem_free(ptr); }

hipMemcpyKind ToHip(gpu::GpuMemcpyKind kind) {
  switch (kind) {
    case gpu::GpuMemcpyKind::kHostToDevice:
      return hipMemcpyHostToDevice;
    case gpu::GpuMemcpyKind::kDeviceToHost:
      return hipMemcpyDeviceToHost;
    case gpu::GpuMemcpyKind::kDeviceToDevice:
      break;
  }
  return hipMemcpyDeviceToDevice;
}

GpuError MemcpyAsync(void* dst, const void* src, size_t size,
                     gpu::GpuMemcpyKind kind, GpuStreamHandle stream) {
  return hip.memcpy_async(dst, src, size, ToHip(kind), ToHip(stream));
}

GpuError Memset8Async(void* dst, uint8_t value, size_t size,
                      GpuStreamHandle stream) {
  return hip.memset_async(dst, value, size, ToHip(stream));
}

GpuError Memset32Async(void* dst, uint32_t pattern, size_t count,
                       GpuStreamHandle stream) {
  // HIP takes the pattern as an int; the conversion keeps its bits.
  return hip.memset_d32_async(dst, static_cast<int>(pattern), count,
                              ToHip(stream));
}

GpuError StreamCreate(GpuStreamHandle* stream) {
  return CreateHipHandle(stream, [](hipStream_t* hip_stream) {
    return hip.stream_create_with_flags(hip_stream, hipStreamNonBlocking);
  });
}

GpuError StreamDestroy(GpuStreamHandle stream) {
  return hip.stream_destroy(ToHip(stream));
}

GpuError StreamSynchronize(GpuStreamHandle stream) {
  return hip.stream_synchronize(ToHip(stream));
}

GpuError StreamQuery(GpuStreamHandle stream) {
  return hip.stream_query(ToHip(stream));
}

GpuError StreamWaitEvent(GpuStreamHandle stream, GpuEventHandle event) {
  return hip.stream_wait_event(ToHip(stream), ToHip(event), /*flags=*/0);
}

// What hipStreamAddCallback runs in place of a missing hipLaunchHostFunc.
struct HostCall {
  gpu::GpuHostFunction fn;
  void* user_data;
};

void RunHostCall(hipStream_t, hipError_t, void* data) {
  std::unique_ptr<HostCall> call(static_cast<HostCall*>(data));
  call->fn(call->user_data);
}

GpuError LaunchHostFunction(GpuStreamHandle stream, gpu::GpuHostFunction fn,
                            void* user_data) {
  if (hip.launch_host_func != nullptr) {
    return hip.launch_host_func(ToHip(stream), fn, user_data);
  }
  // Unlike a host function, a stream callback cannot be captured into a
  // graph; GpuStream refuses host callbacks while capturing anyway.
  auto call = std::make_unique<HostCall>(HostCall{fn, user_data});
  hipError_t error = hip.stream_add_callback(ToHip(stream), &RunHostCall,
                                             call.get(), /*flags=*/0);
  if (error == hipSuccess) call.release();  // Now owned by RunHostCall.
  return error;
}

GpuError EventCreate(GpuEventHandle* event) {
  return CreateHipHandle(event, [](hipEvent_t* hip_event) {
    return hip.event_create_with_flags(hip_event, hipEventDisableTiming);
  });
}

GpuError EventDestroy(GpuEventHandle event) {
  return hip.event_destroy(ToHip(event));
}

GpuError EventRecord(GpuEventHandle event, GpuStreamHandle stream) {
  return hip.event_record(ToHip(event), ToHip(stream));
}

GpuError EventSynchronize(GpuEventHandle event) {
  return hip.event_synchronize(ToHip(event));
}

GpuError EventQuery(GpuEventHandle event) {
  return hip.event_query(ToHip(event));
}

GpuError ModuleLoadData(GpuModuleHandle* module, const void* image) {
  return CreateHipHandle(module, [image](hipModule_t* hip_module) {
    return hip.module_load_data(hip_module, image);
  });
}

GpuError ModuleUnload(GpuModuleHandle module) {
  return hip.module_unload(ToHip(module));
}

GpuError ModuleGetFunction(GpuFunctionHandle* function, GpuModuleHandle module,
                           const char* name) {
  return CreateHipHandle(function, [module, name](hipFunction_t* hip_function) {
    return hip.module_get_function(hip_function, ToHip(module), name);
  });
}

GpuError LaunchKernel(GpuFunctionHandle function, unsigned grid_x,
                      unsigned grid_y, unsigned grid_z, unsigned block_x,
                      unsigned block_y, unsigned block_z,
                      unsigned shared_memory_bytes, GpuStreamHandle stream,
                      void** params) {
  return hip.module_launch_kernel(ToHip(function), grid_x, grid_y, grid_z,
                                  block_x, block_y, block_z,
                                  shared_memory_bytes, ToHip(stream), params,
                                  /*extra=*/nullptr);
}

GpuError StreamBeginCapture(GpuStreamHandle stream) {
  // Relaxed: see GpuApi::stream_begin_capture.
  return hip.stream_begin_capture(ToHip(stream), hipStreamCaptureModeRelaxed);
}

GpuError StreamEndCapture(GpuStreamHandle stream, GpuGraphHandle* graph) {
  return CreateHipHandle(graph, [stream](hipGraph_t* hip_graph) {
    return hip.stream_end_capture(ToHip(stream), hip_graph);
  });
}

GpuError GraphDestroy(GpuGraphHandle graph) {
  return hip.graph_destroy(ToHip(graph));
}

GpuError GraphNumNodes(GpuGraphHandle graph, size_t* count) {
  return hip.graph_get_nodes(ToHip(graph), /*nodes=*/nullptr, count);
}

absl::Status ResolveHipFunctions(const RocmLibrary& library) {
  HipFunctions& f = hip;
  RETURN_IF_ERROR(library.Resolve("hipGetErrorName", &f.get_error_name));
  RETURN_IF_ERROR(library.Resolve("hipGetErrorString", &f.get_error_string));
  RETURN_IF_ERROR(library.Resolve("hipGetDeviceCount", &f.get_device_count));
  RETURN_IF_ERROR(library.Resolve("hipSetDevice", &f.set_device));
  RETURN_IF_ERROR(library.ResolveFirstOf(kDevicePropertiesSymbols,
                                         &f.get_device_properties));
  RETURN_IF_ERROR(
      library.Resolve("hipDeviceSynchronize", &f.device_synchronize));
  RETURN_IF_ERROR(
      library.Resolve("hipRuntimeGetVersion", &f.runtime_get_version));
  RETURN_IF_ERROR(
      library.Resolve("hipDriverGetVersion", &f.driver_get_version));
  RETURN_IF_ERROR(library.Resolve("hipMalloc", &f.mem_alloc));
  RETURN_IF_ERROR(library.Resolve("hipFree", &f.mem_free));
  RETURN_IF_ERROR(library.Resolve("hipMemcpyAsync", &f.memcpy_async));
  RETURN_IF_ERROR(library.Resolve("hipMemsetAsync", &f.memset_async));
  RETURN_IF_ERROR(library.Resolve("hipMemsetD32Async", &f.memset_d32_async));
  RETURN_IF_ERROR(
      library.Resolve("hipStreamCreateWithFlags", &f.stream_create_with_flags));
  RETURN_IF_ERROR(library.Resolve("hipStreamDestroy", &f.stream_destroy));
  RETURN_IF_ERROR(
      library.Resolve("hipStreamSynchronize", &f.stream_synchronize));
  RETURN_IF_ERROR(library.Resolve("hipStreamQuery", &f.stream_query));
  RETURN_IF_ERROR(library.Resolve("hipStreamWaitEvent", &f.stream_wait_event));
  library.ResolveOptional("hipLaunchHostFunc", &f.launch_host_func);
  RETURN_IF_ERROR(
      library.Resolve("hipStreamAddCallback", &f.stream_add_callback));
  RETURN_IF_ERROR(
      library.Resolve("hipEventCreateWithFlags", &f.event_create_with_flags));
  RETURN_IF_ERROR(library.Resolve("hipEventDestroy", &f.event_destroy));
  RETURN_IF_ERROR(library.Resolve("hipEventRecord", &f.event_record));
  RETURN_IF_ERROR(library.Resolve("hipEventSynchronize", &f.event_synchronize));
  RETURN_IF_ERROR(library.Resolve("hipEventQuery", &f.event_query));
  RETURN_IF_ERROR(library.Resolve("hipModuleLoadData", &f.module_load_data));
  RETURN_IF_ERROR(library.Resolve("hipModuleUnload", &f.module_unload));
  RETURN_IF_ERROR(
      library.Resolve("hipModuleGetFunction", &f.module_get_function));
  RETURN_IF_ERROR(
      library.Resolve("hipModuleLaunchKernel", &f.module_launch_kernel));
  RETURN_IF_ERROR(
      library.Resolve("hipStreamBeginCapture", &f.stream_begin_capture));
  RETURN_IF_ERROR(
      library.Resolve("hipStreamEndCapture", &f.stream_end_capture));
  RETURN_IF_ERROR(library.Resolve("hipGraphDestroy", &f.graph_destroy));
  RETURN_IF_ERROR(library.Resolve("hipGraphGetNodes", &f.graph_get_nodes));
  return absl::OkStatus();
}

// HIP answers "no device" both on machines without AMD GPUs and where the
// kernel driver's device node is missing or closed to this user; the node
// tells the cases apart, which is what a user needs to fix it.
std::string DeviceNodeHint() {
  constexpr char kKfd[] = "/dev/kfd";
  if (access(kKfd, F_OK) != 0) {
    return absl::StrCat(" (", kKfd,
                        " does not exist: the amdgpu kernel driver is not "
                        "loaded, or a container was started without "
                        "--device=/dev/kfd --device=/dev/dri)");
  }
  if (access(kKfd, R_OK | W_OK) != 0) {
    return absl::StrCat(" (", kKfd,
                        " is not accessible: is the user in the render and "
                        "video groups?)");
  }
  return "";
}

// The device count is the first call that initializes the runtime, so it
// doubles as the probe, as on CUDA. Without /dev/kfd HIP 5.2 answers
// hipErrorNoDevice rather than failing to load.
absl::Status ProbeDevices() {
  int count = 0;
  hipError_t error = hip.get_device_count(&count);
  if (error == hipSuccess) return absl::OkStatus();
  absl::string_view name = hip.get_error_name(error);
  absl::string_view description = hip.get_error_string(error);
  std::string detail = name == description
                           ? std::string(name)
                           : absl::StrCat(name, ": ", description);
  if (error == hipErrorNoDevice) {
    return absl::FailedPreconditionError(
        absl::StrCat("no ROCm device is visible: ", detail, DeviceNodeHint()));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("ROCm initialization failed: ", detail, DeviceNodeHint()));
}

gpu::GpuApi MakeApi() {
  gpu::GpuApi api{};
  api.display_name = "ROCm";
  api.error_name = &ErrorName;
  api.error_string = &ErrorString;
  api.out_of_memory_error = hipErrorOutOfMemory;
  api.not_ready_error = hipErrorNotReady;
  api.get_device_count = &GetDeviceCount;
  api.set_device = &SetDevice;
  api.get_device_properties = &GetDeviceProperties;
  api.device_synchronize = &DeviceSynchronize;
  api.version_string = &VersionString;
  api.mem_alloc = &MemAlloc;
  api.mem_free = &MemFree;
  api.memcpy_async = &MemcpyAsync;
  api.memset8_async = &Memset8Async;
  api.memset32_async = &Memset32Async;
  api.stream_create = &StreamCreate;
  api.stream_destroy = &StreamDestroy;
  api.stream_synchronize = &StreamSynchronize;
  api.stream_query = &StreamQuery;
  api.stream_wait_event = &StreamWaitEvent;
  api.launch_host_function = &LaunchHostFunction;
  api.event_create = &EventCreate;
  api.event_destroy = &EventDestroy;
  api.event_record = &EventRecord;
  api.event_synchronize = &EventSynchronize;
  api.event_query = &EventQuery;
  api.module_load_data = &ModuleLoadData;
  api.module_unload = &ModuleUnload;
  api.module_get_function = &ModuleGetFunction;
  api.launch_kernel = &LaunchKernel;
  api.stream_begin_capture = &StreamBeginCapture;
  api.stream_end_capture = &StreamEndCapture;
  api.graph_destroy = &GraphDestroy;
  api.graph_num_nodes = &GraphNumNodes;
  return api;
}

absl::StatusOr<const gpu::GpuApi*> Load() {
  ASSIGN_OR_RETURN(RocmLibrary library,
                   RocmLibrary::Open(kDisplayName, kHipRuntimeSonames));
  RETURN_IF_ERROR(ResolveHipFunctions(library));
  RETURN_IF_ERROR(ProbeDevices());
  int runtime = 0;
  (void)hip.runtime_get_version(&runtime);
  auto* api = new gpu::GpuApi(MakeApi());
  // Without graph functions the platform still runs op by op: its command
  // buffers report UNIMPLEMENTED, which callers handle, so a runtime lacking
  // them is no reason to refuse the device.
  absl::Status graphs = FillHipGraphEntries(library, runtime, api);
  LOG_IF(WARNING, !graphs.ok())
      << "ROCm command buffers are unavailable: " << graphs;
  VLOG(1) << "Loaded the ROCm API table (HIP runtime " << HipVersion(runtime)
          << ", headers " << HIP_VERSION_MAJOR << "." << HIP_VERSION_MINOR
          << (hip.launch_host_func == nullptr
                  ? ", host functions through stream callbacks"
                  : "")
          << (graphs.ok() ? "" : ", no command buffers") << ")";
  return api;
}

}  // namespace

absl::StatusOr<const gpu::GpuApi*> LoadRocmApi() { return LoadOnce<&Load>(); }

}  // namespace stream_executor::rocm
