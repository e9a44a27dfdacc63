#ifndef STREAM_EXECUTOR_KERNEL_H_
#define STREAM_EXECUTOR_KERNEL_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "stream_executor/device_address.h"
#include "stream_executor/launch_dim.h"

namespace stream_executor {

// One kernel argument: a device address or a small trivially copyable scalar.
// The value is stored inline so that `value_ptr()` can be handed to
// cuLaunchKernel / hipModuleLaunchKernel as a kernel parameter.
class KernelArg {
 public:
  static constexpr size_t kMaxScalarBytes = 16;

  explicit KernelArg(DeviceAddressBase address)
      : is_address_(true), size_(sizeof(void*)), address_(address) {
    void* ptr = address.opaque();
    std::memcpy(storage_, &ptr, sizeof(ptr));
  }
  template <typename T>
  static KernelArg Scalar(T value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kMaxScalarBytes);
    KernelArg arg;
    arg.size_ = sizeof(T);
    std::memcpy(arg.storage_, &value, sizeof(T));
    return arg;
  }

  bool is_address() const { return is_address_; }
  const DeviceAddressBase& address() const { return address_; }
  template <typename T>
  T scalar() const {
    T value;
    std::memcpy(&value, storage_, sizeof(T));
    return value;
  }
  const void* value_ptr() const { return storage_; }
  size_t size() const { return size_; }

 private:
  KernelArg() = default;
  bool is_address_ = false;
  size_t size_ = 0;
  DeviceAddressBase address_;
  alignas(16) unsigned char storage_[kMaxScalarBytes] = {};
};

// The arguments of one launch, in the kernel's parameter order.
class KernelArgs {
 public:
  KernelArgs() = default;
  explicit KernelArgs(absl::Span<const DeviceAddressBase> addresses) {
    for (const auto& a : addresses) AddAddress(a);
  }
  void AddAddress(DeviceAddressBase address) { args_.emplace_back(address); }
  template <typename T>
  void AddScalar(T value) {
    args_.push_back(KernelArg::Scalar(value));
  }

  size_t size() const { return args_.size(); }
  const KernelArg& operator[](size_t i) const { return args_[i]; }
  const std::vector<KernelArg>& args() const { return args_; }

  // Pointers to each argument's value, in the layout GPU launch APIs take.
  // Valid while this object is alive and unchanged.
  std::vector<void*> ParamPointers() const {
    std::vector<void*> ptrs;
    ptrs.reserve(args_.size());
    for (const auto& a : args_) ptrs.push_back(const_cast<void*>(a.value_ptr()));
    return ptrs;
  }

  // Typed access for host kernels.
  template <typename T>
  T* ptr(size_t i) const {
    return static_cast<T*>(args_[i].address().opaque());
  }

 private:
  std::vector<KernelArg> args_;
};

// What a host kernel receives: it runs on the stream's worker thread and
// covers the whole launch grid itself.
using HostKernelFn =
    std::function<absl::Status(const KernelArgs&, const LaunchDimensions&)>;

// Everything each platform needs to load one kernel. A platform uses the part
// it understands: GPU platforms compile `cuda_source` at run time (NVRTC or
// hiprtc, cached by source hash), the host platform calls `host_fn`.
struct KernelSpec {
  std::string name;         // Entry point (an extern "C" __global__ function).
  std::string cuda_source;  // Portable CUDA C; may be empty for host-only kernels.
  HostKernelFn host_fn;     // May be empty for GPU-only kernels.
  int arity = 0;            // Number of parameters, checked at launch.
  // The kernel waits for the grids it depends on (cudaGridDependencySynchronize)
  // before it touches memory, so a command buffer may launch it while they
  // still run (programmatic dependent launch) where the device has that.
  bool waits_for_producers = false;
};

// A kernel loaded on one StreamExecutor. Platforms subclass it with their
// handle (a CUfunction, a hipFunction_t, a host closure).
class Kernel {
 public:
  explicit Kernel(std::string name, int arity)
      : name_(std::move(name)), arity_(arity) {}
  virtual ~Kernel() = default;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const std::string& name() const { return name_; }
  int arity() const { return arity_; }
  // KernelSpec::waits_for_producers of the spec it was loaded from.
  bool waits_for_producers() const { return waits_for_producers_; }
  void set_waits_for_producers(bool waits) { waits_for_producers_ = waits; }

 private:
  std::string name_;
  int arity_;
  bool waits_for_producers_ = false;
};

// What a launch must satisfy on every platform (a stream launch, a kernel
// node): `args` match the kernel's arity where it declares one, and the grid
// is not empty. `what` ("Launch", "CreateLaunch") starts the error.
inline absl::Status CheckLaunchArgs(absl::string_view what,
                                    const LaunchDimensions& dims,
                                    const Kernel& kernel,
                                    const KernelArgs& args) {
  if (kernel.arity() > 0 &&
      args.size() != static_cast<size_t>(kernel.arity())) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: kernel '%s' takes %d arguments, %d given", what,
                        kernel.name(), kernel.arity(), args.size()));
  }
  if (dims.blocks.Product() == 0 || dims.threads_per_block.Product() == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: kernel '%s' has an empty grid: %s", what,
                        kernel.name(), dims.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_KERNEL_H_
