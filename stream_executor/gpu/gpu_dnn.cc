#include "stream_executor/gpu/gpu_dnn.h"

#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_status.h"
#include "stream_executor/gpu/gpu_stream.h"

namespace stream_executor::gpu {

absl::Status GpuDnn::DnnStatus(int error, absl::string_view operation) const {
  if (error == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(dnn_api_.display_name, " ", operation,
                                          " failed: ",
                                          dnn_api_.error_string(error), " (",
                                          error, ")"));
}

absl::StatusOr<std::unique_ptr<GpuDnn>> GpuDnn::Create(
    GpuExecutor* executor, const GpuDnnApi& dnn_api) {
  RETURN_IF_ERROR(executor->Activate());
  GpuDnnHandle handle = nullptr;
  int error = dnn_api.create(&handle);
  if (error != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(dnn_api.display_name, " handle creation failed: ",
                     dnn_api.error_string(error), " (", error, ")"));
  }
  VLOG(1) << "Created " << dnn_api.display_name << " handle on device "
          << executor->device_ordinal();
  return std::unique_ptr<GpuDnn>(new GpuDnn(executor, dnn_api, handle));
}

GpuDnn::~GpuDnn() {
  absl::Status status = executor_->Activate();
  if (!status.ok()) {
    LOG(ERROR) << "Destroying " << dnn_api_.display_name << ": " << status;
    return;
  }
  absl::MutexLock lock(&mu_);
  for (auto& [shape, plan] : plans_) DestroyPlan(plan);
  plans_.clear();
  status = DnnStatus(dnn_api_.destroy(handle_), "destroy");
  if (!status.ok()) LOG(ERROR) << status;
}

void GpuDnn::DestroyPlan(const Plan& plan) {
  absl::Status status =
      DnnStatus(dnn_api_.plan_destroy(plan.plan), "plan destroy");
  if (!status.ok()) LOG(ERROR) << status;
  if (plan.workspace == nullptr) return;
  // Freeing device memory waits for the work that may still use it.
  const GpuApi& api = executor_->api();
  status = ToStatus(api, api.mem_free(plan.workspace), "DNN workspace free");
  if (!status.ok()) LOG(ERROR) << status;
}

absl::StatusOr<GpuStream*> GpuDnn::CheckCall(
    Stream* stream, const dnn::ConvolutionCall& call) const {
  RETURN_IF_ERROR(call.Validate());
  auto* gpu_stream = dynamic_cast<GpuStream*>(stream);
  if (gpu_stream == nullptr || gpu_stream->parent() != executor_) {
    return absl::InvalidArgumentError(
        "convolution: the stream belongs to another executor or platform");
  }
  return gpu_stream;
}

absl::StatusOr<GpuDnn::Plan> GpuDnn::MakePlan(GpuStream* stream,
                                              const dnn::ConvolutionCall& call) {
  Plan plan;
  RETURN_IF_ERROR(DnnStatus(dnn_api_.plan_create(call, &plan.plan),
                            absl::StrCat("plan for ", call.ShapeString())));
  absl::Cleanup destroy = [&] { dnn_api_.plan_destroy(plan.plan); };
  RETURN_IF_ERROR(DnnStatus(
      dnn_api_.plan_choose(handle_, plan.plan, stream->handle(),
                           kMaxWorkspaceBytes, &plan.workspace_bytes),
      absl::StrCat("algorithm choice for ", call.ShapeString())));
  if (plan.workspace_bytes > 0) {
    const GpuApi& api = executor_->api();
    RETURN_IF_ERROR(ToStatus(api,
                             api.mem_alloc(&plan.workspace,
                                           plan.workspace_bytes),
                             "DNN workspace allocation"));
  }
  std::move(destroy).Cancel();
  VLOG(1) << dnn_api_.display_name << " plan for " << call.ShapeString()
          << " with " << plan.workspace_bytes << " bytes of workspace";
  return plan;
}

absl::Status GpuDnn::PrepareConvolution(Stream* stream,
                                        const dnn::ConvolutionCall& call) {
  ASSIGN_OR_RETURN(GpuStream * gpu_stream, CheckCall(stream, call));
  const std::string shape = call.ShapeString();
  absl::MutexLock lock(&mu_);
  if (plans_.contains(shape)) return absl::OkStatus();
  // Choosing times the algorithms and the workspace is allocated: neither
  // may happen inside a capture.
  absl::Status may_allocate = executor_->capture_tracker().CheckMayAllocate(
      kMaxWorkspaceBytes, executor_->device_ordinal());
  if (!may_allocate.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "convolution ", shape, " cannot be prepared while capturing: ",
        may_allocate.message()));
  }
  RETURN_IF_ERROR(executor_->Activate());
  ASSIGN_OR_RETURN(Plan plan, MakePlan(gpu_stream, call));
  plans_.emplace(shape, plan);
  return absl::OkStatus();
}

absl::Status GpuDnn::Convolution(Stream* stream,
                                 const dnn::ConvolutionCall& call) {
  ASSIGN_OR_RETURN(GpuStream * gpu_stream, CheckCall(stream, call));
  const std::string shape = call.ShapeString();
  VLOG(5) << dnn_api_.display_name << " on stream " << gpu_stream->handle()
          << ": " << call.ToString();
  RETURN_IF_ERROR(executor_->Activate());
  absl::MutexLock lock(&mu_);
  auto it = plans_.find(shape);
  if (it == plans_.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "convolution ", shape, " was not prepared (PrepareConvolution)"));
  }
  const Plan& plan = it->second;
  int error = dnn_api_.plan_run(handle_, plan.plan, gpu_stream->handle(), call,
                                plan.workspace, plan.workspace_bytes);
  if (error != 0) {
    return absl::InternalError(absl::StrCat(
        dnn_api_.display_name, " convolution ", call.ToString(),
        " failed: ", dnn_api_.error_string(error), " (", error, ")"));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor::gpu
