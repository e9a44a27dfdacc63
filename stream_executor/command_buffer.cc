#include "stream_executor/command_buffer.h"

#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace stream_executor {
namespace {

using Kind = CommandBuffer::Command::Kind;

absl::Status CheckCopyArgs(const char* what, const DeviceAddressBase& dst,
                           const DeviceAddressBase& src, uint64_t size) {
  if (size > src.size() || size > dst.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %d bytes do not fit: destination %s, source %s", what, size,
        dst.ToString(), src.ToString()));
  }
  if (size > 0 && (dst.is_null() || src.is_null())) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": null device address"));
  }
  return absl::OkStatus();
}

absl::Status CheckMemsetArgs(const char* what, const DeviceAddressBase& dst,
                             uint64_t size) {
  if (size % 4 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: 32-bit memset of %d bytes: size must be a multiple of 4", what,
        size));
  }
  if (size > dst.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %d bytes do not fit a buffer of %d bytes", what,
                        size, dst.size()));
  }
  if (size > 0 && dst.is_null()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": null device address"));
  }
  return absl::OkStatus();
}

std::string LaunchLabel(const Kernel& kernel) {
  return absl::StrCat("launch ", kernel.name());
}
std::string MemcpyLabel(uint64_t size) { return absl::StrCat("memcpy ", size); }
std::string MemsetLabel(uint64_t size) { return absl::StrCat("memset ", size); }
std::string ChildLabel(const CapturedGraph& child) {
  return absl::StrCat("child (", child.num_nodes(), " nodes)");
}

absl::Status CheckWhileArgs(const char* what,
                            const DeviceAddressBase& predicate,
                            int64_t max_iterations) {
  if (predicate.is_null() || predicate.size() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the predicate must be at least one byte of device memory, "
              "not ", predicate.ToString()));
  }
  if (max_iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": max_iterations must be positive, not ", max_iterations));
  }
  return absl::OkStatus();
}

absl::Status CheckCaseArgs(const char* what, const DeviceAddressBase& selector,
                           size_t branches) {
  if (selector.is_null() || (selector.size() != 1 && selector.size() != 4)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the selector is a pred (1 byte) or s32 (4 bytes) of device "
              "memory, not ",
        selector.ToString()));
  }
  if (branches == 0 || (selector.size() == 1 && branches != 2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": ", branches, " branches; a pred selector picks one of 2, "
              "an s32 one of at least 1"));
  }
  return absl::OkStatus();
}

std::string CaseLabel(const DeviceAddressBase& selector, size_t branches) {
  return absl::StrCat("case ", selector.ToString(), " (", branches,
                      " branches)");
}

}  // namespace

std::string CommandBuffer::StateName(State state) {
  switch (state) {
    case State::kCreate:
      return "create";
    case State::kUpdate:
      return "update";
    case State::kFinalized:
      return "finalized";
  }
  return "unknown";
}

absl::string_view CommandBuffer::KindName(Command::Kind kind) {
  switch (kind) {
    case Kind::kLaunch:
      return "launch";
    case Kind::kMemcpy:
      return "memcpy";
    case Kind::kMemset:
      return "memset";
    case Kind::kChild:
      return "child";
    case Kind::kBarrier:
      return "barrier";
    case Kind::kWhile:
      return "while";
    case Kind::kCase:
      return "case";
  }
  return "unknown";
}

absl::Status CommandBuffer::CheckState(State expected, const char* what) const {
  if (state_ == expected) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "command buffer: %s needs state %s, but it is %s", what,
      StateName(expected), StateName(state_)));
}

absl::StatusOr<CommandBuffer::Command*> CommandBuffer::FindCommand(
    const Command* command, absl::string_view what) const {
  // Reading the id of another buffer's command is fine; only the identity
  // check below says whether it is ours.
  if (command == nullptr || command->id_ < 0 ||
      command->id_ >= num_commands() ||
      commands_[command->id_].get() != command) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a command of this command buffer"));
  }
  return commands_[command->id_].get();
}

absl::StatusOr<const CommandBuffer::Command*> CommandBuffer::AddCommand(
    Kind kind, const char* what, std::string label, absl::Status args,
    Dependencies deps, absl::FunctionRef<absl::Status(const Command&)> create) {
  RETURN_IF_ERROR(CheckState(State::kCreate, what));
  RETURN_IF_ERROR(args);
  auto command = std::unique_ptr<Command>(new Command(num_commands(), kind));
  command->label_ = std::move(label);
  command->priority_ = priority_;
  for (const Command* dep : deps) {
    ASSIGN_OR_RETURN(Command * found,
                     FindCommand(dep, absl::StrCat(what, ": dependency")));
    // Graph runtimes reject an edge given twice; one edge orders the same.
    if (!absl::c_linear_search(command->dependencies_, found->id_)) {
      command->dependencies_.push_back(found->id_);
    }
  }
  RETURN_IF_ERROR(create(*command));
  for (int dep : command->dependencies_) {
    commands_[dep]->dependents_.push_back(command->id_);
  }
  VLOG(5) << "command buffer: node " << command->id_ << " "
          << command->label_ << " after " << command->dependencies_.size()
          << " dependencies";
  commands_.push_back(std::move(command));
  counters_.nodes = num_commands();
  return commands_.back().get();
}

absl::Status CommandBuffer::UpdateCommand(
    const Command* command, Kind kind, const char* what, std::string label,
    absl::Status args,
    absl::FunctionRef<absl::StatusOr<NodeUpdate>(const Command&)> update) {
  RETURN_IF_ERROR(CheckState(State::kUpdate, what));
  ASSIGN_OR_RETURN(Command * found, FindCommand(command, what));
  if (found->kind_ != kind) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: command %d is a %s (%s), not a %s", what, found->id_,
        KindName(found->kind_), found->label_, KindName(kind)));
  }
  RETURN_IF_ERROR(args);
  ASSIGN_OR_RETURN(NodeUpdate result, update(*found));
  found->label_ = std::move(label);
  ++counters_.node_updates;
  if (result == NodeUpdate::kReinstantiate && !needs_reinstantiation_) {
    VLOG(3) << "command buffer: " << what << " of node " << found->id_ << " "
            << found->label_ << " cannot be applied in place; re-instantiating"
            << " at Finalize";
    needs_reinstantiation_ = true;
  } else {
    VLOG(5) << "command buffer: updated node " << found->id_ << " "
            << found->label_;
  }
  return absl::OkStatus();
}

absl::StatusOr<const CommandBuffer::Command*> CommandBuffer::CreateLaunch(
    const LaunchDimensions& dims, const Kernel& kernel, const KernelArgs& args,
    Dependencies deps) {
  const char* what = "CreateLaunch";
  return AddCommand(Kind::kLaunch, what, LaunchLabel(kernel),
                    CheckLaunchArgs(what, dims, kernel, args), deps,
                    [&](const Command& command) {
                      return CreateKernelNode(command, dims, kernel, args);
                    });
}

absl::Status CommandBuffer::UpdateLaunch(const Command* command,
                                         const LaunchDimensions& dims,
                                         const Kernel& kernel,
                                         const KernelArgs& args) {
  const char* what = "UpdateLaunch";
  return UpdateCommand(command, Kind::kLaunch, what, LaunchLabel(kernel),
                       CheckLaunchArgs(what, dims, kernel, args),
                       [&](const Command& found) {
                         return UpdateKernelNode(found, dims, kernel, args);
                       });
}

absl::StatusOr<const CommandBuffer::Command*> CommandBuffer::CreateMemcpyD2D(
    DeviceAddressBase dst, DeviceAddressBase src, uint64_t size,
    Dependencies deps) {
  const char* what = "CreateMemcpyD2D";
  return AddCommand(Kind::kMemcpy, what, MemcpyLabel(size),
                    CheckCopyArgs(what, dst, src, size), deps,
                    [&](const Command& command) {
                      return CreateMemcpyNode(command, dst, src, size);
                    });
}

absl::Status CommandBuffer::UpdateMemcpyD2D(const Command* command,
                                            DeviceAddressBase dst,
                                            DeviceAddressBase src,
                                            uint64_t size) {
  const char* what = "UpdateMemcpyD2D";
  return UpdateCommand(command, Kind::kMemcpy, what, MemcpyLabel(size),
                       CheckCopyArgs(what, dst, src, size),
                       [&](const Command& found) {
                         return UpdateMemcpyNode(found, dst, src, size);
                       });
}

absl::StatusOr<const CommandBuffer::Command*> CommandBuffer::CreateMemset(
    DeviceAddressBase dst, uint32_t pattern, uint64_t size, Dependencies deps) {
  const char* what = "CreateMemset";
  return AddCommand(Kind::kMemset, what, MemsetLabel(size),
                    CheckMemsetArgs(what, dst, size), deps,
                    [&](const Command& command) {
                      return CreateMemsetNode(command, dst, pattern, size);
                    });
}

absl::Status CommandBuffer::UpdateMemset(const Command* command,
                                         DeviceAddressBase dst,
                                         uint32_t pattern, uint64_t size) {
  const char* what = "UpdateMemset";
  return UpdateCommand(command, Kind::kMemset, what, MemsetLabel(size),
                       CheckMemsetArgs(what, dst, size),
                       [&](const Command& found) {
                         return UpdateMemsetNode(found, dst, pattern, size);
                       });
}

absl::StatusOr<const CommandBuffer::Command*> CommandBuffer::CreateWhile(
    DeviceAddressBase predicate, int64_t max_iterations,
    NestedRecorder condition, NestedRecorder body, Dependencies deps) {
  const char* what = "CreateWhile";
  return AddCommand(
      Kind::kWhile, what, absl::StrCat("while ", predicate.ToString()),
      CheckWhileArgs(what, predicate, max_iterations), deps,
      [&](const Command& command) {
        return CreateWhileNode(command, predicate, max_iterations, condition,
                               body);
      });
}

absl::Status CommandBuffer::UpdateWhile(const Command* command,
                                        DeviceAddressBase predicate,
                                        NestedRecorder condition,
                                        NestedRecorder body) {
  const char* what = "UpdateWhile";
  return UpdateCommand(
      command, Kind::kWhile, what, absl::StrCat("while ", predicate.ToString()),
      CheckWhileArgs(what, predicate, 1), [&](const Command& found) {
        return UpdateWhileNode(found, predicate, condition, body);
      });
}

absl::StatusOr<const CommandBuffer::Command*> CommandBuffer::CreateCase(
    DeviceAddressBase selector, absl::Span<const NestedRecorder> branches,
    Dependencies deps) {
  const char* what = "CreateCase";
  return AddCommand(Kind::kCase, what, CaseLabel(selector, branches.size()),
                    CheckCaseArgs(what, selector, branches.size()), deps,
                    [&](const Command& command) {
                      return CreateCaseNode(command, selector, branches);
                    });
}

absl::Status CommandBuffer::UpdateCase(
    const Command* command, DeviceAddressBase selector,
    absl::Span<const NestedRecorder> branches) {
  const char* what = "UpdateCase";
  return UpdateCommand(command, Kind::kCase, what,
                       CaseLabel(selector, branches.size()),
                       CheckCaseArgs(what, selector, branches.size()),
                       [&](const Command& found) {
                         return UpdateCaseNode(found, selector, branches);
                       });
}

absl::Status CommandBuffer::CreateCaseNode(const Command&, DeviceAddressBase,
                                           absl::Span<const NestedRecorder>) {
  return absl::UnimplementedError(
      "this platform's command buffers have no conditional nodes; the "
      "conditional runs from the host");
}

absl::StatusOr<CommandBuffer::NodeUpdate> CommandBuffer::UpdateCaseNode(
    const Command&, DeviceAddressBase, absl::Span<const NestedRecorder>) {
  return absl::UnimplementedError(
      "this platform's command buffers have no conditional nodes");
}

absl::Status CommandBuffer::CreateWhileNode(const Command&, DeviceAddressBase,
                                            int64_t, NestedRecorder,
                                            NestedRecorder) {
  return absl::UnimplementedError(
      "this platform's command buffers have no conditional nodes; the loop "
      "runs from the host");
}

absl::StatusOr<CommandBuffer::NodeUpdate> CommandBuffer::UpdateWhileNode(
    const Command&, DeviceAddressBase, NestedRecorder, NestedRecorder) {
  return absl::UnimplementedError(
      "this platform's command buffers have no conditional nodes");
}

absl::StatusOr<const CommandBuffer::Command*> CommandBuffer::CreateChild(
    const CapturedGraph& child, Dependencies deps) {
  return AddCommand(Kind::kChild, "CreateChild", ChildLabel(child),
                    absl::OkStatus(), deps, [&](const Command& command) {
                      return CreateChildNode(command, child);
                    });
}

absl::Status CommandBuffer::UpdateChild(const Command* command,
                                        const CapturedGraph& child) {
  return UpdateCommand(command, Kind::kChild, "UpdateChild", ChildLabel(child),
                       absl::OkStatus(), [&](const Command& found) {
                         return UpdateChildNode(found, child);
                       });
}

absl::StatusOr<const CommandBuffer::Command*> CommandBuffer::CreateBarrier(
    Dependencies deps) {
  return AddCommand(
      Kind::kBarrier, "CreateBarrier", "barrier", absl::OkStatus(), deps,
      [&](const Command& command) { return CreateBarrierNode(command); });
}

absl::Status CommandBuffer::Finalize() {
  if (state_ == State::kFinalized) {
    return absl::FailedPreconditionError(
        "command buffer: Finalize needs state create or update, but it is "
        "finalized");
  }
  if (state_ == State::kCreate) {
    RETURN_IF_ERROR(Instantiate());
    ++counters_.instantiations;
    VLOG(3) << "command buffer: instantiated " << num_commands()
            << " commands";
  } else if (needs_reinstantiation_) {
    RETURN_IF_ERROR(Reinstantiate());
    needs_reinstantiation_ = false;
    ++counters_.reinstantiations;
    VLOG(1) << "command buffer: re-instantiated " << num_commands()
            << " commands after updates the platform could not apply in "
               "place; "
            << counters_.reinstantiations << " so far";
  } else {
    RETURN_IF_ERROR(CommitUpdates());
  }
  state_ = State::kFinalized;
  return absl::OkStatus();
}

absl::Status CommandBuffer::Update() {
  RETURN_IF_ERROR(CheckState(State::kFinalized, "Update"));
  state_ = State::kUpdate;
  return absl::OkStatus();
}

absl::Status CommandBuffer::Submit(Stream* stream) {
  RETURN_IF_ERROR(CheckState(State::kFinalized, "Submit"));
  if (stream == nullptr) {
    return absl::InvalidArgumentError("command buffer: Submit to a null stream");
  }
  RETURN_IF_ERROR(Launch(stream));
  ++counters_.submits;
  VLOG(3) << "command buffer: submitted " << num_commands()
          << " commands (submit " << counters_.submits << ")";
  return absl::OkStatus();
}

std::string CommandBuffer::ToDot() const {
  std::string dot = "digraph command_buffer {\n";
  for (const auto& command : commands_) {
    // High-priority commands (the longest path) are drawn bold.
    absl::StrAppendFormat(
        &dot, "  n%d [label=\"%s\"%s];\n", command->id_, command->label_,
        command->priority_ == Command::Priority::kHigh ? ", style=bold" : "");
    for (int dep : command->dependencies_) {
      absl::StrAppendFormat(&dot, "  n%d -> n%d;\n", dep, command->id_);
    }
  }
  return dot + "}\n";
}

absl::StatusOr<std::unique_ptr<CapturedGraph>> TraceIntoGraph(
    Stream* stream, absl::AnyInvocable<absl::Status(Stream*) &&> fn) {
  absl::Status begin = stream->BeginCapture();
  if (!begin.ok()) return begin;
  absl::Status traced = std::move(fn)(stream);
  absl::StatusOr<std::unique_ptr<CapturedGraph>> graph = stream->EndCapture();
  if (!traced.ok()) return traced;
  return graph;
}

}  // namespace stream_executor
