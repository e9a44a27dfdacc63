#ifndef XLA_LITE_TOOLS_DEVICE_CHECK_H_
#define XLA_LITE_TOOLS_DEVICE_CHECK_H_

#include "absl/status/statusor.h"
#include "stream_executor/stream_executor.h"

namespace xla_lite {

struct DeviceCheckResult {
  double kernel_max_error = 0;
  int gemm_size = 0;
  double gemm_max_error = 0;
};

// Runs a compiled kernel and a BLAS gemm on `executor` and compares both with
// host references: proof that the platform computes, not only that it loads.
absl::StatusOr<DeviceCheckResult> RunDeviceCheck(
    stream_executor::StreamExecutor* executor);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_DEVICE_CHECK_H_
