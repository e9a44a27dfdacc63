#ifndef STREAM_EXECUTOR_GPU_GPU_COMMAND_BUFFER_H_
#define STREAM_EXECUTOR_GPU_GPU_COMMAND_BUFFER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
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
//
// Loops and branches (CreateWhile, CreateCase) are conditional nodes where
// the backend has them (gpu_conditional_commands.cc says how they are
// built). Their condition, body and branches are recorded by nested command
// buffers: instances of this class that add nodes to a body graph owned by
// a conditional node instead of a graph of their own, and that are never
// instantiated or submitted; the root command buffer instantiates the whole
// tree, and its updates reach nested nodes through the root's executable.
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
  // A nested command buffer over `body`, a body graph of a conditional node
  // of `root`'s tree.
  GpuCommandBuffer(GpuExecutor* executor, GpuGraphHandle body,
                   GpuCommandBuffer* root);

  bool is_nested() const { return root_ != this; }
  // The graph this command buffer adds nodes to.
  GpuGraphHandle graph() const { return graph_handle_; }
  // The executable that updates change in place: the root's.
  GpuGraphExecHandle exec() const { return root_->exec_.get(); }

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

  absl::Status CreateWhileNode(const Command& command,
                               DeviceAddressBase predicate,
                               int64_t max_iterations,
                               NestedRecorder condition,
                               NestedRecorder body) override;
  absl::StatusOr<NodeUpdate> UpdateWhileNode(const Command& command,
                                             DeviceAddressBase predicate,
                                             NestedRecorder condition,
                                             NestedRecorder body) override;
  absl::Status CreateCaseNode(
      const Command& command, DeviceAddressBase selector,
      absl::Span<const NestedRecorder> branches) override;
  absl::StatusOr<NodeUpdate> UpdateCaseNode(
      const Command& command, DeviceAddressBase selector,
      absl::Span<const NestedRecorder> branches) override;

  absl::Status Instantiate() override;
  absl::Status Reinstantiate() override;
  absl::Status CommitUpdates() override;
  absl::Status Launch(Stream* stream) override;

  // Whether `command` is kHigh and the platform has node priorities.
  bool RaisesPriority(const Command& command) const;
  // Raises the template node `handle` of such a command to the device's
  // highest launch priority. On failure the node is destroyed and `handle`
  // cleared: the caller then discards the command, or leaves the node
  // stale for the next Finalize to rebuild.
  absl::Status ApplyPriority(const Command& command,
                             GpuGraphNodeHandle& handle);
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

  // Nested command buffers share a body graph in sequence (a loop body,
  // then its condition, then the kernel that sets the loop's handle). Each
  // knows its neighbours so that a rebuilt node gets its edges back.
  // Template nodes the commands without dependencies wait for: the exits
  // of the nested command buffer before this one.
  std::vector<GpuGraphNodeHandle> EntryHandles() const;
  // Template nodes after which the next work in the graph may run: the
  // commands without dependents, or the entry when there are no commands.
  std::vector<GpuGraphNodeHandle> ExitHandles() const;
  // Template nodes that wait for the commands without dependents.
  std::vector<GpuGraphNodeHandle> SuccessorHandles() const;
  // The template nodes of the commands without dependencies, or the
  // successors when there are no commands.
  std::vector<GpuGraphNodeHandle> RootHandles() const;
  // The template nodes of the commands without dependents (`sinks`) or
  // without dependencies.
  std::vector<GpuGraphNodeHandle> BoundaryHandles(bool sinks) const;
  // Template nodes `command` waits for.
  absl::InlinedVector<GpuGraphNodeHandle, 4> DependencyHandles(
      const Command& command) const;

  // What stands behind the one template node of a loop or branch command
  // (see gpu_conditional_commands.cc).
  struct Conditional {
    // A loop: `pre_condition` in the node's body, then `set_first`, then
    // the loop node whose body is `body`, `condition` and `set_next`.
    std::unique_ptr<GpuCommandBuffer> pre_condition, body, condition;
    // A branch: `set_first`, then the switch node over `branches`.
    std::vector<std::unique_ptr<GpuCommandBuffer>> branches;
    GpuGraphNodeHandle set_first = nullptr;
    GpuGraphNodeHandle set_next = nullptr;
    uint64_t handle = 0;
    DeviceAddressBase predicate;  // Or the branch selector.
    // Device word counting a loop's trips; freed by the root's destructor.
    void* trips = nullptr;
    int64_t max_iterations = 0;
  };
  // Adds `command`'s template node: an `if` node whose handle every launch
  // sets to 1, so its body (returned) always runs. It holds the work that
  // must precede the loop or switch node (the first condition, the kernel
  // setting the handle) in one template node.
  struct Scope {
    GpuGraphHandle body = nullptr;
    uint64_t handle = 0;
  };
  absl::StatusOr<Scope> AddConditionalScope(const Command& command);
  // Takes back the scope of a command whose creation failed (the last
  // template node). Its conditional handles stay in the graph, as handles
  // cannot be destroyed, so the root can no longer be instantiated.
  absl::Status DiscardScope();
  // A nested command buffer over `body` that records after `after` (null:
  // first in the graph).
  std::unique_ptr<GpuCommandBuffer> NewNested(GpuGraphHandle body,
                                              const GpuCommandBuffer* after);
  // Records (kCreate) or updates (kFinalized) `nested` with `recorder` and
  // finalizes it; true when the root must re-instantiate for it.
  absl::StatusOr<bool> RecordNested(GpuCommandBuffer& nested,
                                    NestedRecorder recorder);
  // Adds a kernel node of `kernel` with the given argument values to
  // `graph` after `deps`.
  absl::StatusOr<GpuGraphNodeHandle> AddSetKernelNode(
      GpuGraphHandle graph, const std::vector<GpuGraphNodeHandle>& deps,
      const char* kernel, std::vector<void*> params);
  // Points the set kernels of `conditional` at `predicate`; true when the
  // root must re-instantiate for it.
  absl::StatusOr<bool> RetargetSetKernels(Conditional& conditional,
                                          DeviceAddressBase predicate);
  // The root's pinned word that a loop at its bound writes; allocated with
  // the first loop, with the event that lets teardown wait for launches.
  absl::StatusOr<uint64_t*> LoopBoundWord();
  // Frees what the conditional nodes of this tree allocated.
  absl::Status FreeConditionals();

  GpuExecutor* executor_;
  const GpuApi& api_;
  OwnedGpuGraph graph_;  // Empty in nested command buffers.
  GpuGraphHandle graph_handle_;
  GpuCommandBuffer* root_;
  // Neighbours in a shared body graph (see EntryHandles).
  const GpuCommandBuffer* after_ = nullptr;
  const GpuCommandBuffer* before_ = nullptr;
  GpuGraphNodeHandle successor_node_ = nullptr;
  OwnedGpuGraphExec exec_;  // Root only.
  // By command id.
  std::vector<Node> nodes_;
  // Loop and branch commands, by id.
  absl::flat_hash_map<int, Conditional> conditionals_;
  // Root only: written by a loop that hit its bound, read after each
  // launch; null until the tree has a loop.
  uint64_t* loop_bound_word_ = nullptr;
  // Root only: a loop or branch whose creation failed left conditional
  // handles no node tests, which CUDA refuses to instantiate
  // (CONDITIONAL_HANDLE_UNUSED); Finalize says so instead.
  bool orphaned_handles_ = false;
  // Recorded after each launch where the backend cannot destroy an
  // executable with launches in flight (see GpuApi::GraphTraits).
  GpuEventHandle last_launch_ = nullptr;
  bool launched_ = false;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_COMMAND_BUFFER_H_
