#ifndef XLA_LITE_RUNTIME_THUNK_H_
#define XLA_LITE_RUNTIME_THUNK_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/stream.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/execution_stats.h"

namespace xla_lite::gpu {

class CollectiveCliques;
class ThunkProfiler;
class TraceCache;

// Where one device stands in a run of several (RunOptions::collectives):
// its global device id and the run's communicators.
struct CollectiveExecuteParams {
  int64_t device_id = 0;
  CollectiveCliques* cliques = nullptr;
};

// Buffers that keep their address for the executable's whole life, one per
// entry parameter allocation, on the executing device: what parameter
// stabilization copies a moved parameter into (see CommandBufferThunk).
// GpuExecutable provides them for each execution.
class StableBuffers {
 public:
  virtual ~StableBuffers() = default;
  virtual bool IsEntryParameter(BufferAllocation::Index index) const = 0;
  // The stable buffer of an entry parameter's allocation, allocated on
  // first use.
  virtual absl::StatusOr<se::DeviceAddressBase> Get(
      BufferAllocation::Index index) = 0;
};

// How a thunk touches one slice. The executable checks these against the
// allocation kinds (nothing writes a constant, or a parameter the caller
// keeps), and command buffers derive the dependencies between their commands
// from them (see CommandDependencies).
struct BufferUse {
  // kWrite covers read-modify-write too (a gemm with beta != 0).
  enum class Access { kRead, kWrite };

  static BufferUse Read(BufferAllocation::Slice slice) {
    return {slice, Access::kRead};
  }
  static BufferUse Write(BufferAllocation::Slice slice) {
    return {slice, Access::kWrite};
  }

  BufferAllocation::Slice slice;
  Access access = Access::kRead;
};

using BufferUses = std::vector<BufferUse>;

// One step of an executable: a unit of device work over slices of the
// buffer allocations. Thunks are created by the compiler, owned by the
// executable and shared by all its executions, possibly on several streams
// and executors at once, so per-executor state lives behind a mutex.
class Thunk {
 public:
  enum class Kind {
    kKernel,
    kGemm,
    kConvolution,
    kMemcpy,
    kMemset,
    kSequential,
    kCommandBuffer,
    kWhile,
    kConditional,
    kCollective,
  };

  struct InitializeParams {
    se::StreamExecutor* executor = nullptr;
    se::Stream* stream = nullptr;
    const DebugOptions* debug_options = nullptr;
  };

  struct ExecuteParams {
    const BufferAllocations* buffer_allocations = nullptr;
    se::Stream* stream = nullptr;
    const DebugOptions* debug_options = nullptr;
    // Where counters go; may be null.
    ExecutionStats* stats = nullptr;
    // For debug_options' parameter stabilization; null: none.
    StableBuffers* stable_buffers = nullptr;
    // Measures every leaf thunk (thunk_profiler.h); null: none.
    ThunkProfiler* profiler = nullptr;
    // A run of several devices; null: this device alone.
    const CollectiveExecuteParams* collectives = nullptr;

    se::StreamExecutor* executor() const { return stream->parent(); }
  };

  // What recording a thunk into a command buffer needs. Recording happens
  // at execution time, with the addresses of that execution, because a
  // command bakes its buffer addresses in.
  struct RecordParams {
    const BufferAllocations* buffer_allocations = nullptr;
    // The stream the command buffer will be submitted to; traced commands
    // capture their library calls on it.
    se::Stream* stream = nullptr;
    // Traces of this thunk on this executor by buffer addresses; null to
    // trace every time.
    TraceCache* trace_cache = nullptr;
    // As ExecuteParams::collectives.
    const CollectiveExecuteParams* collectives = nullptr;
    // As ExecuteParams::debug_options (a recorded loop's bound).
    const DebugOptions* debug_options = nullptr;

    se::StreamExecutor* executor() const { return stream->parent(); }
  };

  Thunk(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}
  virtual ~Thunk() = default;
  Thunk(const Thunk&) = delete;
  Thunk& operator=(const Thunk&) = delete;

  Kind kind() const { return kind_; }
  // A label for logs and profiles (the HLO instruction it came from).
  const std::string& name() const { return name_; }

  // Loads what the thunk needs on one executor (kernels, BLAS handles).
  // Called at least once per executor before ExecuteOnStream and outside
  // any stream capture; repeated calls are cheap no-ops.
  virtual absl::Status Initialize(const InitializeParams& params) {
    return absl::OkStatus();
  }

  // Enqueues the work on params.stream and returns without waiting.
  virtual absl::Status ExecuteOnStream(const ExecuteParams& params) = 0;

  virtual BufferUses buffer_uses() const = 0;

  // Whether Record and UpdateRecorded work for this thunk. A thunk that is
  // not recordable always runs op by op.
  virtual bool IsRecordable() const { return false; }

  // Adds one command to `command_buffer` (in state kCreate) that does what
  // ExecuteOnStream would do with `params`' addresses, after the commands
  // `dependencies`. Needs Initialize on the executor first. UNIMPLEMENTED
  // unless IsRecordable().
  virtual absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies);

  // Points `command`, which Record created in `command_buffer` (now in
  // state kUpdate), at `params`' addresses. Dependencies do not change:
  // they follow from slices, not from addresses.
  virtual absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command);

  std::string ToString() const;

 private:
  Kind kind_;
  std::string name_;
};

using ThunkSequence = std::vector<std::unique_ptr<Thunk>>;

const char* ThunkKindName(Thunk::Kind kind);

// The DebugOptions command type that enables recording this kind of thunk
// into a command buffer; nullopt for kinds that are never recorded as such.
std::optional<DebugOptions::CommandBufferCmdType> CommandBufferCmdTypeOf(
    Thunk::Kind kind);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_THUNK_H_
