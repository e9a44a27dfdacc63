#ifndef STREAM_EXECUTOR_COMMAND_BUFFER_H_
#define STREAM_EXECUTOR_COMMAND_BUFFER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "stream_executor/device_address.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"
#include "stream_executor/stream.h"

namespace stream_executor {

// A recorded graph of device work (a CUDA/HIP graph; recorded closures on the
// host), built once and submitted many times.
//
// State machine:
//   kCreate    --Finalize-->  kFinalized   (instantiated, can be submitted)
//   kFinalized --Update---->  kUpdate      (node parameters may change)
//   kUpdate    --Finalize-->  kFinalized   (changes applied in place, or by
//                                           re-instantiation when the
//                                           platform refuses; counted)
// Create* calls are legal only in kCreate, Update* only in kUpdate, Submit
// only in kFinalized; anything else is FAILED_PRECONDITION naming the state.
//
// This class is the part every platform shares, so that all of them keep
// the same books: command ids and kinds, dependency checks, the state
// machine, argument checks, counters and ToDot. A platform implements only
// the protected hooks below, one per node kind plus instantiation and
// launch; a new node kind is one public Create/Update pair here and one
// hook per platform.
//
// Not thread-safe: its owner serializes calls. After a failed Finalize the
// command buffer must be discarded.
class CommandBuffer {
 public:
  enum class State { kCreate, kUpdate, kFinalized };

  // One node of the graph, owned by its command buffer. Platforms keep what
  // they need per node (a graph node handle, recorded closures) indexed by
  // id().
  class Command {
   public:
    enum class Kind {
      kLaunch,
      kMemcpy,
      kMemset,
      kChild,
      kBarrier,
      kWhile,
      kCase
    };
    // How the GPU's block scheduler ranks the command's kernels against
    // those of other commands running at once: a kHigh kernel's waiting
    // blocks take free room on a multiprocessor before a kNormal one's.
    // Platforms without launch priorities run both alike.
    enum class Priority { kNormal, kHigh };

    Command(const Command&) = delete;
    Command& operator=(const Command&) = delete;

    // Position in creation order, which is a topological order: a command
    // can only depend on commands created before it.
    int id() const { return id_; }
    Kind kind() const { return kind_; }
    // "launch axpy", "memset 64", "child (2 nodes)": for ToDot and errors;
    // follows updates.
    const std::string& label() const { return label_; }
    // Ids of the commands this one waits for, each once, in the order given.
    const std::vector<int>& dependencies() const { return dependencies_; }
    // Ids of the commands that wait for this one, in creation order.
    const std::vector<int>& dependents() const { return dependents_; }
    Priority priority() const { return priority_; }

   private:
    friend class CommandBuffer;
    Command(int id, Kind kind) : id_(id), kind_(kind) {}

    int id_;
    Kind kind_;
    std::string label_;
    std::vector<int> dependencies_;
    std::vector<int> dependents_;
    Priority priority_ = Priority::kNormal;
  };
  using Dependencies = absl::Span<const Command* const>;

  // What the command buffer did, for tests, benchmarks and ExecutionStats.
  struct Counters {
    int64_t nodes = 0;
    int64_t instantiations = 0;     // Finalize that built an executable graph.
    int64_t node_updates = 0;       // Update* calls accepted (in place or not).
    int64_t reinstantiations = 0;   // Finalize that rebuilt the executable
                                    // because the platform refused an update.
    int64_t submits = 0;
    // Edges that let a kernel launch before its producer kernel finishes.
    int64_t programmatic_edges = 0;
    // Template nodes the platform raised to high priority (kHigh commands
    // where the platform has node priorities; a rebuilt node counts again).
    int64_t high_priority_nodes = 0;
  };

  virtual ~CommandBuffer() = default;
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;

  // The priority of the commands created from here on (kNormal at first):
  // a recorder marks the commands of its graph's longest path kHigh, so
  // that work with slack yields to them. The nested command buffers of a
  // loop or branch start at kNormal: their kernels run at normal priority.
  void set_priority(Command::Priority priority) { priority_ = priority; }

  absl::StatusOr<const Command*> CreateLaunch(const LaunchDimensions& dims,
                                              const Kernel& kernel,
                                              const KernelArgs& args,
                                              Dependencies deps);
  absl::Status UpdateLaunch(const Command* command,
                            const LaunchDimensions& dims, const Kernel& kernel,
                            const KernelArgs& args);

  // Device-to-device copy. Zero bytes is legal and copies nothing.
  absl::StatusOr<const Command*> CreateMemcpyD2D(DeviceAddressBase dst,
                                                 DeviceAddressBase src,
                                                 uint64_t size,
                                                 Dependencies deps);
  absl::Status UpdateMemcpyD2D(const Command* command, DeviceAddressBase dst,
                               DeviceAddressBase src, uint64_t size);

  // Fills `size` bytes (a multiple of 4, zero is legal) with a 32-bit
  // pattern.
  absl::StatusOr<const Command*> CreateMemset(DeviceAddressBase dst,
                                              uint32_t pattern, uint64_t size,
                                              Dependencies deps);
  absl::Status UpdateMemset(const Command* command, DeviceAddressBase dst,
                            uint32_t pattern, uint64_t size);

  // A captured graph (from Trace) as one node; the node copies it, so
  // `child` may die after the call. An empty graph is legal and becomes a
  // node that does nothing (platforms differ in how).
  absl::StatusOr<const Command*> CreateChild(const CapturedGraph& child,
                                             Dependencies deps);
  absl::Status UpdateChild(const Command* command, const CapturedGraph& child);

  // A node that only joins dependencies.
  absl::StatusOr<const Command*> CreateBarrier(Dependencies deps);

  // Records or updates the commands of a loop's condition or body into
  // `nested`, a command buffer of the same platform in state kCreate (for
  // CreateWhile) or kUpdate (for UpdateWhile) that the loop node owns.
  using NestedRecorder = absl::FunctionRef<absl::Status(CommandBuffer& nested)>;

  // A loop inside the graph, with no host round trip: runs `condition`,
  // then, while the byte at `predicate` (which the condition writes) is
  // nonzero, `body` and `condition` again. A loop still running after
  // `max_iterations` body runs stops, and the work submitted with it fails
  // with RESOURCE_EXHAUSTED, so a trip count read from the device cannot
  // hang the caller. UNIMPLEMENTED on platforms without conditional nodes
  // (StreamExecutor::SupportsConditionalCommands); callers then run the
  // loop from the host. When a recorder fails, its error is returned and
  // no command is added; on CUDA, whose conditional handles cannot be
  // destroyed, Finalize then fails with FAILED_PRECONDITION and the
  // command buffer must be discarded (as after any failed Finalize).
  absl::StatusOr<const Command*> CreateWhile(DeviceAddressBase predicate,
                                             int64_t max_iterations,
                                             NestedRecorder condition,
                                             NestedRecorder body,
                                             Dependencies deps);
  // `condition` and `body` update the nested command buffers CreateWhile
  // recorded (nested.command(i) is the i-th command recorded there).
  absl::Status UpdateWhile(const Command* command, DeviceAddressBase predicate,
                           NestedRecorder condition, NestedRecorder body);

  // A branch inside the graph: runs one of `branches`, each recorded into
  // a nested command buffer, as the value at `selector` says when the node
  // runs: a pred (1 byte; nonzero runs branch 0, zero branch 1, XLA's true
  // and false computations) or an s32 (4 bytes; a value outside
  // [0, branches) runs the last branch, as XLA does). UNIMPLEMENTED where
  // there are no conditional nodes.
  absl::StatusOr<const Command*> CreateCase(
      DeviceAddressBase selector, absl::Span<const NestedRecorder> branches,
      Dependencies deps);
  absl::Status UpdateCase(const Command* command, DeviceAddressBase selector,
                          absl::Span<const NestedRecorder> branches);

  absl::Status Finalize();
  absl::Status Update();
  absl::Status Submit(Stream* stream);

  State state() const { return state_; }
  Counters counters() const { return counters_; }

  // The commands in creation order; `id` in [0, num_commands()).
  const Command& command(int id) const { return *commands_[id]; }
  int num_commands() const { return static_cast<int>(commands_.size()); }

  // The graph in Graphviz DOT, for debugging dumps. Built from the command
  // records, so every platform prints the same graph for the same calls.
  std::string ToDot() const;

  static std::string StateName(State state);
  static absl::string_view KindName(Command::Kind kind);

 protected:
  CommandBuffer() = default;

  // What a platform did with an update.
  enum class NodeUpdate {
    // The executable has the change, or will have it at the next Finalize
    // without help (also when a re-instantiation is already scheduled).
    kInPlace,
    // The platform cannot change its executable in place; it kept the new
    // parameters and rebuilds the executable at Finalize (Reinstantiate).
    kReinstantiate,
  };

  // Platform hooks. The base has checked the state, the dependencies and the
  // arguments it can check without knowing the platform (sizes, arity,
  // empty grids, update kinds) before any hook runs. `command` carries the
  // id, kind and de-duplicated dependencies; a Create hook that fails must
  // leave no per-node state behind, since the command is then discarded.
  virtual absl::Status CreateKernelNode(const Command& command,
                                        const LaunchDimensions& dims,
                                        const Kernel& kernel,
                                        const KernelArgs& args) = 0;
  virtual absl::Status CreateMemcpyNode(const Command& command,
                                        DeviceAddressBase dst,
                                        DeviceAddressBase src,
                                        uint64_t size) = 0;
  virtual absl::Status CreateMemsetNode(const Command& command,
                                        DeviceAddressBase dst,
                                        uint32_t pattern, uint64_t size) = 0;
  virtual absl::Status CreateChildNode(const Command& command,
                                       const CapturedGraph& child) = 0;
  virtual absl::Status CreateBarrierNode(const Command& command) = 0;

  virtual absl::StatusOr<NodeUpdate> UpdateKernelNode(
      const Command& command, const LaunchDimensions& dims,
      const Kernel& kernel, const KernelArgs& args) = 0;
  virtual absl::StatusOr<NodeUpdate> UpdateMemcpyNode(const Command& command,
                                                      DeviceAddressBase dst,
                                                      DeviceAddressBase src,
                                                      uint64_t size) = 0;
  virtual absl::StatusOr<NodeUpdate> UpdateMemsetNode(const Command& command,
                                                      DeviceAddressBase dst,
                                                      uint32_t pattern,
                                                      uint64_t size) = 0;
  virtual absl::StatusOr<NodeUpdate> UpdateChildNode(
      const Command& command, const CapturedGraph& child) = 0;

  // Builds the first executable (Finalize in kCreate).
  virtual absl::Status Instantiate() = 0;
  // Replaces the executable after an update returned kReinstantiate. Work
  // already submitted must keep running on what it was submitted with.
  virtual absl::Status Reinstantiate() = 0;
  // Finalize after updates that were all kInPlace.
  virtual absl::Status CommitUpdates() = 0;
  // Enqueues the executable on `stream` (Submit in kFinalized).
  virtual absl::Status Launch(Stream* stream) = 0;

  // Loop and branch nodes, for platforms with conditional nodes; the
  // others keep these defaults (UNIMPLEMENTED).
  virtual absl::Status CreateWhileNode(const Command& command,
                                       DeviceAddressBase predicate,
                                       int64_t max_iterations,
                                       NestedRecorder condition,
                                       NestedRecorder body);
  virtual absl::StatusOr<NodeUpdate> UpdateWhileNode(
      const Command& command, DeviceAddressBase predicate,
      NestedRecorder condition, NestedRecorder body);
  virtual absl::Status CreateCaseNode(const Command& command,
                                      DeviceAddressBase selector,
                                      absl::Span<const NestedRecorder> branches);
  virtual absl::StatusOr<NodeUpdate> UpdateCaseNode(
      const Command& command, DeviceAddressBase selector,
      absl::Span<const NestedRecorder> branches);

  // For hooks.
  // An update this finalize cycle was refused; in-place work is wasted.
  bool reinstantiation_pending() const { return needs_reinstantiation_; }
  void CountProgrammaticEdges(int64_t edges) {
    counters_.programmatic_edges += edges;
  }
  void CountHighPriorityNode() { ++counters_.high_priority_nodes; }

 private:
  // Records a command of `kind` after `deps` once `create` (the platform
  // hook) accepted it. `args` is the caller's check of its arguments,
  // reported after the state and before the dependencies; `what` names the
  // call in errors.
  absl::StatusOr<const Command*> AddCommand(
      Command::Kind kind, const char* what, std::string label,
      absl::Status args, Dependencies deps,
      absl::FunctionRef<absl::Status(const Command&)> create);
  // Applies an update of `command`, which must be of `kind`, through
  // `update` (the platform hook). Errors are reported in the order state,
  // command, `args`.
  absl::Status UpdateCommand(
      const Command* command, Command::Kind kind, const char* what,
      std::string label, absl::Status args,
      absl::FunctionRef<absl::StatusOr<NodeUpdate>(const Command&)> update);
  // FAILED_PRECONDITION unless in `expected`; `what` names the call.
  absl::Status CheckState(State expected, const char* what) const;
  // The command of this buffer `command` points to, or INVALID_ARGUMENT.
  absl::StatusOr<Command*> FindCommand(const Command* command,
                                       absl::string_view what) const;

  State state_ = State::kCreate;
  Counters counters_;
  std::vector<std::unique_ptr<Command>> commands_;
  bool needs_reinstantiation_ = false;
  Command::Priority priority_ = Command::Priority::kNormal;
};

// Runs `fn` on `stream` under stream capture and returns what it enqueued,
// for library calls (cuBLAS) that cannot be recorded node by node. Capture is
// always ended, also when `fn` fails.
absl::StatusOr<std::unique_ptr<CapturedGraph>> TraceIntoGraph(
    Stream* stream, absl::AnyInvocable<absl::Status(Stream*) &&> fn);

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_COMMAND_BUFFER_H_
