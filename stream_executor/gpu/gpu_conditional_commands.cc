// Loops and branches of GpuCommandBuffer as conditional nodes.
//
// A command has one template node, so each loop or branch command is an
// `if` node whose handle every launch sets to 1 (the scope); inside it:
//
//   loop:    [condition] -> set_while_condition(first) -> while node
//              while body: [body] -> [condition] -> set_while_condition
//   branch:  set_case_condition -> switch node over [branch 0] ... [n-1]
//
// The bracketed parts are nested command buffers recorded by the caller's
// NestedRecorder (the condition twice: once to decide the first trip, once
// at the end of each trip). The set kernels read the predicate or selector
// on the device and set the handle the next node tests, so a whole loop
// runs inside one graph launch. set_while_condition also counts trips in a
// device word of the loop's and stops a loop at its bound, writing the
// bound to the root's pinned word, which a host callback after the launch
// turns into RESOURCE_EXHAUSTED.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_command_buffer.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_status.h"

namespace stream_executor::gpu {
namespace {

using ConditionalKind = GpuApi::ConditionalKind;

// Argument values of the set kernels, in their parameter order (see
// GpuApi::conditional_kernels).
struct SetWhileArgs {
  uint64_t handle;
  const void* predicate;
  void* trips;
  uint64_t max_trips;
  uint64_t* exceeded;
  uint32_t first;

  std::vector<void*> Params() {
    return {&handle, &predicate, &trips, &max_trips, &exceeded, &first};
  }
};

struct SetCaseArgs {
  uint64_t handle;
  const void* selector;
  uint32_t is_pred;
  uint32_t num_branches;

  std::vector<void*> Params() {
    return {&handle, &selector, &is_pred, &num_branches};
  }
};

GpuKernelNodeParams SingleThread(GpuFunctionHandle function,
                                 std::vector<void*>& params) {
  GpuKernelNodeParams node_params;
  node_params.function = function;
  node_params.params = params.data();
  return node_params;
}

}  // namespace

absl::StatusOr<GpuCommandBuffer::Scope> GpuCommandBuffer::AddConditionalScope(
    const Command& command) {
  RETURN_IF_ERROR(executor_->Activate());
  Scope scope;
  RETURN_IF_ERROR(ToStatus(
      api_,
      api_.graph_conditional_handle_create(&scope.handle, graph(), 1,
                                           /*reset_on_launch=*/true),
      "conditional handle create"));
  absl::Status added = AddGraphNode(
      command, Node(),
      [&](const Node&, GpuGraphNodeHandle* node, const GpuGraphNodeHandle* deps,
          size_t count) {
        return api_.graph_add_conditional_node(
            node, graph(), deps, count, scope.handle, ConditionalKind::kIf, 1,
            &scope.body);
      });
  if (!added.ok()) {
    root_->orphaned_handles_ = true;
    return added;
  }
  return scope;
}

absl::Status GpuCommandBuffer::DiscardScope() {
  // Handles cannot be destroyed, and the scope's (and those of the nodes
  // in it) now test no node: CUDA refuses to instantiate such a graph.
  root_->orphaned_handles_ = true;
  absl::Status status = ToStatus(
      api_, api_.graph_destroy_node(nodes_.back().handle), "graph node destroy");
  nodes_.pop_back();
  return status;
}

std::unique_ptr<GpuCommandBuffer> GpuCommandBuffer::NewNested(
    GpuGraphHandle body, const GpuCommandBuffer* after) {
  auto nested = std::unique_ptr<GpuCommandBuffer>(
      new GpuCommandBuffer(executor_, body, root_));
  nested->after_ = after;
  return nested;
}

absl::StatusOr<bool> GpuCommandBuffer::RecordNested(GpuCommandBuffer& nested,
                                                    NestedRecorder recorder) {
  if (nested.state() == State::kFinalized) RETURN_IF_ERROR(nested.Update());
  const int64_t before = nested.counters().reinstantiations;
  RETURN_IF_ERROR(recorder(nested));
  RETURN_IF_ERROR(nested.Finalize());
  return nested.counters().reinstantiations > before;
}

absl::StatusOr<GpuGraphNodeHandle> GpuCommandBuffer::AddSetKernelNode(
    GpuGraphHandle graph, const std::vector<GpuGraphNodeHandle>& deps,
    const char* kernel, std::vector<void*> params) {
  ASSIGN_OR_RETURN(GpuFunctionHandle function,
                   executor_->ConditionalKernel(kernel));
  GpuKernelNodeParams node_params = SingleThread(function, params);
  GpuGraphNodeHandle node = nullptr;
  RETURN_IF_ERROR(ToStatus(
      api_,
      api_.graph_add_kernel_node(&node, graph, deps.data(), deps.size(),
                                 &node_params),
      absl::StrCat("adding a ", kernel, " node")));
  return node;
}

absl::StatusOr<uint64_t*> GpuCommandBuffer::LoopBoundWord() {
  CHECK(!is_nested()) << "the root owns the loop bound word";
  if (loop_bound_word_ != nullptr) return loop_bound_word_;
  RETURN_IF_ERROR(executor_->Activate());
  // Teardown frees the loops' memory, so it must be able to wait for the
  // launches that use it.
  if (last_launch_ == nullptr) {
    RETURN_IF_ERROR(
        ToStatus(api_, api_.event_create(&last_launch_), "event create"));
  }
  void* word = nullptr;
  RETURN_IF_ERROR(ToStatus(api_, api_.host_alloc(&word, sizeof(uint64_t)),
                           "pinned host allocation"));
  loop_bound_word_ = static_cast<uint64_t*>(word);
  *loop_bound_word_ = 0;
  return loop_bound_word_;
}

absl::Status GpuCommandBuffer::FreeConditionals() {
  absl::Status status;
  for (auto& [id, conditional] : conditionals_) {
    if (conditional.trips == nullptr) continue;
    status.Update(ToStatus(api_, api_.mem_free(conditional.trips),
                           "freeing a loop's trip counter"));
    conditional.trips = nullptr;
  }
  if (loop_bound_word_ != nullptr) {
    status.Update(ToStatus(api_, api_.host_free(loop_bound_word_),
                           "freeing the loop bound word"));
    loop_bound_word_ = nullptr;
  }
  return status;
}

absl::Status GpuCommandBuffer::CreateWhileNode(const Command& command,
                                               DeviceAddressBase predicate,
                                               int64_t max_iterations,
                                               NestedRecorder condition,
                                               NestedRecorder body) {
  ASSIGN_OR_RETURN(uint64_t* bound_word, root_->LoopBoundWord());
  Conditional loop;
  loop.predicate = predicate;
  loop.max_iterations = max_iterations;
  ASSIGN_OR_RETURN(Scope scope, AddConditionalScope(command));
  absl::Status built = [&]() -> absl::Status {
    RETURN_IF_ERROR(
        ToStatus(api_, api_.mem_alloc(&loop.trips, sizeof(uint64_t)),
                 "allocating a loop's trip counter"));
    loop.pre_condition = NewNested(scope.body, nullptr);
    RETURN_IF_ERROR(RecordNested(*loop.pre_condition, condition).status());
    RETURN_IF_ERROR(ToStatus(
        api_,
        api_.graph_conditional_handle_create(&loop.handle, scope.body, 0,
                                             /*reset_on_launch=*/false),
        "conditional handle create"));
    SetWhileArgs first{loop.handle,
                       predicate.opaque(),
                       loop.trips,
                       static_cast<uint64_t>(max_iterations),
                       bound_word,
                       1};
    ASSIGN_OR_RETURN(loop.set_first,
                     AddSetKernelNode(scope.body, loop.pre_condition->ExitHandles(),
                                      "set_while_condition", first.Params()));
    loop.pre_condition->successor_node_ = loop.set_first;
    GpuGraphNodeHandle loop_node = nullptr;
    GpuGraphHandle body_graph = nullptr;
    RETURN_IF_ERROR(ToStatus(
        api_,
        api_.graph_add_conditional_node(&loop_node, scope.body, &loop.set_first, 1,
                                        loop.handle, ConditionalKind::kWhile,
                                        1, &body_graph),
        "adding a loop node"));
    loop.body = NewNested(body_graph, nullptr);
    RETURN_IF_ERROR(RecordNested(*loop.body, body).status());
    loop.condition = NewNested(body_graph, loop.body.get());
    loop.body->before_ = loop.condition.get();
    RETURN_IF_ERROR(RecordNested(*loop.condition, condition).status());
    SetWhileArgs next = first;
    next.first = 0;
    ASSIGN_OR_RETURN(loop.set_next,
                     AddSetKernelNode(body_graph, loop.condition->ExitHandles(),
                                      "set_while_condition", next.Params()));
    loop.condition->successor_node_ = loop.set_next;
    return absl::OkStatus();
  }();
  if (!built.ok()) {
    // The command is discarded: its scope (and everything in it) goes.
    built.Update(DiscardScope());
    if (loop.trips != nullptr) {
      built.Update(ToStatus(api_, api_.mem_free(loop.trips),
                            "freeing a loop's trip counter"));
    }
    return built;
  }
  VLOG(5) << "GPU command buffer: node " << command.id() << " is a loop of "
          << loop.body->num_commands() << " body and "
          << loop.condition->num_commands() << " condition commands";
  conditionals_[command.id()] = std::move(loop);
  return absl::OkStatus();
}

absl::StatusOr<CommandBuffer::NodeUpdate> GpuCommandBuffer::UpdateWhileNode(
    const Command& command, DeviceAddressBase predicate,
    NestedRecorder condition, NestedRecorder body) {
  Conditional& loop = conditionals_.at(command.id());
  RETURN_IF_ERROR(executor_->Activate());
  bool reinstantiate = false;
  for (auto [nested, recorder] :
       {std::pair{loop.pre_condition.get(), condition},
        std::pair{loop.body.get(), body},
        std::pair{loop.condition.get(), condition}}) {
    ASSIGN_OR_RETURN(bool rebuilt, RecordNested(*nested, recorder));
    reinstantiate |= rebuilt;
  }
  ASSIGN_OR_RETURN(bool retargeted, RetargetSetKernels(loop, predicate));
  reinstantiate |= retargeted;
  return reinstantiate ? NodeUpdate::kReinstantiate : NodeUpdate::kInPlace;
}

absl::StatusOr<bool> GpuCommandBuffer::RetargetSetKernels(
    Conditional& conditional, DeviceAddressBase predicate) {
  if (predicate.opaque() == conditional.predicate.opaque()) return false;
  conditional.predicate = predicate;
  const bool is_loop = conditional.set_next != nullptr;
  const char* kernel = is_loop ? "set_while_condition" : "set_case_condition";
  ASSIGN_OR_RETURN(GpuFunctionHandle function,
                   executor_->ConditionalKernel(kernel));
  bool reinstantiate = false;
  for (GpuGraphNodeHandle node : {conditional.set_first, conditional.set_next}) {
    if (node == nullptr) continue;
    SetWhileArgs loop{conditional.handle,
                      predicate.opaque(),
                      conditional.trips,
                      static_cast<uint64_t>(conditional.max_iterations),
                      root_->loop_bound_word_,
                      node == conditional.set_first ? 1u : 0u};
    SetCaseArgs branch{conditional.handle, predicate.opaque(),
                       predicate.size() == 1 ? 1u : 0u,
                       static_cast<uint32_t>(conditional.branches.size())};
    std::vector<void*> params = is_loop ? loop.Params() : branch.Params();
    GpuKernelNodeParams node_params = SingleThread(function, params);
    RETURN_IF_ERROR(ToStatus(
        api_, api_.graph_kernel_node_set_params(node, &node_params),
        "set kernel node update"));
    if (api_.graph_exec_kernel_node_set_params(exec(), node, &node_params) !=
        kGpuSuccess) {
      reinstantiate = true;
    }
  }
  return reinstantiate;
}

absl::Status GpuCommandBuffer::CreateCaseNode(
    const Command& command, DeviceAddressBase selector,
    absl::Span<const NestedRecorder> recorders) {
  Conditional branch;
  branch.predicate = selector;
  ASSIGN_OR_RETURN(Scope scope, AddConditionalScope(command));
  absl::Status built = [&]() -> absl::Status {
    RETURN_IF_ERROR(ToStatus(
        api_,
        api_.graph_conditional_handle_create(&branch.handle, scope.body, 0,
                                             /*reset_on_launch=*/false),
        "conditional handle create"));
    const auto count = static_cast<uint32_t>(recorders.size());
    SetCaseArgs args{branch.handle, selector.opaque(),
                     selector.size() == 1 ? 1u : 0u, count};
    ASSIGN_OR_RETURN(branch.set_first,
                     AddSetKernelNode(scope.body, {}, "set_case_condition",
                                      args.Params()));
    GpuGraphNodeHandle switch_node = nullptr;
    std::vector<GpuGraphHandle> bodies(count);
    RETURN_IF_ERROR(ToStatus(
        api_,
        api_.graph_add_conditional_node(&switch_node, scope.body, &branch.set_first,
                                        1, branch.handle,
                                        ConditionalKind::kSwitch, count,
                                        bodies.data()),
        "adding a switch node"));
    for (uint32_t i = 0; i < count; ++i) {
      branch.branches.push_back(NewNested(bodies[i], nullptr));
      RETURN_IF_ERROR(
          RecordNested(*branch.branches.back(), recorders[i]).status());
      if (branch.branches.back()->num_commands() == 0) {
        // A branch that does nothing still gets a node: an empty body
        // graph is not a documented conditional body.
        GpuGraphNodeHandle empty = nullptr;
        RETURN_IF_ERROR(ToStatus(
            api_, api_.graph_add_empty_node(&empty, bodies[i], nullptr, 0),
            "adding an empty branch"));
      }
    }
    return absl::OkStatus();
  }();
  if (!built.ok()) {
    built.Update(DiscardScope());
    return built;
  }
  conditionals_[command.id()] = std::move(branch);
  return absl::OkStatus();
}

absl::StatusOr<CommandBuffer::NodeUpdate> GpuCommandBuffer::UpdateCaseNode(
    const Command& command, DeviceAddressBase selector,
    absl::Span<const NestedRecorder> recorders) {
  Conditional& branch = conditionals_.at(command.id());
  if (branch.branches.size() != recorders.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("UpdateCase: ", recorders.size(),
                     " branches for a node of ", branch.branches.size()));
  }
  RETURN_IF_ERROR(executor_->Activate());
  bool reinstantiate = false;
  for (size_t i = 0; i < recorders.size(); ++i) {
    ASSIGN_OR_RETURN(bool rebuilt,
                     RecordNested(*branch.branches[i], recorders[i]));
    reinstantiate |= rebuilt;
  }
  ASSIGN_OR_RETURN(bool retargeted, RetargetSetKernels(branch, selector));
  reinstantiate |= retargeted;
  return reinstantiate ? NodeUpdate::kReinstantiate : NodeUpdate::kInPlace;
}

}  // namespace stream_executor::gpu
