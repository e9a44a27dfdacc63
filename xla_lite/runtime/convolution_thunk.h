#ifndef XLA_LITE_RUNTIME_CONVOLUTION_THUNK_H_
#define XLA_LITE_RUNTIME_CONVOLUTION_THUNK_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/dnn.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// A convolution through the platform's DNN library (cuDNN): one
// dnn::ConvolutionCall on the slices' addresses. A forward call reads the
// input and filter and writes the output; a filter-gradient call reads the
// input and output (the output gradient) and writes the filter.
//
// Initialize prepares the call's shape (the algorithm is timed there,
// never under capture) and allocates this thunk's workspace on the
// executor: its own, because another convolution of the same shape may run
// at the same time in a graph. The workspace lives as long as the thunk,
// so the address a graph records stays valid. In a command buffer the
// call is a traced child graph, like a GemmThunk's, and a moved address
// means a new trace (or one from the TraceCache).
//
// Locking: mu_ guards the map of workspaces; a workspace is never freed
// before the thunk is destroyed.
class ConvolutionThunk : public Thunk {
 public:
  // `call`'s addresses are ignored. CHECK-fails when a slice is smaller
  // than its layout spans.
  ConvolutionThunk(std::string name, se::dnn::ConvolutionCall call,
                   BufferAllocation::Slice input,
                   BufferAllocation::Slice filter,
                   BufferAllocation::Slice output);
  // Frees the workspaces; a failure is logged, as a destructor cannot
  // report it.
  ~ConvolutionThunk() override;

  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  bool IsRecordable() const override { return true; }
  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override;
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override;

  const se::dnn::ConvolutionCall& call() const { return call_; }

 private:
  // The call on the slices' addresses in `buffers`.
  se::dnn::ConvolutionCall CallOn(const BufferAllocations& buffers) const;
  // `executor`'s workspace; FAILED_PRECONDITION before Initialize on it.
  absl::StatusOr<se::DeviceAddressBase> Workspace(
      se::StreamExecutor* executor) const;
  absl::StatusOr<std::shared_ptr<const se::CapturedGraph>> Trace(
      const RecordParams& params) const;

  const se::dnn::ConvolutionCall call_;
  const BufferAllocation::Slice input_, filter_, output_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<se::StreamExecutor*, se::DeviceAddressBase> workspaces_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_CONVOLUTION_THUNK_H_
