#ifndef TESTS_STREAM_EXECUTOR_TEST_KERNELS_H_
#define TESTS_STREAM_EXECUTOR_TEST_KERNELS_H_

#include "stream_executor/kernel.h"

namespace xla_lite::testing {

// y[i] = a * x[i] + y[i] for i < n; parameters (float a, const float* x,
// float* y, int n). Both forms compute in f32 with no fused multiply-add
// (NVRTC is given --fmad=false), so results agree bit for bit.
inline stream_executor::KernelSpec AxpyKernel() {
  stream_executor::KernelSpec spec;
  spec.name = "axpy";
  spec.arity = 4;
  spec.cuda_source = R"(
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";
  spec.host_fn = [](const stream_executor::KernelArgs& args,
                    const stream_executor::LaunchDimensions&) {
    float a = args[0].scalar<float>();
    const float* x = args.ptr<float>(1);
    float* y = args.ptr<float>(2);
    for (int i = 0, n = args[3].scalar<int>(); i < n; ++i) y[i] = a * x[i] + y[i];
    return absl::OkStatus();
  };
  return spec;
}

}  // namespace xla_lite::testing

#endif  // TESTS_STREAM_EXECUTOR_TEST_KERNELS_H_
