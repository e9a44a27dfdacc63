#ifndef STREAM_EXECUTOR_HOST_HOST_KERNEL_H_
#define STREAM_EXECUTOR_HOST_HOST_KERNEL_H_

#include "stream_executor/kernel.h"

namespace stream_executor::host {

// A kernel of the host platform: the spec's closure.
class HostKernel : public Kernel {
 public:
  HostKernel(const KernelSpec& spec)
      : Kernel(spec.name, spec.arity), fn_(spec.host_fn) {}
  const HostKernelFn& fn() const { return fn_; }

 private:
  HostKernelFn fn_;
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_KERNEL_H_
