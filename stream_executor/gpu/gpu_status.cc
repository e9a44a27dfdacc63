#include "stream_executor/gpu/gpu_status.h"

#include "absl/strings/str_cat.h"

namespace stream_executor::gpu {

absl::Status ToStatusWithCode(const GpuApi& api, GpuError error,
                              absl::StatusCode code,
                              absl::string_view operation) {
  if (error == kGpuSuccess) return absl::OkStatus();
  const char* name = api.error_name(error);
  const char* description = api.error_string(error);
  return absl::Status(
      code, absl::StrCat(api.display_name, " ", operation, " failed: ",
                         name != nullptr ? name : "unknown error", " (", error,
                         "): ", description != nullptr ? description : ""));
}

absl::Status ToStatus(const GpuApi& api, GpuError error,
                      absl::string_view operation) {
  if (error == kGpuSuccess) return absl::OkStatus();
  absl::StatusCode code = error == api.out_of_memory_error
                              ? absl::StatusCode::kResourceExhausted
                              : absl::StatusCode::kInternal;
  return ToStatusWithCode(api, error, code, operation);
}

}  // namespace stream_executor::gpu
