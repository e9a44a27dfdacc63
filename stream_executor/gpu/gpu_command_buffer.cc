#include "stream_executor/gpu/gpu_command_buffer.h"

#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_captured_graph.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_kernel.h"
#include "stream_executor/gpu/gpu_status.h"
#include "stream_executor/gpu/gpu_stream.h"

namespace stream_executor::gpu {
namespace {

absl::StatusOr<const GpuCapturedGraph*> ToGpuGraph(const CapturedGraph& child) {
  const auto* gpu_graph = dynamic_cast<const GpuCapturedGraph*>(&child);
  if (gpu_graph == nullptr) {
    return absl::InvalidArgumentError(
        "child graph was not captured on a GPU stream");
  }
  return gpu_graph;
}

// `params` must outlive the returned struct; the runtime copies both when
// it adds or updates the node.
GpuKernelNodeParams KernelNodeParams(const GpuKernel& kernel,
                                     const LaunchDimensions& dims,
                                     std::vector<void*>& params) {
  GpuKernelNodeParams node_params;
  node_params.function = kernel.function();
  node_params.grid_x = dims.blocks.x;
  node_params.grid_y = dims.blocks.y;
  node_params.grid_z = dims.blocks.z;
  node_params.block_x = dims.threads_per_block.x;
  node_params.block_y = dims.threads_per_block.y;
  node_params.block_z = dims.threads_per_block.z;
  node_params.shared_memory_bytes = dims.shared_memory_bytes;
  node_params.params = params.empty() ? nullptr : params.data();
  return node_params;
}

// A backend fills the graph entries of its table all together or not at all.
bool HasGraphFunctions(const GpuApi& api) {
  return api.graph_create != nullptr && api.graph_clone != nullptr &&
         api.graph_add_kernel_node != nullptr &&
         api.graph_add_memcpy_d2d_node != nullptr &&
         api.graph_add_memset32_node != nullptr &&
         api.graph_add_child_node != nullptr &&
         api.graph_add_empty_node != nullptr &&
         api.graph_add_dependency != nullptr &&
         api.graph_destroy_node != nullptr &&
         api.graph_kernel_node_set_params != nullptr &&
         api.graph_memcpy_d2d_node_set_params != nullptr &&
         api.graph_memset32_node_set_params != nullptr &&
         api.graph_instantiate != nullptr &&
         api.graph_exec_destroy != nullptr && api.graph_launch != nullptr &&
         api.graph_exec_kernel_node_set_params != nullptr &&
         api.graph_exec_memcpy_d2d_node_set_params != nullptr &&
         api.graph_exec_memset32_node_set_params != nullptr &&
         api.graph_exec_child_node_set_params != nullptr;
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuCommandBuffer>> GpuCommandBuffer::Create(
    GpuExecutor* executor) {
  const GpuApi& api = executor->api();
  if (!HasGraphFunctions(api)) {
    return absl::UnimplementedError(absl::StrCat(
        "the ", api.display_name, " API table has no graph functions"));
  }
  RETURN_IF_ERROR(executor->Activate());
  GpuGraphHandle graph = nullptr;
  RETURN_IF_ERROR(ToStatus(api, api.graph_create(&graph), "graph create"));
  auto command_buffer = std::unique_ptr<GpuCommandBuffer>(
      new GpuCommandBuffer(executor, OwnedGpuGraph(&api, graph)));
  if (!api.graph_traits.exec_destroy_defers_to_launches) {
    RETURN_IF_ERROR(ToStatus(
        api, api.event_create(&command_buffer->last_launch_), "event create"));
  }
  VLOG(3) << "Created " << api.display_name << " command buffer on device "
          << executor->device_ordinal();
  return command_buffer;
}

GpuCommandBuffer::GpuCommandBuffer(GpuExecutor* executor, OwnedGpuGraph graph)
    : executor_(executor),
      api_(executor->api()),
      graph_(std::move(graph)),
      graph_handle_(graph_.get()),
      root_(this) {}

GpuCommandBuffer::GpuCommandBuffer(GpuExecutor* executor, GpuGraphHandle body,
                                   GpuCommandBuffer* root)
    : executor_(executor),
      api_(executor->api()),
      graph_handle_(body),
      root_(root) {}

GpuCommandBuffer::~GpuCommandBuffer() {
  absl::Status status = executor_->Activate();
  if (exec_ && launched_) {
    status.Update(ToStatus(api_, api_.event_synchronize(last_launch_),
                           "waiting for the last graph launch"));
  }
  status.Update(exec_.Reset());
  // No launch uses the loops' memory any more.
  status.Update(FreeConditionals());
  nodes_.clear();
  status.Update(graph_.Reset());
  if (last_launch_ != nullptr) {
    status.Update(
        ToStatus(api_, api_.event_destroy(last_launch_), "event destroy"));
  }
  if (!status.ok()) LOG(ERROR) << "Destroying command buffer: " << status;
}

bool GpuCommandBuffer::IsEmptyNode(Kind kind, const Node& node) const {
  switch (kind) {
    case Kind::kLaunch:
      return false;
    case Kind::kMemcpy:
    case Kind::kMemset:
      // Zero-byte copies and memsets are not legal graph nodes, and an
      // executable refuses to update one to or from zero bytes.
      return node.size == 0;
    case Kind::kChild:
      return node.child_nodes == 0 && !api_.graph_traits.empty_child_graph;
    case Kind::kBarrier:
      return true;
    case Kind::kWhile:  // An `if` node holding the loop or switch.
    case Kind::kCase:
      return false;
  }
  return false;
}

bool GpuCommandBuffer::RaisesPriority(const Command& command) const {
  return command.priority() == Command::Priority::kHigh &&
         api_.graph_node_set_high_priority != nullptr;
}

absl::Status GpuCommandBuffer::ApplyPriority(const Command& command,
                                             GpuGraphNodeHandle& handle) {
  if (!RaisesPriority(command)) return absl::OkStatus();
  absl::Status status = ToStatus(
      api_, api_.graph_node_set_high_priority(handle),
      absl::StrCat("raising the priority of '", command.label(), "'"));
  if (status.ok()) {
    CountHighPriorityNode();
    return status;
  }
  status.Update(ToStatus(api_, api_.graph_destroy_node(handle),
                         "graph node destroy"));
  handle = nullptr;
  return status;
}

absl::Status GpuCommandBuffer::AddGraphNode(const Command& command, Node node,
                                            AddFn add, bool programmatic) {
  CHECK_EQ(command.id(), static_cast<int>(nodes_.size()))
      << "commands are created in id order";
  absl::InlinedVector<GpuGraphNodeHandle, 4> dep_handles;
  // Kernel predecessors of a kernel that waits for them get programmatic
  // edges, added once the node exists.
  absl::InlinedVector<GpuGraphNodeHandle, 4> programmatic_handles;
  for (int dep : command.dependencies()) {
    const bool kernel_dep = this->command(dep).kind() == Kind::kLaunch;
    (programmatic && kernel_dep ? programmatic_handles : dep_handles)
        .push_back(nodes_[dep].handle);
  }
  if (command.dependencies().empty()) {
    for (GpuGraphNodeHandle entry : EntryHandles()) {
      dep_handles.push_back(entry);
    }
  }
  RETURN_IF_ERROR(executor_->Activate());
  RETURN_IF_ERROR(
      ToStatus(api_,
               add(node, &node.handle, dep_handles.data(), dep_handles.size()),
               absl::StrCat("adding graph node '", command.label(), "'")));
  RETURN_IF_ERROR(ApplyPriority(command, node.handle));
  int64_t programmatic_edges = 0;
  for (GpuGraphNodeHandle from : programmatic_handles) {
    absl::Status added = ToStatus(
        api_,
        api_.graph_add_programmatic_dependency(graph(), from, node.handle),
        absl::StrCat("adding a programmatic edge to '", command.label(), "'"));
    if (added.ok()) ++programmatic_edges;
    if (!added.ok() && is_nested()) {
      // The body of a conditional node may refuse what a top-level graph
      // takes; a full edge orders the same work, only later.
      VLOG(3) << added << "; a full edge instead";
      added = ToStatus(api_,
                       api_.graph_add_dependency(graph(), from, node.handle),
                       "graph add dependency");
    }
    if (!added.ok()) {
      // The command is discarded, so its template node must go too.
      added.Update(ToStatus(api_, api_.graph_destroy_node(node.handle),
                            "graph node destroy"));
      return added;
    }
  }
  CountProgrammaticEdges(programmatic_edges);
  node.is_empty_node = IsEmptyNode(command.kind(), node);
  if (node.is_empty_node && command.kind() != Kind::kBarrier) {
    VLOG(5) << "GPU command buffer: node " << command.id() << " "
            << command.label() << " is an empty node";
  }
  nodes_.push_back(std::move(node));
  return absl::OkStatus();
}

GpuError GpuCommandBuffer::EmitNode(Kind kind, const Node& node,
                                    GpuGraphHandle child,
                                    GpuGraphNodeHandle* handle,
                                    const GpuGraphNodeHandle* deps,
                                    size_t count) const {
  CHECK(kind != Kind::kLaunch)
      << "kernel nodes are added from their launch arguments, which the "
         "command buffer does not keep";
  GpuGraphHandle graph = this->graph();
  if (IsEmptyNode(kind, node)) {
    return api_.graph_add_empty_node(handle, graph, deps, count);
  }
  if (kind == Kind::kMemcpy) {
    return api_.graph_add_memcpy_d2d_node(handle, graph, deps, count, node.dst,
                                          node.src, node.size);
  }
  if (kind == Kind::kMemset) {
    return api_.graph_add_memset32_node(handle, graph, deps, count, node.dst,
                                        node.pattern, node.size / 4);
  }
  return api_.graph_add_child_node(handle, graph, deps, count, child);
}

absl::Status GpuCommandBuffer::AddRecordedNode(const Command& command,
                                               Node node,
                                               GpuGraphHandle child) {
  return AddGraphNode(
      command, std::move(node),
      [&](const Node& record, GpuGraphNodeHandle* handle,
          const GpuGraphNodeHandle* deps, size_t count) {
        return EmitNode(command.kind(), record, child, handle, deps, count);
      });
}

absl::Status GpuCommandBuffer::RebuildNode(const Command& command) {
  Node& node = nodes_[command.id()];
  if (node.handle != nullptr) {
    RETURN_IF_ERROR(ToStatus(api_, api_.graph_destroy_node(node.handle),
                             "graph node destroy"));
    node.handle = nullptr;
  }
  absl::InlinedVector<GpuGraphNodeHandle, 4> dep_handles =
      DependencyHandles(command);
  RETURN_IF_ERROR(
      ToStatus(api_,
               EmitNode(command.kind(), node, node.child.get(), &node.handle,
                        dep_handles.data(), dep_handles.size()),
               absl::StrCat("rebuilding graph node '", command.label(), "'")));
  // On failure the node stays stale, and the next Finalize rebuilds it.
  RETURN_IF_ERROR(ApplyPriority(command, node.handle));
  node.is_empty_node = IsEmptyNode(command.kind(), node);
  // Destroying the old node took its outgoing edges with it.
  std::vector<GpuGraphNodeHandle> successors;
  for (int dependent : command.dependents()) {
    successors.push_back(nodes_[dependent].handle);
  }
  if (command.dependents().empty()) successors = SuccessorHandles();
  for (GpuGraphNodeHandle successor : successors) {
    RETURN_IF_ERROR(ToStatus(
        api_, api_.graph_add_dependency(graph(), node.handle, successor),
        "graph add dependency"));
  }
  node.stale = false;
  VLOG(5) << "GPU command buffer: rebuilt node " << command.id() << " "
          << command.label();
  // The template node holds its own copy now.
  return node.child.Reset();
}

absl::StatusOr<CommandBuffer::NodeUpdate> GpuCommandBuffer::ApplyUpdate(
    const Command& command, absl::FunctionRef<absl::Status()> mirror,
    absl::FunctionRef<GpuError()> set_exec) {
  Node& node = nodes_[command.id()];
  bool empty = IsEmptyNode(command.kind(), node);
  if (empty != node.is_empty_node) {
    VLOG(5) << "GPU command buffer: node " << command.id()
            << " turns into or out of an empty node; rebuilt at Finalize";
    node.stale = true;
    return NodeUpdate::kReinstantiate;
  }
  // An empty node has no parameters to change.
  if (empty) return NodeUpdate::kInPlace;
  RETURN_IF_ERROR(mirror());
  // The executable is replaced at Finalize anyway.
  if (reinstantiation_pending()) return NodeUpdate::kInPlace;
  GpuError error = set_exec();
  if (error != kGpuSuccess) {
    // Not a failure: the runtime only says it cannot apply this change to
    // the instantiated graph. The template has it, so re-instantiate.
    VLOG(3) << "GPU command buffer: in-place update of node " << command.id()
            << " refused: "
            << ToStatus(api_, error, "graph exec update").message();
    return NodeUpdate::kReinstantiate;
  }
  return NodeUpdate::kInPlace;
}

absl::Status GpuCommandBuffer::CreateKernelNode(const Command& command,
                                                const LaunchDimensions& dims,
                                                const Kernel& kernel,
                                                const KernelArgs& args) {
  ASSIGN_OR_RETURN(const GpuKernel* gpu_kernel,
                   CheckLaunch("CreateLaunch", dims, kernel, args));
  // The runtime copies the parameter values into the node before the add
  // returns (cuGraphAddKernelNode: "The kernelParams or extra array, as well
  // as the argument values it points to, are copied during this call"), so
  // `args` may die as soon as this returns; the record keeps none of it.
  std::vector<void*> params = args.ParamPointers();
  GpuKernelNodeParams node_params = KernelNodeParams(*gpu_kernel, dims, params);
  // Programmatic dependent launch needs compute capability 9.0.
  const bool programmatic = kernel.waits_for_producers() &&
                            api_.graph_add_programmatic_dependency != nullptr &&
                            executor_->GetDeviceDescription().compute_major >= 9;
  return AddGraphNode(
      command, Node(),
      [&](const Node&, GpuGraphNodeHandle* handle, const GpuGraphNodeHandle* d,
          size_t count) {
        return api_.graph_add_kernel_node(handle, graph(), d, count,
                                          &node_params);
      },
      programmatic);
}

absl::StatusOr<CommandBuffer::NodeUpdate> GpuCommandBuffer::UpdateKernelNode(
    const Command& command, const LaunchDimensions& dims, const Kernel& kernel,
    const KernelArgs& args) {
  ASSIGN_OR_RETURN(const GpuKernel* gpu_kernel,
                   CheckLaunch("UpdateLaunch", dims, kernel, args));
  RETURN_IF_ERROR(executor_->Activate());
  std::vector<void*> params = args.ParamPointers();
  GpuKernelNodeParams node_params = KernelNodeParams(*gpu_kernel, dims, params);
  GpuGraphNodeHandle handle = nodes_[command.id()].handle;
  return ApplyUpdate(
      command,
      [&] {
        return ToStatus(
            api_, api_.graph_kernel_node_set_params(handle, &node_params),
            "kernel node update");
      },
      [&] {
        return api_.graph_exec_kernel_node_set_params(exec(), handle,
                                                      &node_params);
      });
}

absl::Status GpuCommandBuffer::CreateMemcpyNode(const Command& command,
                                                DeviceAddressBase dst,
                                                DeviceAddressBase src,
                                                uint64_t size) {
  Node node;
  node.SetCopy(dst, src, size);
  return AddRecordedNode(command, std::move(node), nullptr);
}

absl::StatusOr<CommandBuffer::NodeUpdate> GpuCommandBuffer::UpdateMemcpyNode(
    const Command& command, DeviceAddressBase dst, DeviceAddressBase src,
    uint64_t size) {
  RETURN_IF_ERROR(executor_->Activate());
  Node& node = nodes_[command.id()];
  node.SetCopy(dst, src, size);
  return ApplyUpdate(
      command,
      [&] {
        return ToStatus(api_,
                        api_.graph_memcpy_d2d_node_set_params(
                            node.handle, node.dst, node.src, size),
                        "memcpy node update");
      },
      [&] {
        return api_.graph_exec_memcpy_d2d_node_set_params(
            exec(), node.handle, node.dst, node.src, size);
      });
}

absl::Status GpuCommandBuffer::CreateMemsetNode(const Command& command,
                                                DeviceAddressBase dst,
                                                uint32_t pattern,
                                                uint64_t size) {
  Node node;
  node.SetMemset(dst, pattern, size);
  return AddRecordedNode(command, std::move(node), nullptr);
}

absl::StatusOr<CommandBuffer::NodeUpdate> GpuCommandBuffer::UpdateMemsetNode(
    const Command& command, DeviceAddressBase dst, uint32_t pattern,
    uint64_t size) {
  RETURN_IF_ERROR(executor_->Activate());
  Node& node = nodes_[command.id()];
  node.SetMemset(dst, pattern, size);
  return ApplyUpdate(
      command,
      [&] {
        return ToStatus(api_,
                        api_.graph_memset32_node_set_params(
                            node.handle, node.dst, pattern, size / 4),
                        "memset node update");
      },
      [&] {
        return api_.graph_exec_memset32_node_set_params(
            exec(), node.handle, node.dst, pattern, size / 4);
      });
}

absl::Status GpuCommandBuffer::CreateChildNode(const Command& command,
                                               const CapturedGraph& child) {
  ASSIGN_OR_RETURN(const GpuCapturedGraph* gpu_graph, ToGpuGraph(child));
  Node node;
  node.child_nodes = gpu_graph->num_nodes();
  // The child node copies the graph, so `child` may die after this call.
  return AddRecordedNode(command, std::move(node), gpu_graph->graph());
}

absl::StatusOr<CommandBuffer::NodeUpdate> GpuCommandBuffer::UpdateChildNode(
    const Command& command, const CapturedGraph& child) {
  ASSIGN_OR_RETURN(const GpuCapturedGraph* gpu_graph, ToGpuGraph(child));
  RETURN_IF_ERROR(executor_->Activate());
  // A template child node cannot take a new graph in place. Its record keeps
  // a copy instead, and the node is rebuilt from it before the next
  // instantiation (the caller's graph may be gone by then).
  GpuGraphHandle copy = nullptr;
  RETURN_IF_ERROR(ToStatus(api_, api_.graph_clone(&copy, gpu_graph->graph()),
                           "graph clone"));
  Node& node = nodes_[command.id()];
  node.child = OwnedGpuGraph(&api_, copy);
  node.child_nodes = gpu_graph->num_nodes();
  // An in-place update takes the kernels' priorities from the new graph.
  if (RaisesPriority(command)) {
    RETURN_IF_ERROR(ToStatus(api_, api_.graph_set_high_priority(copy),
                             "raising the priority of a child graph"));
  }
  return ApplyUpdate(
      command,
      [&] {
        node.stale = true;
        return absl::OkStatus();
      },
      [&] {
        return api_.graph_exec_child_node_set_params(exec(), node.handle,
                                                     node.child.get());
      });
}

absl::Status GpuCommandBuffer::CreateBarrierNode(const Command& command) {
  return AddRecordedNode(command, Node(), nullptr);
}

absl::StatusOr<OwnedGpuGraphExec> GpuCommandBuffer::InstantiateGraph() {
  absl::Time start = absl::Now();
  GpuGraphExecHandle exec = nullptr;
  RETURN_IF_ERROR(ToStatus(
      api_, api_.graph_instantiate(&exec, graph()),
      absl::StrFormat("instantiation of a graph of %d nodes", nodes_.size())));
  VLOG(1) << "Instantiated " << api_.display_name << " graph of "
          << nodes_.size() << " nodes on device " << executor_->device_ordinal()
          << " in " << absl::FormatDuration(absl::Now() - start);
  return OwnedGpuGraphExec(&api_, exec);
}

absl::Status GpuCommandBuffer::Instantiate() {
  // The root instantiates the whole tree.
  if (is_nested()) return absl::OkStatus();
  if (orphaned_handles_) {
    return absl::FailedPreconditionError(
        "GPU command buffer: a loop or branch node whose recording failed "
        "left conditional handles in the graph, which cannot be "
        "instantiated; discard this command buffer and record a new one");
  }
  RETURN_IF_ERROR(executor_->Activate());
  if (nodes_.empty() && !api_.graph_traits.empty_graph_launch) {
    // Not a command: it exists only so that the runtime has something to
    // instantiate, and no record refers to it.
    GpuGraphNodeHandle padding = nullptr;
    RETURN_IF_ERROR(ToStatus(
        api_, api_.graph_add_empty_node(&padding, graph(), nullptr, 0),
        "adding an empty node to an empty graph"));
  }
  ASSIGN_OR_RETURN(exec_, InstantiateGraph());
  return absl::OkStatus();
}

absl::Status GpuCommandBuffer::Reinstantiate() {
  RETURN_IF_ERROR(executor_->Activate());
  int rebuilt = 0;
  for (int id = 0; id < num_commands(); ++id) {
    if (!nodes_[id].stale) continue;
    RETURN_IF_ERROR(RebuildNode(command(id)));
    ++rebuilt;
  }
  // The root re-instantiates for the whole tree.
  if (is_nested()) return absl::OkStatus();
  if (launched_) {
    RETURN_IF_ERROR(ToStatus(api_, api_.event_synchronize(last_launch_),
                             "waiting for the last graph launch"));
  }
  // A graph with conditional nodes may have one executable at a time, so
  // the old one goes first; a failed Finalize discards the command buffer
  // anyway.
  if (!conditionals_.empty()) RETURN_IF_ERROR(exec_.Reset());
  ASSIGN_OR_RETURN(OwnedGpuGraphExec exec, InstantiateGraph());
  RETURN_IF_ERROR(exec_.Reset());
  exec_ = std::move(exec);
  launched_ = false;
  VLOG(3) << "GPU command buffer: " << rebuilt
          << " template nodes rebuilt before re-instantiation";
  return absl::OkStatus();
}

absl::Status GpuCommandBuffer::CommitUpdates() {
  // Each update applied in place already changed the executable.
  return absl::OkStatus();
}

absl::Status GpuCommandBuffer::Launch(Stream* stream) {
  if (is_nested()) {
    return absl::FailedPreconditionError(
        "GPU command buffer: a nested command buffer is submitted with its "
        "root");
  }
  auto* gpu_stream = dynamic_cast<GpuStream*>(stream);
  if (gpu_stream == nullptr ||
      stream->parent()->platform() != executor_->platform() ||
      stream->parent()->device_ordinal() != executor_->device_ordinal()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU command buffer: Submit needs a stream of ", api_.display_name,
        " device ", executor_->device_ordinal()));
  }
  RETURN_IF_ERROR(executor_->Activate());
  RETURN_IF_ERROR(ToStatus(
      api_, api_.graph_launch(exec_.get(), gpu_stream->handle()),
      absl::StrFormat("launch of a graph of %d nodes", nodes_.size())));
  if (loop_bound_word_ != nullptr) {
    // A loop that hit its bound fails the work submitted with it, as an
    // error of the stream.
    uint64_t* word = loop_bound_word_;
    RETURN_IF_ERROR(gpu_stream->DoHostCallbackWithStatus(
        [word]() -> absl::Status {
          const uint64_t bound = *static_cast<volatile uint64_t*>(word);
          if (bound == 0) return absl::OkStatus();
          *static_cast<volatile uint64_t*>(word) = 0;
          return absl::ResourceExhaustedError(absl::StrCat(
              "recorded while loop: still running after ", bound,
              " iterations (xla_gpu_max_loop_iterations)"));
        }));
  }
  if (last_launch_ != nullptr) {
    RETURN_IF_ERROR(
        ToStatus(api_, api_.event_record(last_launch_, gpu_stream->handle()),
                 "event record"));
    launched_ = true;
  }
  VLOG(3) << "GPU command buffer: launched graph of " << nodes_.size()
          << " nodes on stream " << gpu_stream->handle();
  return absl::OkStatus();
}

std::vector<GpuGraphNodeHandle> GpuCommandBuffer::EntryHandles() const {
  if (after_ == nullptr) return {};
  return after_->ExitHandles();
}

std::vector<GpuGraphNodeHandle> GpuCommandBuffer::BoundaryHandles(
    bool sinks) const {
  std::vector<GpuGraphNodeHandle> handles;
  for (int id = 0; id < num_commands(); ++id) {
    const Command& c = command(id);
    if ((sinks ? c.dependents() : c.dependencies()).empty()) {
      handles.push_back(nodes_[id].handle);
    }
  }
  return handles;
}

std::vector<GpuGraphNodeHandle> GpuCommandBuffer::ExitHandles() const {
  if (num_commands() == 0) return EntryHandles();
  return BoundaryHandles(/*sinks=*/true);
}

std::vector<GpuGraphNodeHandle> GpuCommandBuffer::SuccessorHandles() const {
  if (before_ != nullptr) return before_->RootHandles();
  if (successor_node_ != nullptr) return {successor_node_};
  return {};
}

std::vector<GpuGraphNodeHandle> GpuCommandBuffer::RootHandles() const {
  if (num_commands() == 0) return SuccessorHandles();
  return BoundaryHandles(/*sinks=*/false);
}

absl::InlinedVector<GpuGraphNodeHandle, 4> GpuCommandBuffer::DependencyHandles(
    const Command& command) const {
  absl::InlinedVector<GpuGraphNodeHandle, 4> handles;
  for (int dep : command.dependencies()) handles.push_back(nodes_[dep].handle);
  if (command.dependencies().empty()) {
    for (GpuGraphNodeHandle entry : EntryHandles()) handles.push_back(entry);
  }
  return handles;
}

}  // namespace stream_executor::gpu
