#ifndef XLA_LITE_RUNTIME_CONVOLUTION_THUNK_H_
#define XLA_LITE_RUNTIME_CONVOLUTION_THUNK_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/dnn.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// A convolution through the platform's DNN library (cuDNN): one
// dnn::ConvolutionCall on the slices' addresses. A forward call reads the
// input and filter and writes the output; a filter-gradient call reads the
// input and output (the output gradient) and writes the filter.
//
// Initialize prepares the call's shape (the algorithm is timed and its
// workspace allocated there, never under capture). In a command buffer the
// call is a traced child graph, like a GemmThunk's, and a moved address
// means a new trace (or one from the TraceCache).
class ConvolutionThunk : public Thunk {
 public:
  // `call`'s addresses are ignored. CHECK-fails when a slice is smaller
  // than its layout spans.
  ConvolutionThunk(std::string name, se::dnn::ConvolutionCall call,
                   BufferAllocation::Slice input, BufferAllocation::Slice filter,
                   BufferAllocation::Slice output);

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
  absl::StatusOr<std::shared_ptr<const se::CapturedGraph>> Trace(
      const RecordParams& params) const;

  const se::dnn::ConvolutionCall call_;
  const BufferAllocation::Slice input_, filter_, output_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_CONVOLUTION_THUNK_H_
