#ifndef STREAM_EXECUTOR_HOST_HOST_OPS_H_
#define STREAM_EXECUTOR_HOST_HOST_OPS_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "stream_executor/device_address.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"

namespace stream_executor::host {

// One unit of host device work. Copyable so recorded work can be replayed.
using HostOp = std::function<absl::Status()>;

// The operations a host stream runs and a host command buffer records,
// built in one place so both check their arguments the same way.
absl::StatusOr<HostOp> MakeCopyOp(void* dst, uint64_t dst_capacity,
                                  const void* src, uint64_t src_capacity,
                                  uint64_t size);
absl::StatusOr<HostOp> MakeMemset8Op(DeviceAddressBase dst, uint8_t value,
                                     uint64_t size);
absl::StatusOr<HostOp> MakeMemset32Op(DeviceAddressBase dst, uint32_t pattern,
                                      uint64_t size);
absl::StatusOr<HostOp> MakeLaunchOp(const LaunchDimensions& dims,
                                    const Kernel& kernel,
                                    const KernelArgs& args);

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_OPS_H_
