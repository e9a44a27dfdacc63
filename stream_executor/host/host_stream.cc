#include "stream_executor/host/host_stream.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/host/host_event.h"
#include "stream_executor/host/host_executor.h"

namespace stream_executor::host {
HostStream::HostStream(HostExecutor* executor)
    : Stream(executor), executor_(executor) {
  worker_ = std::thread([this] { WorkLoop(); });
}

HostStream::~HostStream() {
  {
    absl::MutexLock lock(&mu_);
    if (capturing_) executor_->capture_tracker().End(capture_thread_);
    shutdown_ = true;
  }
  worker_.join();
  executor_->UnregisterStream(this);
  absl::MutexLock lock(&mu_);
  if (!first_error_.ok()) {
    LOG(ERROR) << "host stream destroyed with an unreported error: "
               << first_error_;
  }
}

void HostStream::WorkLoop() {
  while (true) {
    HostOp op;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !queue_.empty() || shutdown_;
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // Shut down with nothing left to run.
      op = std::move(queue_.front());
      queue_.pop_front();
    }
    absl::Status status = op();
    absl::MutexLock lock(&mu_);
    if (!status.ok() && first_error_.ok()) first_error_ = status;
    ++completed_;
  }
}

absl::Status HostStream::Enqueue(HostOp op) {
  absl::MutexLock lock(&mu_);
  if (capturing_) {
    captured_.push_back(std::move(op));
    return absl::OkStatus();
  }
  queue_.push_back(std::move(op));
  ++enqueued_;
  return absl::OkStatus();
}

absl::Status HostStream::Memcpy(DeviceAddressBase* dst, const void* host_src,
                                uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op, MakeCopyOp(dst->opaque(), dst->size(), host_src,
                                         size, size));
  return Enqueue(std::move(op));
}

absl::Status HostStream::Memcpy(void* host_dst, const DeviceAddressBase& src,
                                uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op,
                   MakeCopyOp(host_dst, size, src.opaque(), src.size(), size));
  return Enqueue(std::move(op));
}

absl::Status HostStream::Memcpy(DeviceAddressBase* dst,
                                const DeviceAddressBase& src, uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op, MakeCopyOp(dst->opaque(), dst->size(),
                                         src.opaque(), src.size(), size));
  return Enqueue(std::move(op));
}

absl::Status HostStream::Memset8(DeviceAddressBase* dst, uint8_t value,
                                 uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op, MakeMemset8Op(*dst, value, size));
  return Enqueue(std::move(op));
}

absl::Status HostStream::Memset32(DeviceAddressBase* dst, uint32_t pattern,
                                  uint64_t size) {
  ASSIGN_OR_RETURN(HostOp op, MakeMemset32Op(*dst, pattern, size));
  return Enqueue(std::move(op));
}

absl::Status HostStream::DoHostCallbackWithStatus(
    absl::AnyInvocable<absl::Status() &&> callback) {
  // HostOp must be copyable (captured work is replayed), so the move-only
  // callback lives behind a shared pointer; it runs at most once.
  auto shared = std::make_shared<absl::AnyInvocable<absl::Status() &&>>(
      std::move(callback));
  return Enqueue([shared]() -> absl::Status {
    if (!*shared) {
      return absl::FailedPreconditionError(
          "a one-shot host callback was replayed");
    }
    absl::AnyInvocable<absl::Status() &&> cb = std::move(*shared);
    *shared = nullptr;
    return std::move(cb)();
  });
}

absl::Status HostStream::RecordEvent(Event* event) {
  RETURN_IF_ERROR(CheckNotCapturing("RecordEvent"));
  std::shared_ptr<HostEvent::State> state =
      static_cast<HostEvent*>(event)->state();
  int64_t record = state->NextRecord();
  return Enqueue([state, record] {
    state->MarkComplete(record);
    return absl::OkStatus();
  });
}

absl::Status HostStream::WaitFor(Event* event) {
  RETURN_IF_ERROR(CheckNotCapturing("WaitFor"));
  std::shared_ptr<HostEvent::State> state =
      static_cast<HostEvent*>(event)->state();
  int64_t record = state->latest_record();
  if (record == 0) return absl::OkStatus();  // Never recorded: no wait, as on CUDA.
  return Enqueue([state, record] {
    state->WaitForRecord(record);
    return absl::OkStatus();
  });
}

absl::Status HostStream::WaitFor(Stream* other) {
  HostEvent event;
  RETURN_IF_ERROR(other->RecordEvent(&event));
  return WaitFor(&event);
}

absl::Status HostStream::BlockHostUntilDone() {
  RETURN_IF_ERROR(CheckNotCapturing("BlockHostUntilDone"));
  absl::MutexLock lock(&mu_);
  int64_t target = enqueued_;
  auto done = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return completed_ >= target;
  };
  mu_.Await(absl::Condition(&done));
  return std::exchange(first_error_, absl::OkStatus());
}

absl::Status HostStream::Launch(const LaunchDimensions& dims,
                                const Kernel& kernel, const KernelArgs& args) {
  VLOG(5) << "host launch " << kernel.name() << " " << dims.ToString();
  ASSIGN_OR_RETURN(HostOp op, MakeLaunchOp(dims, kernel, args));
  return Enqueue(std::move(op));
}

absl::Status HostStream::BeginCapture() {
  absl::MutexLock lock(&mu_);
  if (capturing_) {
    return absl::FailedPreconditionError("stream is already capturing");
  }
  capturing_ = true;
  captured_.clear();
  capture_thread_ = executor_->capture_tracker().Begin();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CapturedGraph>> HostStream::EndCapture() {
  absl::MutexLock lock(&mu_);
  if (!capturing_) {
    return absl::FailedPreconditionError("EndCapture on a stream not capturing");
  }
  capturing_ = false;
  executor_->capture_tracker().End(capture_thread_);
  return std::make_unique<HostCapturedGraph>(std::exchange(captured_, {}));
}

bool HostStream::IsCapturing() const {
  absl::MutexLock lock(&mu_);
  return capturing_;
}

absl::Status HostStream::CheckNotCapturing(const char* what) const {
  if (IsCapturing()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s is not allowed on a host stream while it is capturing", what));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor::host
