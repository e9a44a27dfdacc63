#ifndef STREAM_EXECUTOR_GPU_GPU_DNN_H_
#define STREAM_EXECUTOR_GPU_GPU_DNN_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/dnn.h"
#include "stream_executor/gpu/gpu_dnn_api.h"

namespace stream_executor::gpu {

class GpuExecutor;
class GpuStream;

// cuDNN behind dnn::DnnSupport: one handle per executor and one plan per
// convolution shape. Plans are made and timed by PrepareConvolution,
// before any capture; a call only looks its plan up and enqueues on the
// caller's workspace, so it is legal under stream capture. Workspaces
// belong to callers because calls of one shape may run at once (two
// convolutions of a graph without a path between them).
//
// Locking: mu_ guards the handle (bound to the calling stream for each
// call) and the plans; a plan is never removed before destruction, so a
// call's plan stays valid while mu_ is held for the enqueue.
class GpuDnn : public dnn::DnnSupport {
 public:
  // Most workspace one convolution's algorithm may take; algorithms that
  // need more are passed over.
  static constexpr size_t kMaxWorkspaceBytes = size_t{256} << 20;

  static absl::StatusOr<std::unique_ptr<GpuDnn>> Create(
      GpuExecutor* executor, const GpuDnnApi& dnn_api);
  ~GpuDnn() override;

  absl::StatusOr<uint64_t> PrepareConvolution(
      Stream* stream, const dnn::ConvolutionCall& call) override;
  absl::Status Convolution(Stream* stream, const dnn::ConvolutionCall& call,
                           DeviceAddressBase workspace) override;

 private:
  struct Plan {
    GpuDnnPlan plan = nullptr;
    size_t workspace_bytes = 0;
  };

  GpuDnn(GpuExecutor* executor, const GpuDnnApi& dnn_api, GpuDnnHandle handle)
      : executor_(executor), dnn_api_(dnn_api), handle_(handle) {}

  absl::StatusOr<GpuStream*> CheckCall(Stream* stream,
                                       const dnn::ConvolutionCall& call) const;
  // A new plan for `call` timed on `stream`.
  absl::StatusOr<Plan> MakePlan(GpuStream* stream,
                                const dnn::ConvolutionCall& call)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DestroyPlan(const Plan& plan) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status DnnStatus(int error, absl::string_view operation) const;

  GpuExecutor* const executor_;
  const GpuDnnApi& dnn_api_;

  absl::Mutex mu_;
  GpuDnnHandle handle_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Plan> plans_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_DNN_H_
