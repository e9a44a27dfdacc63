#ifndef STREAM_EXECUTOR_COMMAND_BUFFER_H_
#define STREAM_EXECUTOR_COMMAND_BUFFER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
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
class CommandBuffer {
 public:
  enum class State { kCreate, kUpdate, kFinalized };

  // A node of the graph. Platforms subclass it with their node handle.
  class Command {
   public:
    virtual ~Command() = default;
  };
  using Dependencies = absl::Span<const Command* const>;

  // What the command buffer did, for tests, benchmarks and ExecutionStats.
  struct Counters {
    int64_t nodes = 0;
    int64_t instantiations = 0;     // Finalize that built an executable graph.
    int64_t node_updates = 0;       // Update* calls applied in place.
    int64_t reinstantiations = 0;   // Updates the platform refused, rebuilt.
    int64_t submits = 0;
    // Edges that let a kernel launch before its producer kernel finishes.
    int64_t programmatic_edges = 0;
  };

  virtual ~CommandBuffer() = default;
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;

  virtual absl::StatusOr<const Command*> CreateLaunch(
      const LaunchDimensions& dims, const Kernel& kernel,
      const KernelArgs& args, Dependencies deps) = 0;
  virtual absl::Status UpdateLaunch(const Command* command,
                                    const LaunchDimensions& dims,
                                    const Kernel& kernel,
                                    const KernelArgs& args) = 0;

  // Device-to-device copy.
  virtual absl::StatusOr<const Command*> CreateMemcpyD2D(
      DeviceAddressBase dst, DeviceAddressBase src, uint64_t size,
      Dependencies deps) = 0;
  virtual absl::Status UpdateMemcpyD2D(const Command* command,
                                       DeviceAddressBase dst,
                                       DeviceAddressBase src,
                                       uint64_t size) = 0;

  // Fills `size` bytes (a multiple of 4) with a 32-bit pattern.
  virtual absl::StatusOr<const Command*> CreateMemset(DeviceAddressBase dst,
                                                      uint32_t pattern,
                                                      uint64_t size,
                                                      Dependencies deps) = 0;
  virtual absl::Status UpdateMemset(const Command* command,
                                    DeviceAddressBase dst, uint32_t pattern,
                                    uint64_t size) = 0;

  // A captured graph (from Trace) as one node. An empty graph is legal and
  // becomes a node that does nothing (platforms differ in how).
  virtual absl::StatusOr<const Command*> CreateChild(const CapturedGraph& child,
                                                     Dependencies deps) = 0;
  virtual absl::Status UpdateChild(const Command* command,
                                   const CapturedGraph& child) = 0;

  // A node that only joins dependencies.
  virtual absl::StatusOr<const Command*> CreateBarrier(Dependencies deps) = 0;

  virtual absl::Status Finalize() = 0;
  virtual absl::Status Update() = 0;
  virtual absl::Status Submit(Stream* stream) = 0;

  virtual State state() const = 0;
  virtual Counters counters() const = 0;

  // The graph in Graphviz DOT, for debugging dumps.
  virtual std::string ToDot() const = 0;

  static std::string StateName(State state);

 protected:
  CommandBuffer() = default;
  // FAILED_PRECONDITION unless in `expected`; `what` names the call.
  absl::Status CheckState(State current, State expected, const char* what) const;
};

// Runs `fn` on `stream` under stream capture and returns what it enqueued,
// for library calls (cuBLAS) that cannot be recorded node by node. Capture is
// always ended, also when `fn` fails.
absl::StatusOr<std::unique_ptr<CapturedGraph>> TraceIntoGraph(
    Stream* stream, absl::AnyInvocable<absl::Status(Stream*) &&> fn);

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_COMMAND_BUFFER_H_
