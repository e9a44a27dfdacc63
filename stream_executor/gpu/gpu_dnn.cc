#include "stream_executor/gpu/gpu_dnn.h"

#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_stream.h"

namespace stream_executor::gpu {

absl::Status GpuDnn::DnnStatus(int error, absl::string_view operation) const {
  if (error == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      dnn_api_.display_name, " ", operation,
      " failed: ", dnn_api_.error_string(error), " (", error, ")"));
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

absl::StatusOr<GpuDnn::Plan> GpuDnn::MakePlan(
    GpuStream* stream, const dnn::ConvolutionCall& call) {
  Plan plan;
  const int created = dnn_api_.plan_create(call, &plan.plan);
  // A plan whose creation failed part way holds what it made so far.
  absl::Cleanup destroy = [&] {
    if (plan.plan != nullptr) dnn_api_.plan_destroy(plan.plan);
  };
  RETURN_IF_ERROR(
      DnnStatus(created, absl::StrCat("plan for ", call.ShapeString())));
  RETURN_IF_ERROR(
      DnnStatus(dnn_api_.plan_choose(handle_, plan.plan, stream->handle(),
                                     kMaxWorkspaceBytes, &plan.workspace_bytes),
                absl::StrCat("algorithm choice for ", call.ShapeString())));
  std::move(destroy).Cancel();
  VLOG(1) << dnn_api_.display_name << " plan for " << call.ShapeString()
          << " with " << plan.workspace_bytes << " bytes of workspace";
  return plan;
}

absl::StatusOr<uint64_t> GpuDnn::PrepareConvolution(
    Stream* stream, const dnn::ConvolutionCall& call) {
  ASSIGN_OR_RETURN(GpuStream * gpu_stream, CheckCall(stream, call));
  const std::string shape = call.ShapeString();
  absl::MutexLock lock(&mu_);
  auto it = plans_.find(shape);
  if (it != plans_.end()) return it->second.workspace_bytes;
  // Choosing times the algorithms, on memory the library allocates: not
  // inside a capture.
  absl::Status may_allocate = executor_->capture_tracker().CheckMayAllocate(
      kMaxWorkspaceBytes, executor_->device_ordinal());
  if (!may_allocate.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "convolution ", shape,
        " cannot be prepared while capturing: ", may_allocate.message()));
  }
  RETURN_IF_ERROR(executor_->Activate());
  ASSIGN_OR_RETURN(Plan plan, MakePlan(gpu_stream, call));
  plans_.emplace(shape, plan);
  return plan.workspace_bytes;
}

absl::Status GpuDnn::Convolution(Stream* stream,
                                 const dnn::ConvolutionCall& call,
                                 DeviceAddressBase workspace) {
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
  if (workspace.size() < plan.workspace_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "convolution ", shape, ": the workspace holds ", workspace.size(),
        " bytes, its algorithm needs ", plan.workspace_bytes));
  }
  int error = dnn_api_.plan_run(handle_, plan.plan, gpu_stream->handle(), call,
                                workspace.opaque(), workspace.size());
  if (error != 0) {
    return absl::InternalError(absl::StrCat(
        dnn_api_.display_name, " convolution ", call.ToString(),
        " failed: ", dnn_api_.error_string(error), " (", error, ")"));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor::gpu
