#include "stream_executor/host/host_ops.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "glog/logging.h"
#include "stream_executor/host/host_kernel.h"

namespace stream_executor::host {
namespace {

absl::Status CheckFits(const char* what, uint64_t size, uint64_t capacity) {
  if (size > capacity) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s of %d bytes does not fit a buffer of %d bytes", what, size, capacity));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HostOp> MakeCopyOp(void* dst, uint64_t dst_capacity,
                                  const void* src, uint64_t src_capacity,
                                  uint64_t size) {
  absl::Status status = CheckFits("copy (source)", size, src_capacity);
  if (status.ok()) status = CheckFits("copy (destination)", size, dst_capacity);
  if (!status.ok()) return status;
  return HostOp([dst, src, size] {
    std::memmove(dst, src, size);
    return absl::OkStatus();
  });
}

absl::StatusOr<HostOp> MakeMemset8Op(DeviceAddressBase dst, uint8_t value,
                                     uint64_t size) {
  absl::Status status = CheckFits("memset", size, dst.size());
  if (!status.ok()) return status;
  void* d = dst.opaque();
  return HostOp([d, value, size] {
    std::memset(d, value, size);
    return absl::OkStatus();
  });
}

absl::StatusOr<HostOp> MakeMemset32Op(DeviceAddressBase dst, uint32_t pattern,
                                      uint64_t size) {
  if (size % 4 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "32-bit memset of %d bytes: size must be a multiple of 4", size));
  }
  absl::Status status = CheckFits("memset", size, dst.size());
  if (!status.ok()) return status;
  uint32_t* d = static_cast<uint32_t*>(dst.opaque());
  return HostOp([d, pattern, size] {
    for (uint64_t i = 0; i < size / 4; ++i) d[i] = pattern;
    return absl::OkStatus();
  });
}

absl::StatusOr<HostOp> MakeLaunchOp(const LaunchDimensions& dims,
                                    const Kernel& kernel,
                                    const KernelArgs& args) {
  const auto* host_kernel = dynamic_cast<const HostKernel*>(&kernel);
  if (host_kernel == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "kernel %s was not loaded by a host executor", kernel.name()));
  }
  if (kernel.arity() > 0 && args.size() != kernel.arity()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "kernel %s takes %d arguments, got %d", kernel.name(), kernel.arity(),
        args.size()));
  }
  HostKernelFn fn = host_kernel->fn();
  return HostOp([fn, args, dims] { return fn(args, dims); });
}

}  // namespace stream_executor::host
