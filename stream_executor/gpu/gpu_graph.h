#ifndef STREAM_EXECUTOR_GPU_GPU_GRAPH_H_
#define STREAM_EXECUTOR_GPU_GPU_GRAPH_H_

#include <utility>

#include "absl/status/status.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/gpu/gpu_status.h"

namespace stream_executor::gpu {

// Owns one handle that `kDestroy` (a member of GpuApi) releases. Destruction
// can only log a failure; Reset() reports it.
template <typename Handle, GpuError (*GpuApi::*kDestroy)(Handle)>
class OwnedGpuHandle {
 public:
  OwnedGpuHandle() = default;
  OwnedGpuHandle(const GpuApi* api, Handle handle)
      : api_(api), handle_(handle) {}
  ~OwnedGpuHandle() {
    absl::Status status = Reset();
    if (!status.ok()) LOG(ERROR) << status;
  }
  OwnedGpuHandle(OwnedGpuHandle&& other)
      : api_(other.api_), handle_(std::exchange(other.handle_, nullptr)) {}
  OwnedGpuHandle& operator=(OwnedGpuHandle&& other) {
    if (this != &other) {
      absl::Status status = Reset();
      if (!status.ok()) LOG(ERROR) << status;
      api_ = other.api_;
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  OwnedGpuHandle(const OwnedGpuHandle&) = delete;
  OwnedGpuHandle& operator=(const OwnedGpuHandle&) = delete;

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

  // Destroys the handle now (a no-op when empty).
  absl::Status Reset() {
    if (handle_ == nullptr) return absl::OkStatus();
    Handle handle = std::exchange(handle_, nullptr);
    return ToStatus(*api_, (api_->*kDestroy)(handle), "graph handle destroy");
  }

 private:
  const GpuApi* api_ = nullptr;
  Handle handle_ = nullptr;
};

// A graph being built (cudaGraph_t, hipGraph_t).
using OwnedGpuGraph = OwnedGpuHandle<GpuGraphHandle, &GpuApi::graph_destroy>;
// An instantiated graph (cudaGraphExec_t, hipGraphExec_t).
using OwnedGpuGraphExec =
    OwnedGpuHandle<GpuGraphExecHandle, &GpuApi::graph_exec_destroy>;

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_GRAPH_H_
