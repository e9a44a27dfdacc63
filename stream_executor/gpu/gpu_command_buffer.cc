#include "stream_executor/gpu/gpu_command_buffer.h"

#include <utility>

#include "absl/algorithm/container.h"
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

absl::Status CheckCopy(const DeviceAddressBase& dst,
                       const DeviceAddressBase& src, uint64_t size) {
  if (size > src.size() || size > dst.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "memcpy of %d bytes does not fit: destination %s, source %s", size,
        dst.ToString(), src.ToString()));
  }
  if (size > 0 && (dst.is_null() || src.is_null())) {
    return absl::InvalidArgumentError("memcpy: null device address");
  }
  return absl::OkStatus();
}

absl::Status CheckMemset(const DeviceAddressBase& dst, uint64_t size) {
  if (size % 4 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "32-bit memset of %d bytes: size must be a multiple of 4", size));
  }
  if (size > dst.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("memset of %d bytes does not fit a buffer of %d bytes",
                        size, dst.size()));
  }
  if (size > 0 && dst.is_null()) {
    return absl::InvalidArgumentError("memset: null device address");
  }
  return absl::OkStatus();
}

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

std::string ChildLabel(int64_t num_nodes) {
  return absl::StrCat("child (", num_nodes, " nodes)");
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
    : executor_(executor), api_(executor->api()), graph_(std::move(graph)) {}

GpuCommandBuffer::~GpuCommandBuffer() {
  absl::Status status = executor_->Activate();
  if (exec_ && launched_) {
    status.Update(ToStatus(api_, api_.event_synchronize(last_launch_),
                           "waiting for the last graph launch"));
  }
  status.Update(exec_.Reset());
  nodes_.clear();
  status.Update(graph_.Reset());
  if (last_launch_ != nullptr) {
    status.Update(
        ToStatus(api_, api_.event_destroy(last_launch_), "event destroy"));
  }
  if (!status.ok()) LOG(ERROR) << "Destroying command buffer: " << status;
}

bool GpuCommandBuffer::IsEmptyNode(const Node& node) const {
  switch (node.kind) {
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
  }
  return false;
}

absl::StatusOr<const CommandBuffer::Command*> GpuCommandBuffer::AddNode(
    std::unique_ptr<Node> node, Dependencies deps, AddFn add,
    bool programmatic) {
  RETURN_IF_ERROR(CheckState(state_, State::kCreate, "creating a command"));
  node->id = static_cast<int>(nodes_.size());
  absl::InlinedVector<GpuGraphNodeHandle, 4> dep_handles;
  // Kernel predecessors of a kernel that waits for them get programmatic
  // edges, added once the node exists.
  absl::InlinedVector<GpuGraphNodeHandle, 4> programmatic_handles;
  for (const Command* dep : deps) {
    const auto* dep_node = dynamic_cast<const Node*>(dep);
    if (dep_node == nullptr || dep_node->id >= node->id ||
        nodes_[dep_node->id].get() != dep_node) {
      return absl::InvalidArgumentError(
          "dependency is not a command of this command buffer");
    }
    // The runtime rejects duplicate dependencies.
    if (absl::c_linear_search(node->deps, dep_node->id)) continue;
    node->deps.push_back(dep_node->id);
    (programmatic && dep_node->kind == Kind::kLaunch ? programmatic_handles
                                                     : dep_handles)
        .push_back(dep_node->handle);
  }
  RETURN_IF_ERROR(executor_->Activate());
  RETURN_IF_ERROR(
      ToStatus(api_, add(&node->handle, dep_handles.data(), dep_handles.size()),
               absl::StrCat("adding graph node '", node->label, "'")));
  for (GpuGraphNodeHandle from : programmatic_handles) {
    RETURN_IF_ERROR(ToStatus(
        api_,
        api_.graph_add_programmatic_dependency(graph_.get(), from, node->handle),
        absl::StrCat("adding a programmatic edge to '", node->label, "'")));
  }
  counters_.programmatic_edges += programmatic_handles.size();
  node->is_empty_node = IsEmptyNode(*node);
  for (int dep : node->deps) nodes_[dep]->dependents.push_back(node->id);
  VLOG(5) << "GPU command buffer: node " << node->id << " " << node->label
          << (node->is_empty_node && node->kind != Kind::kBarrier
                  ? " (as an empty node)"
                  : "")
          << " after " << node->deps.size() << " dependencies";
  nodes_.push_back(std::move(node));
  counters_.nodes = static_cast<int64_t>(nodes_.size());
  return nodes_.back().get();
}

absl::StatusOr<GpuCommandBuffer::Node*> GpuCommandBuffer::NodeToUpdate(
    const Command* command, Kind kind, const char* what) {
  RETURN_IF_ERROR(CheckState(state_, State::kUpdate, what));
  const auto* node = dynamic_cast<const Node*>(command);
  if (node == nullptr || node->id >= static_cast<int>(nodes_.size()) ||
      nodes_[node->id].get() != node) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a command of this command buffer"));
  }
  if (node->kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": command ", node->id,
                                                   " is a different command (",
                                                   node->label, ")"));
  }
  return nodes_[node->id].get();
}

GpuError GpuCommandBuffer::EmitNode(const Node& node, GpuGraphHandle child,
                                    GpuGraphNodeHandle* handle,
                                    const GpuGraphNodeHandle* deps,
                                    size_t count) const {
  CHECK(node.kind != Kind::kLaunch)
      << "kernel nodes are added from their launch arguments, which the "
         "command buffer does not keep";
  GpuGraphHandle graph = graph_.get();
  if (IsEmptyNode(node)) {
    return api_.graph_add_empty_node(handle, graph, deps, count);
  }
  if (node.kind == Kind::kMemcpy) {
    return api_.graph_add_memcpy_d2d_node(handle, graph, deps, count, node.dst,
                                          node.src, node.size);
  }
  if (node.kind == Kind::kMemset) {
    return api_.graph_add_memset32_node(handle, graph, deps, count, node.dst,
                                        node.pattern, node.size / 4);
  }
  return api_.graph_add_child_node(handle, graph, deps, count, child);
}

absl::Status GpuCommandBuffer::RebuildNode(Node& node) {
  if (node.handle != nullptr) {
    RETURN_IF_ERROR(ToStatus(api_, api_.graph_destroy_node(node.handle),
                             "graph node destroy"));
    node.handle = nullptr;
  }
  absl::InlinedVector<GpuGraphNodeHandle, 4> dep_handles;
  for (int dep : node.deps) dep_handles.push_back(nodes_[dep]->handle);
  RETURN_IF_ERROR(
      ToStatus(api_,
               EmitNode(node, node.child.get(), &node.handle,
                        dep_handles.data(), dep_handles.size()),
               absl::StrCat("rebuilding graph node '", node.label, "'")));
  node.is_empty_node = IsEmptyNode(node);
  // Destroying the old node took its outgoing edges with it.
  for (int dependent : node.dependents) {
    RETURN_IF_ERROR(
        ToStatus(api_,
                 api_.graph_add_dependency(graph_.get(), node.handle,
                                           nodes_[dependent]->handle),
                 "graph add dependency"));
  }
  node.stale = false;
  VLOG(5) << "GPU command buffer: rebuilt node " << node.id << " "
          << node.label;
  // The template node holds its own copy now.
  return node.child.Reset();
}

void GpuCommandBuffer::ScheduleRebuild(Node& node, const char* why) {
  VLOG(5) << "GPU command buffer: node " << node.id << " " << node.label
          << " is rebuilt at Finalize: " << why;
  node.stale = true;
  needs_reinstantiation_ = true;
}

absl::Status GpuCommandBuffer::ApplyUpdate(
    Node& node, absl::FunctionRef<absl::Status()> mirror,
    absl::FunctionRef<GpuError()> set_exec) {
  bool empty = IsEmptyNode(node);
  if (empty != node.is_empty_node) {
    ScheduleRebuild(node, "it turns into or out of an empty node");
    ++counters_.node_updates;
    return absl::OkStatus();
  }
  // An empty node has no parameters to change.
  if (!empty) RETURN_IF_ERROR(mirror());
  ++counters_.node_updates;
  if (empty) return absl::OkStatus();
  // The executable is replaced at Finalize anyway.
  if (needs_reinstantiation_) return absl::OkStatus();
  GpuError error = set_exec();
  if (error != kGpuSuccess) {
    // Not a failure: the runtime only says it cannot apply this change to
    // the instantiated graph. The template has it, so re-instantiate.
    VLOG(3) << "GPU command buffer: in-place update of node " << node.id << " "
            << node.label << " refused, re-instantiating at Finalize: "
            << ToStatus(api_, error, "graph exec update").message();
    needs_reinstantiation_ = true;
    return absl::OkStatus();
  }
  VLOG(5) << "GPU command buffer: updated node " << node.id << " " << node.label
          << " in place";
  return absl::OkStatus();
}

absl::StatusOr<const CommandBuffer::Command*> GpuCommandBuffer::CreateLaunch(
    const LaunchDimensions& dims, const Kernel& kernel, const KernelArgs& args,
    Dependencies deps) {
  ASSIGN_OR_RETURN(const GpuKernel* gpu_kernel,
                   CheckLaunch("CreateLaunch", dims, kernel, args));
  auto node = std::make_unique<Node>();
  node->kind = Kind::kLaunch;
  node->label = absl::StrCat("launch ", kernel.name());
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
  return AddNode(
      std::move(node), deps,
      [&](GpuGraphNodeHandle* handle, const GpuGraphNodeHandle* d,
          size_t count) {
        return api_.graph_add_kernel_node(handle, graph_.get(), d, count,
                                          &node_params);
      },
      programmatic);
}

absl::Status GpuCommandBuffer::UpdateLaunch(const Command* command,
                                            const LaunchDimensions& dims,
                                            const Kernel& kernel,
                                            const KernelArgs& args) {
  ASSIGN_OR_RETURN(const GpuKernel* gpu_kernel,
                   CheckLaunch("UpdateLaunch", dims, kernel, args));
  ASSIGN_OR_RETURN(Node * node,
                   NodeToUpdate(command, Kind::kLaunch, "UpdateLaunch"));
  RETURN_IF_ERROR(executor_->Activate());
  node->label = absl::StrCat("launch ", kernel.name());
  std::vector<void*> params = args.ParamPointers();
  GpuKernelNodeParams node_params = KernelNodeParams(*gpu_kernel, dims, params);
  return ApplyUpdate(
      *node,
      [&] {
        return ToStatus(
            api_, api_.graph_kernel_node_set_params(node->handle, &node_params),
            "kernel node update");
      },
      [&] {
        return api_.graph_exec_kernel_node_set_params(exec_.get(), node->handle,
                                                      &node_params);
      });
}

absl::StatusOr<const CommandBuffer::Command*> GpuCommandBuffer::CreateMemcpyD2D(
    DeviceAddressBase dst, DeviceAddressBase src, uint64_t size,
    Dependencies deps) {
  RETURN_IF_ERROR(CheckCopy(dst, src, size));
  auto node = std::make_unique<Node>();
  node->kind = Kind::kMemcpy;
  node->label = absl::StrCat("memcpy ", size);
  node->dst = dst.opaque();
  node->src = src.opaque();
  node->size = size;
  const Node& record = *node;
  return AddNode(std::move(node), deps,
                 [&](GpuGraphNodeHandle* handle, const GpuGraphNodeHandle* d,
                     size_t count) {
                   return EmitNode(record, nullptr, handle, d, count);
                 });
}

absl::Status GpuCommandBuffer::UpdateMemcpyD2D(const Command* command,
                                               DeviceAddressBase dst,
                                               DeviceAddressBase src,
                                               uint64_t size) {
  RETURN_IF_ERROR(CheckCopy(dst, src, size));
  ASSIGN_OR_RETURN(Node * node,
                   NodeToUpdate(command, Kind::kMemcpy, "UpdateMemcpyD2D"));
  RETURN_IF_ERROR(executor_->Activate());
  node->label = absl::StrCat("memcpy ", size);
  node->dst = dst.opaque();
  node->src = src.opaque();
  node->size = size;
  return ApplyUpdate(
      *node,
      [&] {
        return ToStatus(api_,
                        api_.graph_memcpy_d2d_node_set_params(
                            node->handle, node->dst, node->src, size),
                        "memcpy node update");
      },
      [&] {
        return api_.graph_exec_memcpy_d2d_node_set_params(
            exec_.get(), node->handle, node->dst, node->src, size);
      });
}

absl::StatusOr<const CommandBuffer::Command*> GpuCommandBuffer::CreateMemset(
    DeviceAddressBase dst, uint32_t pattern, uint64_t size, Dependencies deps) {
  RETURN_IF_ERROR(CheckMemset(dst, size));
  auto node = std::make_unique<Node>();
  node->kind = Kind::kMemset;
  node->label = absl::StrCat("memset ", size);
  node->dst = dst.opaque();
  node->pattern = pattern;
  node->size = size;
  const Node& record = *node;
  return AddNode(std::move(node), deps,
                 [&](GpuGraphNodeHandle* handle, const GpuGraphNodeHandle* d,
                     size_t count) {
                   return EmitNode(record, nullptr, handle, d, count);
                 });
}

absl::Status GpuCommandBuffer::UpdateMemset(const Command* command,
                                            DeviceAddressBase dst,
                                            uint32_t pattern, uint64_t size) {
  RETURN_IF_ERROR(CheckMemset(dst, size));
  ASSIGN_OR_RETURN(Node * node,
                   NodeToUpdate(command, Kind::kMemset, "UpdateMemset"));
  RETURN_IF_ERROR(executor_->Activate());
  node->label = absl::StrCat("memset ", size);
  node->dst = dst.opaque();
  node->pattern = pattern;
  node->size = size;
  return ApplyUpdate(
      *node,
      [&] {
        return ToStatus(api_,
                        api_.graph_memset32_node_set_params(
                            node->handle, node->dst, pattern, size / 4),
                        "memset node update");
      },
      [&] {
        return api_.graph_exec_memset32_node_set_params(
            exec_.get(), node->handle, node->dst, pattern, size / 4);
      });
}

absl::StatusOr<const CommandBuffer::Command*> GpuCommandBuffer::CreateChild(
    const CapturedGraph& child, Dependencies deps) {
  ASSIGN_OR_RETURN(const GpuCapturedGraph* gpu_graph, ToGpuGraph(child));
  auto node = std::make_unique<Node>();
  node->kind = Kind::kChild;
  node->child_nodes = gpu_graph->num_nodes();
  node->label = ChildLabel(node->child_nodes);
  const Node& record = *node;
  // The child node copies the graph, so `child` may die after this call.
  return AddNode(std::move(node), deps,
                 [&](GpuGraphNodeHandle* handle, const GpuGraphNodeHandle* d,
                     size_t count) {
                   return EmitNode(record, gpu_graph->graph(), handle, d,
                                   count);
                 });
}

absl::Status GpuCommandBuffer::UpdateChild(const Command* command,
                                           const CapturedGraph& child) {
  ASSIGN_OR_RETURN(const GpuCapturedGraph* gpu_graph, ToGpuGraph(child));
  ASSIGN_OR_RETURN(Node * node,
                   NodeToUpdate(command, Kind::kChild, "UpdateChild"));
  RETURN_IF_ERROR(executor_->Activate());
  // A template child node cannot take a new graph in place. Its record keeps
  // a copy instead, and the node is rebuilt from it before the next
  // instantiation (the caller's graph may be gone by then).
  GpuGraphHandle copy = nullptr;
  RETURN_IF_ERROR(ToStatus(api_, api_.graph_clone(&copy, gpu_graph->graph()),
                           "graph clone"));
  node->child = OwnedGpuGraph(&api_, copy);
  node->child_nodes = gpu_graph->num_nodes();
  node->label = ChildLabel(node->child_nodes);
  return ApplyUpdate(
      *node,
      [&] {
        node->stale = true;
        return absl::OkStatus();
      },
      [&] {
        return api_.graph_exec_child_node_set_params(exec_.get(), node->handle,
                                                     node->child.get());
      });
}

absl::StatusOr<const CommandBuffer::Command*> GpuCommandBuffer::CreateBarrier(
    Dependencies deps) {
  auto node = std::make_unique<Node>();
  node->kind = Kind::kBarrier;
  node->label = "barrier";
  const Node& record = *node;
  return AddNode(std::move(node), deps,
                 [&](GpuGraphNodeHandle* handle, const GpuGraphNodeHandle* d,
                     size_t count) {
                   return EmitNode(record, nullptr, handle, d, count);
                 });
}

absl::StatusOr<OwnedGpuGraphExec> GpuCommandBuffer::Instantiate() {
  absl::Time start = absl::Now();
  GpuGraphExecHandle exec = nullptr;
  RETURN_IF_ERROR(ToStatus(
      api_, api_.graph_instantiate(&exec, graph_.get()),
      absl::StrFormat("instantiation of a graph of %d nodes", nodes_.size())));
  VLOG(1) << "Instantiated " << api_.display_name << " graph of "
          << nodes_.size() << " nodes on device " << executor_->device_ordinal()
          << " in " << absl::FormatDuration(absl::Now() - start);
  return OwnedGpuGraphExec(&api_, exec);
}

absl::Status GpuCommandBuffer::Reinstantiate() {
  int rebuilt = 0;
  for (const auto& node : nodes_) {
    if (!node->stale) continue;
    RETURN_IF_ERROR(RebuildNode(*node));
    ++rebuilt;
  }
  ASSIGN_OR_RETURN(OwnedGpuGraphExec exec, Instantiate());
  if (launched_) {
    RETURN_IF_ERROR(ToStatus(api_, api_.event_synchronize(last_launch_),
                             "waiting for the last graph launch"));
  }
  RETURN_IF_ERROR(exec_.Reset());
  exec_ = std::move(exec);
  launched_ = false;
  needs_reinstantiation_ = false;
  ++counters_.reinstantiations;
  VLOG(1) << "Re-instantiated " << api_.display_name << " graph of "
          << nodes_.size()
          << " nodes after updates it could not take in place (" << rebuilt
          << " nodes rebuilt); " << counters_.reinstantiations << " so far";
  return absl::OkStatus();
}

absl::Status GpuCommandBuffer::Finalize() {
  if (state_ == State::kFinalized) {
    return CheckState(state_, State::kCreate, "Finalize");
  }
  RETURN_IF_ERROR(executor_->Activate());
  if (state_ == State::kCreate) {
    if (nodes_.empty() && !api_.graph_traits.empty_graph_launch) {
      // Not a command: it exists only so that the runtime has something to
      // instantiate, and no record refers to it.
      GpuGraphNodeHandle padding = nullptr;
      RETURN_IF_ERROR(ToStatus(
          api_, api_.graph_add_empty_node(&padding, graph_.get(), nullptr, 0),
          "adding an empty node to an empty graph"));
    }
    ASSIGN_OR_RETURN(exec_, Instantiate());
    ++counters_.instantiations;
  } else if (needs_reinstantiation_) {
    RETURN_IF_ERROR(Reinstantiate());
  }
  // An update applied in place needs nothing more: each Update* call already
  // changed the executable.
  state_ = State::kFinalized;
  return absl::OkStatus();
}

absl::Status GpuCommandBuffer::Update() {
  RETURN_IF_ERROR(CheckState(state_, State::kFinalized, "Update"));
  state_ = State::kUpdate;
  return absl::OkStatus();
}

absl::Status GpuCommandBuffer::Submit(Stream* stream) {
  RETURN_IF_ERROR(CheckState(state_, State::kFinalized, "Submit"));
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
  if (last_launch_ != nullptr) {
    RETURN_IF_ERROR(
        ToStatus(api_, api_.event_record(last_launch_, gpu_stream->handle()),
                 "event record"));
    launched_ = true;
  }
  ++counters_.submits;
  VLOG(3) << "GPU command buffer: launched graph of " << nodes_.size()
          << " nodes on stream " << gpu_stream->handle() << " (submit "
          << counters_.submits << ")";
  return absl::OkStatus();
}

std::string GpuCommandBuffer::ToDot() const {
  std::string dot = "digraph command_buffer {\n";
  for (const auto& node : nodes_) {
    absl::StrAppendFormat(&dot, "  n%d [label=\"%s\"];\n", node->id,
                          node->label);
    for (int dep : node->deps) {
      absl::StrAppendFormat(&dot, "  n%d -> n%d;\n", dep, node->id);
    }
  }
  return dot + "}\n";
}

}  // namespace stream_executor::gpu
