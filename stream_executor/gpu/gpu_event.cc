#include "stream_executor/gpu/gpu_event.h"

#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_status.h"

namespace stream_executor::gpu {

absl::StatusOr<std::unique_ptr<GpuEvent>> GpuEvent::Create(
    GpuExecutor* executor) {
  const GpuApi& api = executor->api();
  RETURN_IF_ERROR(executor->Activate());
  GpuEventHandle handle = nullptr;
  RETURN_IF_ERROR(ToStatus(api, api.event_create(&handle), "event create"));
  return std::unique_ptr<GpuEvent>(new GpuEvent(executor, handle));
}

GpuEvent::~GpuEvent() {
  const GpuApi& api = executor_->api();
  absl::Status status = executor_->Activate();
  if (status.ok()) {
    status = ToStatus(api, api.event_destroy(handle_), "event destroy");
  }
  if (!status.ok()) LOG(ERROR) << status;
}

absl::Status GpuEvent::Synchronize() {
  const GpuApi& api = executor_->api();
  RETURN_IF_ERROR(executor_->Activate());
  return ToStatus(api, api.event_synchronize(handle_), "event synchronize");
}

bool GpuEvent::IsComplete() {
  const GpuApi& api = executor_->api();
  GpuError error = api.event_query(handle_);
  if (error == kGpuSuccess) return true;
  if (error == api.not_ready_error) return false;
  LOG(ERROR) << ToStatus(api, error, "event query");
  return true;
}

}  // namespace stream_executor::gpu
