#include "stream_executor/host/host_command_buffer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/host/host_stream.h"

namespace stream_executor::host {
namespace {

absl::StatusOr<std::vector<HostOp>> ChildOps(const CapturedGraph& child) {
  const auto* host_graph = dynamic_cast<const HostCapturedGraph*>(&child);
  if (host_graph == nullptr) {
    return absl::InvalidArgumentError(
        "child graph was not captured on a host stream");
  }
  return host_graph->ops();
}

absl::StatusOr<std::vector<HostOp>> LaunchOps(const LaunchDimensions& dims,
                                              const Kernel& kernel,
                                              const KernelArgs& args) {
  ASSIGN_OR_RETURN(HostOp op, MakeLaunchOp(dims, kernel, args));
  return std::vector<HostOp>{std::move(op)};
}

absl::StatusOr<std::vector<HostOp>> CopyOps(DeviceAddressBase dst,
                                            DeviceAddressBase src,
                                            uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op, MakeCopyOp(dst.opaque(), dst.size(),
                                         src.opaque(), src.size(), size));
  return std::vector<HostOp>{std::move(op)};
}

absl::StatusOr<std::vector<HostOp>> MemsetOps(DeviceAddressBase dst,
                                              uint32_t pattern,
                                              uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op, MakeMemset32Op(dst, pattern, size));
  return std::vector<HostOp>{std::move(op)};
}

}  // namespace

absl::Status HostCommandBuffer::AddOps(
    const Command& command, absl::StatusOr<std::vector<HostOp>> ops) {
  if (!ops.ok()) return ops.status();
  CHECK_EQ(command.id(), static_cast<int>(node_ops_.size()))
      << "commands are created in id order";
  node_ops_.push_back(*std::move(ops));
  return absl::OkStatus();
}

absl::StatusOr<CommandBuffer::NodeUpdate> HostCommandBuffer::ReplaceOps(
    const Command& command, absl::StatusOr<std::vector<HostOp>> ops) {
  if (!ops.ok()) return ops.status();
  std::vector<HostOp>& node_ops = node_ops_[command.id()];
  node_ops = *std::move(ops);
  // The executable is rebuilt from node_ops_ at Finalize anyway.
  if (reinstantiation_pending()) return NodeUpdate::kInPlace;
  const Executable::Span& span = executable_->spans[command.id()];
  if (span.count != node_ops.size()) {
    VLOG(5) << "host command buffer: node " << command.id() << " needs "
            << node_ops.size() << " operations where the executable has "
            << span.count;
    return NodeUpdate::kReinstantiate;
  }
  if (pending_ == nullptr) pending_ = std::make_shared<Executable>(*executable_);
  std::copy(node_ops.begin(), node_ops.end(),
            pending_->ops.begin() + span.first);
  return NodeUpdate::kInPlace;
}

absl::Status HostCommandBuffer::CreateKernelNode(const Command& command,
                                                 const LaunchDimensions& dims,
                                                 const Kernel& kernel,
                                                 const KernelArgs& args) {
  return AddOps(command, LaunchOps(dims, kernel, args));
}

absl::Status HostCommandBuffer::CreateMemcpyNode(const Command& command,
                                                 DeviceAddressBase dst,
                                                 DeviceAddressBase src,
                                                 uint64_t size) {
  return AddOps(command, CopyOps(dst, src, size));
}

absl::Status HostCommandBuffer::CreateMemsetNode(const Command& command,
                                                 DeviceAddressBase dst,
                                                 uint32_t pattern,
                                                 uint64_t size) {
  return AddOps(command, MemsetOps(dst, pattern, size));
}

absl::Status HostCommandBuffer::CreateChildNode(const Command& command,
                                                const CapturedGraph& child) {
  return AddOps(command, ChildOps(child));
}

absl::Status HostCommandBuffer::CreateBarrierNode(const Command& command) {
  // Creation order already runs it after its dependencies.
  return AddOps(command, std::vector<HostOp>());
}

absl::StatusOr<CommandBuffer::NodeUpdate> HostCommandBuffer::UpdateKernelNode(
    const Command& command, const LaunchDimensions& dims, const Kernel& kernel,
    const KernelArgs& args) {
  return ReplaceOps(command, LaunchOps(dims, kernel, args));
}

absl::StatusOr<CommandBuffer::NodeUpdate> HostCommandBuffer::UpdateMemcpyNode(
    const Command& command, DeviceAddressBase dst, DeviceAddressBase src,
    uint64_t size) {
  return ReplaceOps(command, CopyOps(dst, src, size));
}

absl::StatusOr<CommandBuffer::NodeUpdate> HostCommandBuffer::UpdateMemsetNode(
    const Command& command, DeviceAddressBase dst, uint32_t pattern,
    uint64_t size) {
  return ReplaceOps(command, MemsetOps(dst, pattern, size));
}

absl::StatusOr<CommandBuffer::NodeUpdate> HostCommandBuffer::UpdateChildNode(
    const Command& command, const CapturedGraph& child) {
  return ReplaceOps(command, ChildOps(child));
}

absl::Status HostCommandBuffer::RunOps(const Executable& executable) {
  for (const HostOp& op : executable.ops) RETURN_IF_ERROR(op());
  return absl::OkStatus();
}

HostOp HostCommandBuffer::LoopOp(const Loop& loop,
                                 DeviceAddressBase predicate) {
  std::shared_ptr<const Executable> condition = loop.condition->executable_;
  std::shared_ptr<const Executable> body = loop.body->executable_;
  const auto* flag = static_cast<const volatile uint8_t*>(predicate.opaque());
  const int64_t max_iterations = loop.max_iterations;
  return [condition, body, flag, max_iterations]() -> absl::Status {
    RETURN_IF_ERROR(RunOps(*condition));
    for (int64_t i = 0; *flag != 0; ++i) {
      if (i == max_iterations) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "recorded while loop: still running after ", max_iterations,
            " iterations (xla_gpu_max_loop_iterations)"));
      }
      RETURN_IF_ERROR(RunOps(*body));
      RETURN_IF_ERROR(RunOps(*condition));
    }
    return absl::OkStatus();
  };
}

absl::Status HostCommandBuffer::RecordNested(HostCommandBuffer& nested,
                                             NestedRecorder recorder) {
  if (nested.state() == State::kFinalized) RETURN_IF_ERROR(nested.Update());
  RETURN_IF_ERROR(recorder(nested));
  return nested.Finalize();
}

absl::Status HostCommandBuffer::CreateWhileNode(const Command& command,
                                                DeviceAddressBase predicate,
                                                int64_t max_iterations,
                                                NestedRecorder condition,
                                                NestedRecorder body) {
  Loop loop;
  loop.condition = std::make_unique<HostCommandBuffer>();
  loop.body = std::make_unique<HostCommandBuffer>();
  loop.max_iterations = max_iterations;
  RETURN_IF_ERROR(RecordNested(*loop.condition, condition));
  RETURN_IF_ERROR(RecordNested(*loop.body, body));
  RETURN_IF_ERROR(
      AddOps(command, std::vector<HostOp>{LoopOp(loop, predicate)}));
  loops_[command.id()] = std::move(loop);
  return absl::OkStatus();
}

absl::StatusOr<CommandBuffer::NodeUpdate> HostCommandBuffer::UpdateWhileNode(
    const Command& command, DeviceAddressBase predicate,
    NestedRecorder condition, NestedRecorder body) {
  Loop& loop = loops_.at(command.id());
  RETURN_IF_ERROR(RecordNested(*loop.condition, condition));
  RETURN_IF_ERROR(RecordNested(*loop.body, body));
  return ReplaceOps(command, std::vector<HostOp>{LoopOp(loop, predicate)});
}

HostOp HostCommandBuffer::CaseOp(const Branches& branches,
                                 DeviceAddressBase selector) {
  std::vector<std::shared_ptr<const Executable>> executables;
  for (const auto& branch : branches) {
    executables.push_back(branch->executable_);
  }
  const void* value = selector.opaque();
  const bool is_pred = selector.size() == 1;
  return [executables, value, is_pred]() -> absl::Status {
    const int64_t count = executables.size();
    int64_t branch;
    if (is_pred) {
      branch = *static_cast<const volatile uint8_t*>(value) != 0 ? 0 : 1;
    } else {
      const int32_t index = *static_cast<const volatile int32_t*>(value);
      branch = index >= 0 && index < count ? index : count - 1;
    }
    return RunOps(*executables[branch]);
  };
}

absl::Status HostCommandBuffer::CreateCaseNode(
    const Command& command, DeviceAddressBase selector,
    absl::Span<const NestedRecorder> recorders) {
  Branches branches;
  for (NestedRecorder recorder : recorders) {
    branches.push_back(std::make_unique<HostCommandBuffer>());
    RETURN_IF_ERROR(RecordNested(*branches.back(), recorder));
  }
  RETURN_IF_ERROR(
      AddOps(command, std::vector<HostOp>{CaseOp(branches, selector)}));
  cases_[command.id()] = std::move(branches);
  return absl::OkStatus();
}

absl::StatusOr<CommandBuffer::NodeUpdate> HostCommandBuffer::UpdateCaseNode(
    const Command& command, DeviceAddressBase selector,
    absl::Span<const NestedRecorder> recorders) {
  Branches& branches = cases_.at(command.id());
  if (branches.size() != recorders.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "UpdateCase: ", recorders.size(), " branches for a node of ",
        branches.size()));
  }
  for (size_t k = 0; k < branches.size(); ++k) {
    RETURN_IF_ERROR(RecordNested(*branches[k], recorders[k]));
  }
  return ReplaceOps(command, std::vector<HostOp>{CaseOp(branches, selector)});
}

std::shared_ptr<HostCommandBuffer::Executable> HostCommandBuffer::Flatten()
    const {
  auto executable = std::make_shared<Executable>();
  executable->spans.reserve(node_ops_.size());
  for (const std::vector<HostOp>& ops : node_ops_) {
    executable->spans.push_back({executable->ops.size(), ops.size()});
    executable->ops.insert(executable->ops.end(), ops.begin(), ops.end());
  }
  return executable;
}

absl::Status HostCommandBuffer::Instantiate() {
  executable_ = Flatten();
  VLOG(3) << "host command buffer: " << node_ops_.size() << " commands as "
          << executable_->ops.size() << " operations";
  return absl::OkStatus();
}

absl::Status HostCommandBuffer::Reinstantiate() {
  pending_.reset();
  return Instantiate();
}

absl::Status HostCommandBuffer::CommitUpdates() {
  if (pending_ != nullptr) executable_ = std::move(pending_);
  return absl::OkStatus();
}

absl::Status HostCommandBuffer::Launch(Stream* stream) {
  auto* host_stream = dynamic_cast<HostStream*>(stream);
  if (host_stream == nullptr) {
    return absl::InvalidArgumentError(
        "host command buffer needs a host stream");
  }
  std::shared_ptr<const Executable> executable = executable_;
  return host_stream->Enqueue(
      [executable]() -> absl::Status { return RunOps(*executable); });
}

}  // namespace stream_executor::host
