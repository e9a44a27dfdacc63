#include "tests/runtime/test_kernels.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace xla_lite::testing {

se::KernelSpec BiasReluScaleKernel(int64_t m, int64_t n) {
  se::KernelSpec spec;
  spec.name = "bias_relu_scale";
  spec.arity = 4;
  spec.cuda_source = absl::StrFormat(R"(
extern "C" __global__ void bias_relu_scale(const float* y, const float* bias,
                                           const float* scale, float* z) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= %dLL) return;
  int j = (int)(i %% %dLL);
  float v = y[i] + bias[j];
  z[i] = (v > 0.0f ? v : 0.0f) * scale[j];
})",
                                     m * n, n);
  spec.host_fn = [m, n](const se::KernelArgs& args,
                        const se::LaunchDimensions&) {
    const float* y = args.ptr<float>(0);
    const float* bias = args.ptr<float>(1);
    const float* scale = args.ptr<float>(2);
    float* z = args.ptr<float>(3);
    for (int64_t i = 0; i < m * n; ++i) {
      int64_t j = i % n;
      z[i] = std::max(y[i] + bias[j], 0.0f) * scale[j];
    }
    return absl::OkStatus();
  };
  return spec;
}

se::KernelSpec ColumnSumKernel(int64_t m, int64_t n) {
  se::KernelSpec spec;
  spec.name = "column_sum";
  spec.arity = 2;
  spec.cuda_source = absl::StrFormat(R"(
extern "C" __global__ void column_sum(const float* z, float* sums) {
  long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= %dLL) return;
  float acc = 0.0f;
  for (long long i = 0; i < %dLL; ++i) acc += z[i * %dLL + j];
  sums[j] += acc;
})",
                                     n, m, n);
  spec.host_fn = [m, n](const se::KernelArgs& args,
                        const se::LaunchDimensions&) {
    const float* z = args.ptr<float>(0);
    float* sums = args.ptr<float>(1);
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t i = 0; i < m; ++i) acc += z[i * n + j];
      sums[j] += acc;
    }
    return absl::OkStatus();
  };
  return spec;
}

se::KernelSpec AxpyKernel(int64_t n, float a) {
  se::KernelSpec spec;
  spec.name = "axpy";
  spec.arity = 3;
  spec.cuda_source = absl::StrFormat(R"(
extern "C" __global__ void axpy(const float* x, const float* y, float* out) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < %dLL) out[i] = (float)(%.9g) * x[i] + y[i];
})",
                                     n, a);
  spec.host_fn = [n, a](const se::KernelArgs& args,
                        const se::LaunchDimensions&) {
    const float* x = args.ptr<float>(0);
    const float* y = args.ptr<float>(1);
    float* out = args.ptr<float>(2);
    for (int64_t i = 0; i < n; ++i) out[i] = a * x[i] + y[i];
    return absl::OkStatus();
  };
  return spec;
}

se::KernelSpec IncrementKernel() {
  se::KernelSpec spec;
  spec.name = "increment";
  spec.arity = 1;
  spec.cuda_source = R"(
extern "C" __global__ void increment(int* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) counter[0] += 1;
})";
  spec.host_fn = [](const se::KernelArgs& args, const se::LaunchDimensions&) {
    args.ptr<int32_t>(0)[0] += 1;
    return absl::OkStatus();
  };
  return spec;
}

se::KernelSpec LessThanKernel() {
  se::KernelSpec spec;
  spec.name = "less_than";
  spec.arity = 3;
  spec.cuda_source = R"(
extern "C" __global__ void less_than(const int* i, const int* n,
                                     unsigned char* pred) {
  if (blockIdx.x == 0 && threadIdx.x == 0) pred[0] = i[0] < n[0] ? 1 : 0;
})";
  spec.host_fn = [](const se::KernelArgs& args, const se::LaunchDimensions&) {
    args.ptr<uint8_t>(2)[0] =
        args.ptr<int32_t>(0)[0] < args.ptr<int32_t>(1)[0] ? 1 : 0;
    return absl::OkStatus();
  };
  return spec;
}

}  // namespace xla_lite::testing
