#ifndef STREAM_EXECUTOR_HOST_HOST_COMMAND_BUFFER_H_
#define STREAM_EXECUTOR_HOST_HOST_COMMAND_BUFFER_H_

#include <memory>
#include <string>
#include <vector>

#include "stream_executor/command_buffer.h"
#include "stream_executor/host/host_ops.h"

namespace stream_executor::host {

// A command buffer of recorded closures. Creation order is a topological
// order (a node may only depend on nodes created before it), so the host
// replays nodes in that order on the stream's worker thread: every
// dependency is honoured, and independent nodes simply run one after another.
//
// Finalize snapshots the nodes into an immutable "executable"; a Submit
// enqueues the snapshot current at that time, so updates never race with
// work already queued, as with an instantiated CUDA graph. Not thread-safe:
// its owner serializes calls.
class HostCommandBuffer : public CommandBuffer {
 public:
  HostCommandBuffer() = default;

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
  std::string ToDot() const override;

 private:
  struct Node : Command {
    int id = 0;
    std::string label;
    HostOp op;
    std::vector<int> deps;
  };

  absl::StatusOr<const Command*> AddNode(std::string label, HostOp op,
                                         Dependencies deps);
  absl::StatusOr<Node*> NodeToUpdate(const Command* command, const char* what);

  State state_ = State::kCreate;
  Counters counters_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::shared_ptr<const std::vector<HostOp>> executable_;
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_COMMAND_BUFFER_H_
