#ifndef STREAM_EXECUTOR_HOST_HOST_COMMAND_BUFFER_H_
#define STREAM_EXECUTOR_HOST_HOST_COMMAND_BUFFER_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/host/host_ops.h"

namespace stream_executor::host {

// A command buffer of recorded closures.
//
// Instantiation flattens the commands, in creation order (a topological
// order), into one executable list of operations that a Submit runs as a
// single unit of work on the stream's worker thread: every dependency is
// honoured, and independent commands simply run one after another. Each
// command owns a fixed span of that list (a launch, copy or memset one
// operation, a child graph as many as it captured, a barrier none).
//
// A loop (CreateWhile) is one operation that runs the condition's and the
// body's nested executables inline, on the same worker thread, until the
// predicate byte is zero: the whole loop is part of the one unit of work.
// A branch (CreateCase) is likewise one operation that reads its selector
// and runs one branch's executable.
//
// An update writes the command's new operations over its span. One that
// needs a span of another length (a child graph of a different size, as
// CUDA refuses a child of another topology) cannot be applied in place and
// re-instantiates at Finalize, counted like on the GPUs.
//
// A Submit enqueues the executable current at that time and in-place
// updates go to a copy published at Finalize, so updates never race with
// work already queued, as with an instantiated CUDA graph.
class HostCommandBuffer : public CommandBuffer {
 public:
  HostCommandBuffer() = default;

 private:
  // The flattened operations and each command's span in them.
  struct Executable {
    struct Span {
      size_t first = 0;
      size_t count = 0;
    };
    std::vector<HostOp> ops;
    std::vector<Span> spans;  // By command id.
  };

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

  // Records the operations of a new command, or passes on the error of
  // making them.
  absl::Status AddOps(const Command& command,
                      absl::StatusOr<std::vector<HostOp>> ops);
  // Records a command's new operations and writes them over its span of the
  // pending executable where the length allows.
  absl::StatusOr<NodeUpdate> ReplaceOps(
      const Command& command, absl::StatusOr<std::vector<HostOp>> ops);
  std::shared_ptr<Executable> Flatten() const;
  // Runs `executable`'s operations in order, stopping at the first error.
  static absl::Status RunOps(const Executable& executable);

  // A loop node's condition and body, and its bound.
  struct Loop {
    std::unique_ptr<HostCommandBuffer> condition;
    std::unique_ptr<HostCommandBuffer> body;
    int64_t max_iterations = 0;
  };
  // The one operation of a loop node: runs the nested executables current
  // when it was made (an update makes a new one).
  static HostOp LoopOp(const Loop& loop, DeviceAddressBase predicate);

  // A branch node's branches, by command id.
  using Branches = std::vector<std::unique_ptr<HostCommandBuffer>>;
  static HostOp CaseOp(const Branches& branches, DeviceAddressBase selector);
  // Records (kCreate) or updates (kUpdate) `nested` with `recorder`, then
  // finalizes it.
  static absl::Status RecordNested(HostCommandBuffer& nested,
                                   NestedRecorder recorder);

  // Loop nodes by command id.
  absl::flat_hash_map<int, Loop> loops_;
  absl::flat_hash_map<int, Branches> cases_;
  // The latest operations of each command, by id: what an instantiation
  // flattens.
  std::vector<std::vector<HostOp>> node_ops_;
  // What Submit enqueues; shared with the work already queued.
  std::shared_ptr<const Executable> executable_;
  // A private copy of `executable_` with this update cycle's in-place
  // changes, made by the first of them.
  std::shared_ptr<Executable> pending_;
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_COMMAND_BUFFER_H_
