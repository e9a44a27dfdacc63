#include "stream_executor/gpu/gpu_stream.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_captured_graph.h"
#include "stream_executor/gpu/gpu_event.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_kernel.h"
#include "stream_executor/gpu/gpu_status.h"

namespace stream_executor::gpu {
namespace {

absl::Status CheckRange(const char* what, const DeviceAddressBase& mem,
                        uint64_t size) {
  if (size > mem.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %d bytes requested, the %s buffer %s holds %d",
                        what, size, what, mem.ToString(), mem.size()));
  }
  if (mem.is_null()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": null device address"));
  }
  return absl::OkStatus();
}

}  // namespace

struct GpuStream::HostCallback {
  GpuStream* stream;
  absl::AnyInvocable<absl::Status() &&> fn;
};

absl::StatusOr<std::unique_ptr<GpuStream>> GpuStream::Create(
    GpuExecutor* executor) {
  const GpuApi& api = executor->api();
  RETURN_IF_ERROR(executor->Activate());
  GpuStreamHandle handle = nullptr;
  RETURN_IF_ERROR(ToStatus(api, api.stream_create(&handle), "stream create"));
  GpuEventHandle join_event = nullptr;
  GpuError error = api.event_create(&join_event);
  if (error != kGpuSuccess) {
    api.stream_destroy(handle);
    return ToStatus(api, error, "event create");
  }
  auto stream =
      std::unique_ptr<GpuStream>(new GpuStream(executor, handle, join_event));
  executor->RegisterStream(stream.get());
  VLOG(3) << "Created stream " << handle << " on device "
          << executor->device_ordinal();
  return stream;
}

GpuStream::GpuStream(GpuExecutor* executor, GpuStreamHandle handle,
                     GpuEventHandle join_event)
    : Stream(executor),
      executor_(executor),
      api_(executor->api()),
      handle_(handle),
      join_event_(join_event) {}

GpuStream::~GpuStream() {
  executor_->UnregisterStream(this);
  absl::Status status = executor_->Activate();
  bool capturing;
  {
    absl::MutexLock lock(&mu_);
    capturing = capturing_;
  }
  if (capturing) {
    // An abandoned capture: end it so the stream can be destroyed, and give
    // back the executor's capture count so that allocation works again.
    LOG(WARNING) << "Destroying stream " << handle_ << " while capturing";
    absl::StatusOr<std::unique_ptr<CapturedGraph>> graph = EndCapture();
    if (!graph.ok()) LOG(ERROR) << graph.status();
  }
  if (status.ok()) {
    status =
        ToStatus(api_, api_.stream_synchronize(handle_), "stream synchronize");
  }
  if (!status.ok()) LOG(ERROR) << "Destroying stream: " << status;
  {
    absl::MutexLock lock(&mu_);
    if (!callback_status_.ok()) {
      LOG(ERROR) << "Destroying stream with an unreported host callback error: "
                 << callback_status_;
    }
  }
  api_.event_destroy(join_event_);
  status = ToStatus(api_, api_.stream_destroy(handle_), "stream destroy");
  if (!status.ok()) LOG(ERROR) << status;
}

absl::Status GpuStream::Memcpy(DeviceAddressBase* dst, const void* host_src,
                               uint64_t size) {
  if (size == 0) return absl::OkStatus();
  RETURN_IF_ERROR(CheckRange("memcpy destination", *dst, size));
  VLOG(5) << "Stream " << handle_ << ": memcpy H2D " << size << " bytes to "
          << dst->opaque();
  RETURN_IF_ERROR(executor_->Activate());
  return ToStatus(api_,
                  api_.memcpy_async(dst->opaque(), host_src, size,
                                    GpuMemcpyKind::kHostToDevice, handle_),
                  "memcpy host to device");
}

absl::Status GpuStream::Memcpy(void* host_dst, const DeviceAddressBase& src,
                               uint64_t size) {
  if (size == 0) return absl::OkStatus();
  RETURN_IF_ERROR(CheckRange("memcpy source", src, size));
  VLOG(5) << "Stream " << handle_ << ": memcpy D2H " << size << " bytes from "
          << src.opaque();
  RETURN_IF_ERROR(executor_->Activate());
  return ToStatus(api_,
                  api_.memcpy_async(host_dst, src.opaque(), size,
                                    GpuMemcpyKind::kDeviceToHost, handle_),
                  "memcpy device to host");
}

absl::Status GpuStream::Memcpy(DeviceAddressBase* dst,
                               const DeviceAddressBase& src, uint64_t size) {
  if (size == 0) return absl::OkStatus();
  RETURN_IF_ERROR(CheckRange("memcpy destination", *dst, size));
  RETURN_IF_ERROR(CheckRange("memcpy source", src, size));
  VLOG(5) << "Stream " << handle_ << ": memcpy D2D " << size << " bytes "
          << src.opaque() << " -> " << dst->opaque();
  RETURN_IF_ERROR(executor_->Activate());
  return ToStatus(api_,
                  api_.memcpy_async(dst->opaque(), src.opaque(), size,
                                    GpuMemcpyKind::kDeviceToDevice, handle_),
                  "memcpy device to device");
}

absl::Status GpuStream::Memset8(DeviceAddressBase* dst, uint8_t value,
                                uint64_t size) {
  if (size == 0) return absl::OkStatus();
  RETURN_IF_ERROR(CheckRange("memset destination", *dst, size));
  VLOG(5) << "Stream " << handle_ << ": memset8 " << size << " bytes at "
          << dst->opaque();
  RETURN_IF_ERROR(executor_->Activate());
  return ToStatus(api_, api_.memset8_async(dst->opaque(), value, size, handle_),
                  "memset");
}

absl::Status GpuStream::Memset32(DeviceAddressBase* dst, uint32_t pattern,
                                 uint64_t size) {
  if (size % 4 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "memset32: size %d is not a multiple of 4 bytes", size));
  }
  if (size == 0) return absl::OkStatus();
  RETURN_IF_ERROR(CheckRange("memset destination", *dst, size));
  VLOG(5) << "Stream " << handle_ << ": memset32 " << size << " bytes at "
          << dst->opaque();
  RETURN_IF_ERROR(executor_->Activate());
  return ToStatus(
      api_, api_.memset32_async(dst->opaque(), pattern, size / 4, handle_),
      "memset32");
}

void GpuStream::RunHostCallback(void* data) {
  std::unique_ptr<HostCallback> callback(static_cast<HostCallback*>(data));
  absl::Status status = std::move(callback->fn)();
  if (!status.ok()) callback->stream->SetCallbackError(std::move(status));
}

void GpuStream::SetCallbackError(absl::Status status) {
  absl::MutexLock lock(&mu_);
  VLOG(1) << "Stream " << handle_ << ": host callback failed: " << status;
  if (callback_status_.ok()) callback_status_ = std::move(status);
}

absl::Status GpuStream::DoHostCallbackWithStatus(
    absl::AnyInvocable<absl::Status() &&> callback) {
  RETURN_IF_ERROR(CheckNotCapturing("a host callback"));
  RETURN_IF_ERROR(executor_->Activate());
  auto data =
      std::make_unique<HostCallback>(HostCallback{this, std::move(callback)});
  VLOG(5) << "Stream " << handle_ << ": host callback";
  RETURN_IF_ERROR(ToStatus(
      api_, api_.launch_host_function(handle_, &RunHostCallback, data.get()),
      "launch host function"));
  data.release();  // Now owned by RunHostCallback.
  return absl::OkStatus();
}

absl::Status GpuStream::RecordEvent(Event* event) {
  auto* gpu_event = dynamic_cast<GpuEvent*>(event);
  if (gpu_event == nullptr || gpu_event->executor() != executor_) {
    return absl::InvalidArgumentError(
        "RecordEvent: the event belongs to another executor or platform");
  }
  RETURN_IF_ERROR(executor_->Activate());
  return ToStatus(api_, api_.event_record(gpu_event->handle(), handle_),
                  "event record");
}

absl::Status GpuStream::WaitFor(Event* event) {
  auto* gpu_event = dynamic_cast<GpuEvent*>(event);
  if (gpu_event == nullptr) {
    return absl::InvalidArgumentError(
        "WaitFor: the event belongs to another platform");
  }
  RETURN_IF_ERROR(executor_->Activate());
  return ToStatus(api_, api_.stream_wait_event(handle_, gpu_event->handle()),
                  "stream wait event");
}

absl::Status GpuStream::WaitFor(Stream* other) {
  auto* gpu_other = dynamic_cast<GpuStream*>(other);
  if (gpu_other == nullptr) {
    return absl::InvalidArgumentError(
        "WaitFor: the stream belongs to another platform");
  }
  if (gpu_other == this) return absl::OkStatus();
  RETURN_IF_ERROR(executor_->Activate());
  RETURN_IF_ERROR(ToStatus(
      api_, api_.event_record(gpu_other->join_event_, gpu_other->handle_),
      "event record"));
  return ToStatus(api_, api_.stream_wait_event(handle_, gpu_other->join_event_),
                  "stream wait event");
}

absl::Status GpuStream::BlockHostUntilDone() {
  // Synchronizing a capturing stream would invalidate the capture.
  RETURN_IF_ERROR(CheckNotCapturing("BlockHostUntilDone"));
  RETURN_IF_ERROR(executor_->Activate());
  // Not under mu_: host callbacks take it, and waiting for them while
  // holding it would deadlock.
  absl::Status status =
      ToStatus(api_, api_.stream_synchronize(handle_), "stream synchronize");
  absl::MutexLock lock(&mu_);
  absl::Status callback_status = std::move(callback_status_);
  callback_status_ = absl::OkStatus();
  return status.ok() ? callback_status : status;
}

absl::Status GpuStream::Launch(const LaunchDimensions& dims,
                               const Kernel& kernel, const KernelArgs& args) {
  ASSIGN_OR_RETURN(const GpuKernel* gpu_kernel,
                   CheckLaunch("Launch", dims, kernel, args));
  std::vector<void*> params = args.ParamPointers();
  VLOG(5) << "Stream " << handle_ << ": launch " << kernel.name() << " "
          << dims.ToString() << " with " << args.size() << " arguments";
  RETURN_IF_ERROR(executor_->Activate());
  GpuError error = api_.launch_kernel(
      gpu_kernel->function(), dims.blocks.x, dims.blocks.y, dims.blocks.z,
      dims.threads_per_block.x, dims.threads_per_block.y,
      dims.threads_per_block.z, dims.shared_memory_bytes, handle_,
      params.empty() ? nullptr : params.data());
  return ToStatus(api_, error,
                  absl::StrCat("launch of kernel '", kernel.name(), "' with ",
                               dims.ToString()));
}

absl::Status GpuStream::BeginCapture() {
  absl::MutexLock lock(&mu_);
  if (capturing_) {
    return absl::FailedPreconditionError("BeginCapture: already capturing");
  }
  RETURN_IF_ERROR(executor_->Activate());
  // Registered before capture starts, so no allocation can slip in between.
  capture_thread_ = executor_->capture_tracker().Begin();
  absl::Status status = ToStatus(api_, api_.stream_begin_capture(handle_),
                                 "stream begin capture");
  if (!status.ok()) {
    executor_->capture_tracker().End(capture_thread_);
    return status;
  }
  capturing_ = true;
  VLOG(3) << "Stream " << handle_ << ": capture begins";
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CapturedGraph>> GpuStream::EndCapture() {
  absl::MutexLock lock(&mu_);
  if (!capturing_) {
    return absl::FailedPreconditionError("EndCapture: not capturing");
  }
  RETURN_IF_ERROR(executor_->Activate());
  GpuGraphHandle graph = nullptr;
  GpuError error = api_.stream_end_capture(handle_, &graph);
  // Whatever the outcome, the stream has left capture mode.
  capturing_ = false;
  executor_->capture_tracker().End(capture_thread_);
  if (error != kGpuSuccess) {
    if (graph != nullptr) api_.graph_destroy(graph);
    return ToStatus(api_, error, "stream end capture");
  }
  if (graph == nullptr) {
    return absl::InternalError(
        "EndCapture: the capture was invalidated by an operation not "
        "permitted during stream capture");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<GpuCapturedGraph> captured,
                   GpuCapturedGraph::Create(api_, graph));
  VLOG(3) << "Stream " << handle_ << ": captured " << captured->num_nodes()
          << " nodes";
  return std::unique_ptr<CapturedGraph>(std::move(captured));
}

bool GpuStream::IsCapturing() const {
  absl::MutexLock lock(&mu_);
  return capturing_;
}

absl::Status GpuStream::CheckNotCapturing(const char* operation) const {
  if (IsCapturing()) {
    return absl::FailedPreconditionError(
        absl::StrCat(operation, " is not permitted while the stream captures"));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor::gpu
