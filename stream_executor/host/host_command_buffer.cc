#include "stream_executor/host/host_command_buffer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/host/host_stream.h"

namespace stream_executor::host {
namespace {

// Runs a captured graph's operations in order, stopping at the first error.
HostOp SequenceOp(std::vector<HostOp> ops) {
  return [ops = std::move(ops)]() -> absl::Status {
    for (const HostOp& op : ops) RETURN_IF_ERROR(op());
    return absl::OkStatus();
  };
}

absl::StatusOr<std::vector<HostOp>> ChildOps(const CapturedGraph& child) {
  const auto* host_graph = dynamic_cast<const HostCapturedGraph*>(&child);
  if (host_graph == nullptr) {
    return absl::InvalidArgumentError("child graph was not captured on a host stream");
  }
  return host_graph->ops();
}

}  // namespace

absl::StatusOr<const CommandBuffer::Command*> HostCommandBuffer::AddNode(
    std::string label, HostOp op, Dependencies deps) {
  RETURN_IF_ERROR(CheckState(state_, State::kCreate, "creating a command"));
  auto node = std::make_unique<Node>();
  node->id = nodes_.size();
  node->label = std::move(label);
  node->op = std::move(op);
  for (const Command* dep : deps) {
    const auto* dep_node = dynamic_cast<const Node*>(dep);
    if (dep_node == nullptr || dep_node->id >= node->id ||
        nodes_[dep_node->id].get() != dep_node) {
      return absl::InvalidArgumentError(
          "dependency is not a command of this command buffer");
    }
    node->deps.push_back(dep_node->id);
  }
  VLOG(5) << "host command buffer: node " << node->id << " " << node->label;
  nodes_.push_back(std::move(node));
  counters_.nodes = nodes_.size();
  return nodes_.back().get();
}

absl::StatusOr<HostCommandBuffer::Node*> HostCommandBuffer::NodeToUpdate(
    const Command* command, const char* what) {
  RETURN_IF_ERROR(CheckState(state_, State::kUpdate, what));
  const auto* node = dynamic_cast<const Node*>(command);
  if (node == nullptr || node->id >= nodes_.size() ||
      nodes_[node->id].get() != node) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a command of this command buffer"));
  }
  ++counters_.node_updates;
  return nodes_[node->id].get();
}

absl::StatusOr<const CommandBuffer::Command*> HostCommandBuffer::CreateLaunch(
    const LaunchDimensions& dims, const Kernel& kernel, const KernelArgs& args,
    Dependencies deps) {
  ASSIGN_OR_RETURN(HostOp op, MakeLaunchOp(dims, kernel, args));
  return AddNode(absl::StrCat("launch ", kernel.name()), std::move(op), deps);
}

absl::Status HostCommandBuffer::UpdateLaunch(const Command* command,
                                             const LaunchDimensions& dims,
                                             const Kernel& kernel,
                                             const KernelArgs& args) {
  ASSIGN_OR_RETURN(HostOp op, MakeLaunchOp(dims, kernel, args));
  ASSIGN_OR_RETURN(Node * node, NodeToUpdate(command, "UpdateLaunch"));
  node->op = std::move(op);
  return absl::OkStatus();
}

absl::StatusOr<const CommandBuffer::Command*> HostCommandBuffer::CreateMemcpyD2D(
    DeviceAddressBase dst, DeviceAddressBase src, uint64_t size,
    Dependencies deps) {
  ASSIGN_OR_RETURN(HostOp op, MakeCopyOp(dst.opaque(), dst.size(), src.opaque(),
                                         src.size(), size));
  return AddNode(absl::StrCat("memcpy ", size), std::move(op), deps);
}

absl::Status HostCommandBuffer::UpdateMemcpyD2D(const Command* command,
                                                DeviceAddressBase dst,
                                                DeviceAddressBase src,
                                                uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op, MakeCopyOp(dst.opaque(), dst.size(), src.opaque(),
                                         src.size(), size));
  ASSIGN_OR_RETURN(Node * node, NodeToUpdate(command, "UpdateMemcpyD2D"));
  node->op = std::move(op);
  return absl::OkStatus();
}

absl::StatusOr<const CommandBuffer::Command*> HostCommandBuffer::CreateMemset(
    DeviceAddressBase dst, uint32_t pattern, uint64_t size, Dependencies deps) {
  ASSIGN_OR_RETURN(HostOp op, MakeMemset32Op(dst, pattern, size));
  return AddNode(absl::StrCat("memset ", size), std::move(op), deps);
}

absl::Status HostCommandBuffer::UpdateMemset(const Command* command,
                                             DeviceAddressBase dst,
                                             uint32_t pattern, uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op, MakeMemset32Op(dst, pattern, size));
  ASSIGN_OR_RETURN(Node * node, NodeToUpdate(command, "UpdateMemset"));
  node->op = std::move(op);
  return absl::OkStatus();
}

absl::StatusOr<const CommandBuffer::Command*> HostCommandBuffer::CreateChild(
    const CapturedGraph& child, Dependencies deps) {
  ASSIGN_OR_RETURN(std::vector<HostOp> ops, ChildOps(child));
  std::string label = absl::StrCat("child (", ops.size(), " nodes)");
  return AddNode(std::move(label), SequenceOp(std::move(ops)), deps);
}

absl::Status HostCommandBuffer::UpdateChild(const Command* command,
                                            const CapturedGraph& child) {
  ASSIGN_OR_RETURN(std::vector<HostOp> ops, ChildOps(child));
  ASSIGN_OR_RETURN(Node * node, NodeToUpdate(command, "UpdateChild"));
  node->op = SequenceOp(std::move(ops));
  return absl::OkStatus();
}

absl::StatusOr<const CommandBuffer::Command*> HostCommandBuffer::CreateBarrier(
    Dependencies deps) {
  return AddNode("barrier", [] { return absl::OkStatus(); }, deps);
}

absl::Status HostCommandBuffer::Finalize() {
  if (state_ == State::kFinalized) {
    return CheckState(state_, State::kCreate, "Finalize");
  }
  auto executable = std::make_shared<std::vector<HostOp>>();
  executable->reserve(nodes_.size());
  for (const auto& node : nodes_) executable->push_back(node->op);
  // The host can always apply updates in place: a finalize after updates is
  // not an instantiation, as cudaGraphExecUpdate would not be.
  if (state_ == State::kCreate) ++counters_.instantiations;
  executable_ = std::move(executable);
  state_ = State::kFinalized;
  return absl::OkStatus();
}

absl::Status HostCommandBuffer::Update() {
  RETURN_IF_ERROR(CheckState(state_, State::kFinalized, "Update"));
  state_ = State::kUpdate;
  return absl::OkStatus();
}

absl::Status HostCommandBuffer::Submit(Stream* stream) {
  RETURN_IF_ERROR(CheckState(state_, State::kFinalized, "Submit"));
  auto* host_stream = dynamic_cast<HostStream*>(stream);
  if (host_stream == nullptr) {
    return absl::InvalidArgumentError("host command buffer needs a host stream");
  }
  ++counters_.submits;
  std::shared_ptr<const std::vector<HostOp>> executable = executable_;
  return host_stream->Enqueue([executable]() -> absl::Status {
    for (const HostOp& op : *executable) RETURN_IF_ERROR(op());
    return absl::OkStatus();
  });
}

std::string HostCommandBuffer::ToDot() const {
  std::string dot = "digraph command_buffer {\n";
  for (const auto& node : nodes_) {
    absl::StrAppendFormat(&dot, "  n%d [label=\"%s\"];\n", node->id, node->label);
    for (int dep : node->deps) absl::StrAppendFormat(&dot, "  n%d -> n%d;\n", dep, node->id);
  }
  return dot + "}\n";
}

}  // namespace stream_executor::host
