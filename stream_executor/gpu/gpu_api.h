#ifndef STREAM_EXECUTOR_GPU_GPU_API_H_
#define STREAM_EXECUTOR_GPU_GPU_API_H_

#include <cstddef>
#include <cstdint>

namespace stream_executor::gpu {

// Opaque handles of the GPU runtime. Each backend casts its own handle types
// (cudaStream_t, hipStream_t, CUmodule, ...) to and from these; distinct
// incomplete types keep a stream from being passed where an event belongs.
using GpuStreamHandle = struct GpuStreamOpaque*;
using GpuEventHandle = struct GpuEventOpaque*;
using GpuModuleHandle = struct GpuModuleOpaque*;
using GpuFunctionHandle = struct GpuFunctionOpaque*;
using GpuGraphHandle = struct GpuGraphOpaque*;
using GpuGraphNodeHandle = struct GpuGraphNodeOpaque*;
using GpuGraphExecHandle = struct GpuGraphExecOpaque*;

// Error code of every GpuApi call: 0 is success. The meaning of other values
// belongs to the backend and is only ever turned into text by the table's
// error_name / error_string, or compared with the codes the table names.
using GpuError = int;
inline constexpr GpuError kGpuSuccess = 0;

enum class GpuMemcpyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };

// What the runtime needs to know about one device. Fixed-size fields keep the
// struct plain so that a backend can fill it from C APIs alone.
struct GpuDeviceProperties {
  char name[256] = {};
  // Compile target: "sm_90" on CUDA, "gfx90a" on ROCm.
  char arch[64] = {};
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessor_count = 0;
  size_t total_memory = 0;
};

using GpuHostFunction = void (*)(void* user_data);

// One kernel launch as a graph node holds it. `params` is laid out as for
// launch_kernel: one pointer per kernel parameter, pointing at its value.
struct GpuKernelNodeParams {
  GpuFunctionHandle function = nullptr;
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1, block_y = 1, block_z = 1;
  unsigned shared_memory_bytes = 0;
  void** params = nullptr;
};

// The device runtime as the shared GPU code sees it: CUDA's runtime and driver
// APIs on one side, HIP's (which mirrors them) on the other. A backend fills
// one instance and hands it to GpuPlatform; nothing in stream_executor/gpu
// includes a vendor header.
//
// The table is plain function pointers rather than a virtual interface so
// that a backend can fill it straight from dlsym and keep it in static
// storage; it is immutable once loaded and safe to use from any thread.
struct GpuApi {
  // "CUDA", "ROCm": used in messages.
  const char* display_name;

  // Errors. error_name gives the symbolic name ("cudaErrorMemoryAllocation"),
  // error_string the description. Both accept any code the table returned.
  const char* (*error_name)(GpuError error);
  const char* (*error_string)(GpuError error);
  // Codes the shared code must tell apart from other failures.
  GpuError out_of_memory_error;
  GpuError not_ready_error;

  // Devices. set_device makes the device (and its primary context) current
  // on the calling thread; the shared code calls it before any work.
  GpuError (*get_device_count)(int* count);
  GpuError (*set_device)(int ordinal);
  GpuError (*get_device_properties)(int ordinal, GpuDeviceProperties* props);
  GpuError (*device_synchronize)();
  // Writes a short description of the runtime and driver versions.
  GpuError (*version_string)(char* buffer, size_t size);

  // Device memory, on the current device.
  GpuError (*mem_alloc)(void** ptr, size_t size);
  GpuError (*mem_free)(void* ptr);
  GpuError (*memcpy_async)(void* dst, const void* src, size_t size,
                           GpuMemcpyKind kind, GpuStreamHandle stream);
  GpuError (*memset8_async)(void* dst, uint8_t value, size_t size,
                            GpuStreamHandle stream);
  // `count` is in 32-bit words.
  GpuError (*memset32_async)(void* dst, uint32_t pattern, size_t count,
                             GpuStreamHandle stream);

  // Streams are created non-blocking: they never synchronize with the
  // legacy default stream, so an unrelated library using stream 0 cannot
  // stall ours.
  GpuError (*stream_create)(GpuStreamHandle* stream);
  GpuError (*stream_destroy)(GpuStreamHandle stream);
  GpuError (*stream_synchronize)(GpuStreamHandle stream);
  // kGpuSuccess when idle, not_ready_error while work is pending.
  GpuError (*stream_query)(GpuStreamHandle stream);
  GpuError (*stream_wait_event)(GpuStreamHandle stream, GpuEventHandle event);
  GpuError (*launch_host_function)(GpuStreamHandle stream, GpuHostFunction fn,
                                   void* user_data);

  // Events are created with timing disabled: they only order work, and
  // timing-enabled events are measurably more expensive to record.
  GpuError (*event_create)(GpuEventHandle* event);
  GpuError (*event_destroy)(GpuEventHandle event);
  GpuError (*event_record)(GpuEventHandle event, GpuStreamHandle stream);
  GpuError (*event_synchronize)(GpuEventHandle event);
  // kGpuSuccess when complete, not_ready_error otherwise.
  GpuError (*event_query)(GpuEventHandle event);

  // Modules and kernels, in the current device's context. `image` is a
  // binary (CUBIN, code object) or NUL-terminated assembly (PTX) as the
  // backend's runtime compiler produced it.
  GpuError (*module_load_data)(GpuModuleHandle* module, const void* image);
  GpuError (*module_unload)(GpuModuleHandle module);
  GpuError (*module_get_function)(GpuFunctionHandle* function,
                                  GpuModuleHandle module, const char* name);
  GpuError (*launch_kernel)(GpuFunctionHandle function, unsigned grid_x,
                            unsigned grid_y, unsigned grid_z, unsigned block_x,
                            unsigned block_y, unsigned block_z,
                            unsigned shared_memory_bytes,
                            GpuStreamHandle stream, void** params);

  // Stream capture into a graph. Backends begin capture in relaxed mode:
  // global mode would make every allocation in the process fail (and
  // invalidate the capture) while any stream captures, stalling executors on
  // other threads; thread-local mode would force EndCapture onto the thread
  // that called BeginCapture, which Stream's contract does not require. The
  // one unsafe call our code makes, allocation, is refused by GpuExecutor's
  // own capture counter instead.
  GpuError (*stream_begin_capture)(GpuStreamHandle stream);
  GpuError (*stream_end_capture)(GpuStreamHandle stream, GpuGraphHandle* graph);
  GpuError (*graph_destroy)(GpuGraphHandle graph);
  GpuError (*graph_num_nodes)(GpuGraphHandle graph, size_t* count);

  // Graphs built node by node (GpuCommandBuffer), on the current device. A
  // backend fills all of these or none; with none, its executors have no
  // command buffers (UNIMPLEMENTED) and callers run op by op.
  // Every call that takes node parameters copies them, kernel parameter
  // values included, before it returns: callers may free them right after.
  // `deps` may be null when `num_deps` is 0.
  GpuError (*graph_create)(GpuGraphHandle* graph);
  GpuError (*graph_clone)(GpuGraphHandle* clone, GpuGraphHandle graph);
  GpuError (*graph_add_kernel_node)(GpuGraphNodeHandle* node,
                                    GpuGraphHandle graph,
                                    const GpuGraphNodeHandle* deps,
                                    size_t num_deps,
                                    const GpuKernelNodeParams* params);
  GpuError (*graph_add_memcpy_d2d_node)(GpuGraphNodeHandle* node,
                                        GpuGraphHandle graph,
                                        const GpuGraphNodeHandle* deps,
                                        size_t num_deps, void* dst,
                                        const void* src, size_t size);
  // `count` is in 32-bit words and must not be 0.
  GpuError (*graph_add_memset32_node)(GpuGraphNodeHandle* node,
                                      GpuGraphHandle graph,
                                      const GpuGraphNodeHandle* deps,
                                      size_t num_deps, void* dst,
                                      uint32_t pattern, size_t count);
  // The node holds a copy of `child`.
  GpuError (*graph_add_child_node)(GpuGraphNodeHandle* node,
                                   GpuGraphHandle graph,
                                   const GpuGraphNodeHandle* deps,
                                   size_t num_deps, GpuGraphHandle child);
  GpuError (*graph_add_empty_node)(GpuGraphNodeHandle* node,
                                   GpuGraphHandle graph,
                                   const GpuGraphNodeHandle* deps,
                                   size_t num_deps);
  GpuError (*graph_add_dependency)(GpuGraphHandle graph,
                                   GpuGraphNodeHandle from,
                                   GpuGraphNodeHandle to);
  // An edge between kernel nodes that lets `to` launch once every block of
  // `from` has started or triggered its dependents; `to` must wait for
  // `from` itself (KernelSpec::waits_for_producers). Null where the
  // platform has no such edges.
  GpuError (*graph_add_programmatic_dependency)(GpuGraphHandle graph,
                                                GpuGraphNodeHandle from,
                                                GpuGraphNodeHandle to) =
      nullptr;
  // Also removes the node's edges.
  GpuError (*graph_destroy_node)(GpuGraphNodeHandle node);
  // Give a kernel node, or every kernel node in the graph a child node
  // holds (a library's captured kernels), or every kernel node of `graph`,
  // the device's highest launch priority; other nodes are left as they
  // are. Executables instantiated or updated afterwards launch each kernel
  // at its node's priority. Null where the platform has no per-node
  // priorities (its nodes then all run alike); a backend fills both or
  // neither.
  GpuError (*graph_node_set_high_priority)(GpuGraphNodeHandle node) = nullptr;
  GpuError (*graph_set_high_priority)(GpuGraphHandle graph) = nullptr;

  // New parameters for a node of a (not instantiated) graph; executable
  // graphs instantiated from it earlier keep theirs.
  GpuError (*graph_kernel_node_set_params)(GpuGraphNodeHandle node,
                                           const GpuKernelNodeParams* params);
  GpuError (*graph_memcpy_d2d_node_set_params)(GpuGraphNodeHandle node,
                                               void* dst, const void* src,
                                               size_t size);
  GpuError (*graph_memset32_node_set_params)(GpuGraphNodeHandle node, void* dst,
                                             uint32_t pattern, size_t count);

  // Executable graphs: no auto-free of graph allocations, no device
  // launch; where nodes have priorities (graph_node_set_high_priority),
  // kernels run at their node's rather than the launching stream's, which
  // here always has the default priority. The executable is independent of
  // the graph it came from, which may change or die afterwards.
  GpuError (*graph_instantiate)(GpuGraphExecHandle* exec, GpuGraphHandle graph);
  GpuError (*graph_exec_destroy)(GpuGraphExecHandle exec);
  GpuError (*graph_launch)(GpuGraphExecHandle exec, GpuStreamHandle stream);

  // In-place updates of one node of an executable graph, named by its node
  // in the graph it was instantiated from. They affect later launches only.
  // An error means the runtime refused the change (a different child
  // topology, a memset it cannot resize in place), not that the executable
  // is broken: the caller re-instantiates instead.
  GpuError (*graph_exec_kernel_node_set_params)(
      GpuGraphExecHandle exec, GpuGraphNodeHandle node,
      const GpuKernelNodeParams* params);
  GpuError (*graph_exec_memcpy_d2d_node_set_params)(GpuGraphExecHandle exec,
                                                    GpuGraphNodeHandle node,
                                                    void* dst, const void* src,
                                                    size_t size);
  GpuError (*graph_exec_memset32_node_set_params)(GpuGraphExecHandle exec,
                                                  GpuGraphNodeHandle node,
                                                  void* dst, uint32_t pattern,
                                                  size_t count);
  GpuError (*graph_exec_child_node_set_params)(GpuGraphExecHandle exec,
                                               GpuGraphNodeHandle node,
                                               GpuGraphHandle child);

  // Conditional nodes: loops and branches that run inside a graph, with no
  // host round trip. Null where the backend has none (HIP today);
  // GpuExecutor::SupportsConditionalCommands reports whether they are here.
  //
  // A handle is the value a conditional node tests; it belongs to `graph`,
  // the graph that will hold its node. With `reset_on_launch` every launch
  // of the executable sets it to `default_value`; otherwise only a kernel
  // sets it (a kernel of `conditional_kernels`, see GpuCommandBuffer).
  GpuError (*graph_conditional_handle_create)(uint64_t* handle,
                                              GpuGraphHandle graph,
                                              unsigned default_value,
                                              bool reset_on_launch) = nullptr;
  enum class ConditionalKind { kIf, kWhile, kSwitch };
  // Adds a conditional node testing `handle`, with `num_bodies` empty body
  // graphs that the node owns and writes to `bodies` (an `if` runs
  // bodies[0] when the value is nonzero, a `while` runs bodies[0] while it
  // is, a `switch` runs bodies[value] when the value is in range). Nodes
  // added to a body belong to the graph: instantiation takes them along,
  // and in-place updates of an executable name them like any other node.
  GpuError (*graph_add_conditional_node)(
      GpuGraphNodeHandle* node, GpuGraphHandle graph,
      const GpuGraphNodeHandle* deps, size_t num_deps, uint64_t handle,
      ConditionalKind kind, unsigned num_bodies,
      GpuGraphHandle* bodies) = nullptr;
  // Pinned host memory the device can write through the same address, for
  // the word a loop writes when it hits its bound.
  GpuError (*host_alloc)(void** ptr, size_t size) = nullptr;
  GpuError (*host_free)(void* ptr) = nullptr;
  // Assembly (PTX) of the kernels that set handles from device values:
  //   set_while_condition(u64 handle, const u8* predicate, u64* trips,
  //                       u64 max_trips, u64* exceeded, u32 first)
  //     counts a trip unless `first`, and sets the handle to the predicate,
  //     or to 0 with *exceeded = max_trips once `max_trips` trips ran and
  //     the predicate still holds;
  //   set_case_condition(u64 handle, const void* selector, u32 is_pred,
  //                      u32 num_branches)
  //     sets the branch index: a pred picks 0 when true and 1 when false,
  //     an s32 outside [0, num_branches) picks the last branch.
  const char* conditional_kernels = nullptr;

  // Where the backends' graph runtimes differ. GpuCommandBuffer works around
  // each missing capability, so a conservative `false` is always correct,
  // only slower or larger.
  struct GraphTraits {
    // A graph without nodes can be instantiated and launched. When false, an
    // empty command buffer gets one empty node before instantiation.
    bool empty_graph_launch = false;
    // A graph without nodes can be a child node. When false, an empty
    // captured graph becomes an empty node, and turning it into a non-empty
    // one (or back) on update re-instantiates.
    bool empty_child_graph = false;
    // graph_exec_destroy may be called while launches of the executable are
    // still queued or running: the runtime frees it once they are done.
    // When false, the command buffer waits for its latest launch first.
    bool exec_destroy_defers_to_launches = false;
  };
  GraphTraits graph_traits;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_API_H_
