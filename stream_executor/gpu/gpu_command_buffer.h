#ifndef STREAM_EXECUTOR_GPU_GPU_COMMAND_BUFFER_H_
#define STREAM_EXECUTOR_GPU_GPU_COMMAND_BUFFER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/gpu/gpu_graph.h"

namespace stream_executor::gpu {

class GpuExecutor;

// A command buffer as a GPU graph (CUDA graph, HIP graph), written once
// against GpuApi: the platform hooks of se::CommandBuffer, which keeps the
// books (ids, dependencies, states, counters).
//
// Two graphs live side by side. The template (`graph_`) is what the Create
// hooks build; Finalize instantiates it into the executable (`exec_`) that
// Submit launches. Update hooks change a node of the executable in place
// and mirror the change into the template, so that a later instantiation
// starts from the same parameters. Where the runtime refuses an in-place
// change (a traced child graph whose topology changed, a memset it cannot
// resize, a command that turns into or out of an empty node), the template
// node is rebuilt and the next Finalize re-instantiates.
//
// Launches already queued keep the parameters they were launched with: the
// runtime snapshots an executable's parameters at launch.
class GpuCommandBuffer : public CommandBuffer {
 public:
  static absl::StatusOr<std::unique_ptr<GpuCommandBuffer>> Create(
      GpuExecutor* executor);
  ~GpuCommandBuffer() override;

 private:
  using Kind = Command::Kind;

  // The template node that carries a command.
  struct Node {
    GpuGraphNodeHandle handle = nullptr;
    // The template node is an empty node standing in for a command the
    // runtime cannot express (a zero-byte copy, an empty child graph where
    // the backend has no empty child graphs).
    bool is_empty_node = false;
    // The template node does not hold the latest parameters and is rebuilt
    // from this record before the next instantiation.
    bool stale = false;
    // Latest parameters of copies and memsets, to rebuild the node.
    void* dst = nullptr;
    const void* src = nullptr;
    uint32_t pattern = 0;
    uint64_t size = 0;
    // Latest child graph (a copy), kept while the template lags behind it:
    // a template child node cannot take new parameters in place.
    OwnedGpuGraph child;
    int64_t child_nodes = 0;

    void SetCopy(DeviceAddressBase to, DeviceAddressBase from, uint64_t bytes) {
      dst = to.opaque();
      src = from.opaque();
      size = bytes;
    }
    void SetMemset(DeviceAddressBase to, uint32_t value, uint64_t bytes) {
      dst = to.opaque();
      pattern = value;
      size = bytes;
    }
  };

  // Adds the template node `record` describes, after the nodes `deps` name.
  using AddFn = absl::FunctionRef<GpuError(
      const Node& record, GpuGraphNodeHandle* handle,
      const GpuGraphNodeHandle* deps, size_t count)>;

  GpuCommandBuffer(GpuExecutor* executor, OwnedGpuGraph graph);

  absl::Status CreateKernelNode(const Command& command,
                                const LaunchDimensions& dims,
                                const Kernel& kernel,
                                const KernelArgs& args) override;
  absl::Status CreateMemcpyNode(const Command& command, DeviceAddressBase dst,
                                DeviceAddressBase src, uint64_t size) override;
  absl::Status CreateMemsetNode(const Command& command, DeviceAddressBase dst,
                                uint32_t pattern, uint64_t size) override;
  absl::Status CreateChildNode(const Command& command,
                               const CapturedGraph& child) override;
  absl::Status CreateBarrierNode(const Command& command) override;

  absl::StatusOr<NodeUpdate> UpdateKernelNode(const Command& command,
                                              const LaunchDimensions& dims,
                                              const Kernel& kernel,
                                              const KernelArgs& args) override;
  absl::StatusOr<NodeUpdate> UpdateMemcpyNode(const Command& command,
                                              DeviceAddressBase dst,
                                              DeviceAddressBase src,
                                              uint64_t size) override;
  absl::StatusOr<NodeUpdate> UpdateMemsetNode(const Command& command,
                                              DeviceAddressBase dst,
                                              uint32_t pattern,
                                              uint64_t size) override;
  absl::StatusOr<NodeUpdate> UpdateChildNode(
      const Command& command, const CapturedGraph& child) override;

  absl::Status Instantiate() override;
  absl::Status Reinstantiate() override;
  absl::Status CommitUpdates() override;
  absl::Status Launch(Stream* stream) override;

  // Adds `node` to the template through `add`, after the template nodes of
  // `command`'s dependencies, and records it. With `programmatic`, the
  // edges from kernel nodes among them are programmatic
  // (GpuApi::graph_add_programmatic_dependency).
  absl::Status AddGraphNode(const Command& command, Node node, AddFn add,
                            bool programmatic = false);
  // Adds a node of `kind` to the template as `node` says; `child` is the
  // graph a child node copies. Not for kernel nodes, whose arguments the
  // record does not keep.
  GpuError EmitNode(Kind kind, const Node& node, GpuGraphHandle child,
                    GpuGraphNodeHandle* handle, const GpuGraphNodeHandle* deps,
                    size_t count) const;
  // Adds a copy, memset, child or barrier node from its record.
  absl::Status AddRecordedNode(const Command& command, Node node,
                               GpuGraphHandle child);
  // Replaces a stale template node, edges included, from its record.
  absl::Status RebuildNode(const Command& command);

  // Whether a command of `kind` is, as `node` stands, an empty node in the
  // template.
  bool IsEmptyNode(Kind kind, const Node& node) const;

  // Applies the new parameters in `command`'s record. `mirror` brings the
  // template node up to date, `set_exec` changes the executable in place; a
  // refused `set_exec`, or a node that turns into or out of an empty node,
  // asks for a re-instantiation instead.
  absl::StatusOr<NodeUpdate> ApplyUpdate(
      const Command& command, absl::FunctionRef<absl::Status()> mirror,
      absl::FunctionRef<GpuError()> set_exec);

  absl::StatusOr<OwnedGpuGraphExec> InstantiateGraph();

  GpuExecutor* executor_;
  const GpuApi& api_;
  OwnedGpuGraph graph_;
  OwnedGpuGraphExec exec_;
  // By command id.
  std::vector<Node> nodes_;
  // Recorded after each launch where the backend cannot destroy an
  // executable with launches in flight (see GpuApi::GraphTraits).
  GpuEventHandle last_launch_ = nullptr;
  bool launched_ = false;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_COMMAND_BUFFER_H_
