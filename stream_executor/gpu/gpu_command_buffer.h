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
// against GpuApi.
//
// Two graphs live side by side. The template (`graph_`) is what Create*
// calls build; Finalize instantiates it into the executable (`exec_`) that
// Submit launches. Update* calls change a node of the executable in place
// and mirror the change into the template, so that a later instantiation
// starts from the same parameters. Where the runtime refuses an in-place
// change (a traced child graph whose topology changed, a memset it cannot
// resize, a command that turns into or out of an empty node), the template
// node is rebuilt and the next Finalize re-instantiates, counted in
// Counters::reinstantiations.
//
// Launches already queued keep the parameters they were launched with: the
// runtime snapshots an executable's parameters at launch.
//
// Not thread-safe: its owner serializes calls (as for the host command
// buffer). After a failed Finalize the command buffer must be discarded.
class GpuCommandBuffer : public CommandBuffer {
 public:
  static absl::StatusOr<std::unique_ptr<GpuCommandBuffer>> Create(
      GpuExecutor* executor);
  ~GpuCommandBuffer() override;

  absl::StatusOr<const Command*> CreateLaunch(const LaunchDimensions& dims,
                                              const Kernel& kernel,
                                              const KernelArgs& args,
                                              Dependencies deps) override;
  absl::Status UpdateLaunch(const Command* command,
                            const LaunchDimensions& dims, const Kernel& kernel,
                            const KernelArgs& args) override;
  absl::StatusOr<const Command*> CreateMemcpyD2D(DeviceAddressBase dst,
                                                 DeviceAddressBase src,
                                                 uint64_t size,
                                                 Dependencies deps) override;
  absl::Status UpdateMemcpyD2D(const Command* command, DeviceAddressBase dst,
                               DeviceAddressBase src, uint64_t size) override;
  absl::StatusOr<const Command*> CreateMemset(DeviceAddressBase dst,
                                              uint32_t pattern, uint64_t size,
                                              Dependencies deps) override;
  absl::Status UpdateMemset(const Command* command, DeviceAddressBase dst,
                            uint32_t pattern, uint64_t size) override;
  absl::StatusOr<const Command*> CreateChild(const CapturedGraph& child,
                                             Dependencies deps) override;
  absl::Status UpdateChild(const Command* command,
                           const CapturedGraph& child) override;
  absl::StatusOr<const Command*> CreateBarrier(Dependencies deps) override;

  absl::Status Finalize() override;
  absl::Status Update() override;
  absl::Status Submit(Stream* stream) override;

  State state() const override { return state_; }
  Counters counters() const override { return counters_; }
  // Built from the command records, not from the runtime's own dump, so
  // that every platform prints the same graph for the same calls.
  std::string ToDot() const override;

 private:
  enum class Kind { kLaunch, kMemcpy, kMemset, kChild, kBarrier };

  // One command and the template node that carries it.
  struct Node : Command {
    int id = 0;
    Kind kind = Kind::kBarrier;
    std::string label;
    std::vector<int> deps;
    std::vector<int> dependents;
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
  };

  // Adds a template node for a command, with the nodes `deps` name.
  using AddFn = absl::FunctionRef<GpuError(
      GpuGraphNodeHandle* node, const GpuGraphNodeHandle* deps, size_t count)>;

  GpuCommandBuffer(GpuExecutor* executor, OwnedGpuGraph graph);

  // With `programmatic`, the edges from kernel nodes among `deps` are
  // programmatic (GpuApi::graph_add_programmatic_dependency).
  absl::StatusOr<const Command*> AddNode(std::unique_ptr<Node> node,
                                         Dependencies deps, AddFn add,
                                         bool programmatic = false);
  absl::StatusOr<Node*> NodeToUpdate(const Command* command, Kind kind,
                                     const char* what);
  // Adds `node` to the template as its record says; `child` is the graph a
  // child node copies.
  GpuError EmitNode(const Node& node, GpuGraphHandle child,
                    GpuGraphNodeHandle* handle, const GpuGraphNodeHandle* deps,
                    size_t count) const;
  // Replaces a stale template node, edges included, from its record.
  absl::Status RebuildNode(Node& node);

  // Whether `node` is, as its record stands, an empty node in the template.
  bool IsEmptyNode(const Node& node) const;

  // Applies the new parameters in `node`'s record. `mirror` brings the
  // template node up to date, `set_exec` changes the executable in place; a
  // refused `set_exec`, or a node that turns into or out of an empty node,
  // schedules a re-instantiation instead.
  absl::Status ApplyUpdate(Node& node, absl::FunctionRef<absl::Status()> mirror,
                           absl::FunctionRef<GpuError()> set_exec);
  // Marks `node` for a rebuild and the executable for re-instantiation.
  void ScheduleRebuild(Node& node, const char* why);

  absl::StatusOr<OwnedGpuGraphExec> Instantiate();
  // Rebuilds stale template nodes and replaces the executable; the old one
  // is destroyed once no queued launch can still use it.
  absl::Status Reinstantiate();

  GpuExecutor* executor_;
  const GpuApi& api_;
  OwnedGpuGraph graph_;
  OwnedGpuGraphExec exec_;
  // Recorded after each launch where the backend cannot destroy an
  // executable with launches in flight (see GpuApi::GraphTraits).
  GpuEventHandle last_launch_ = nullptr;
  bool launched_ = false;

  State state_ = State::kCreate;
  Counters counters_;
  std::vector<std::unique_ptr<Node>> nodes_;
  bool needs_reinstantiation_ = false;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_COMMAND_BUFFER_H_
