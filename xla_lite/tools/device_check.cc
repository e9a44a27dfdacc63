#include "xla_lite/tools/device_check.h"

#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "stream_executor/device_address_allocator.h"

namespace xla_lite {
namespace {

namespace se = ::stream_executor;

se::KernelSpec ScaleAddKernel() {
  se::KernelSpec spec;
  spec.name = "scale_add";
  spec.arity = 3;
  spec.cuda_source = R"(
extern "C" __global__ void scale_add(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 3.0f * x[i] + y[i];
})";
  spec.host_fn = [](const se::KernelArgs& args, const se::LaunchDimensions&) {
    const float* x = args.ptr<float>(0);
    float* y = args.ptr<float>(1);
    for (int i = 0, n = args[2].scalar<int>(); i < n; ++i) y[i] = 3.0f * x[i] + y[i];
    return absl::OkStatus();
  };
  return spec;
}

double MaxError(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    err = std::max(err, std::abs(got[i] - want[i]) / (1 + std::abs(want[i])));
  }
  return err;
}

}  // namespace

absl::StatusOr<DeviceCheckResult> RunDeviceCheck(se::StreamExecutor* executor) {
  const int n = 128;
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(n * n), b(n * n), out(n * n);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);

  se::StreamExecutorAllocator allocator(executor);
  int ordinal = executor->device_ordinal();
  ASSIGN_OR_RETURN(se::ScopedDeviceAddress da, allocator.Allocate(ordinal, n * n * 4));
  ASSIGN_OR_RETURN(se::ScopedDeviceAddress db, allocator.Allocate(ordinal, n * n * 4));
  ASSIGN_OR_RETURN(se::ScopedDeviceAddress dc, allocator.Allocate(ordinal, n * n * 4));
  ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream, executor->CreateStream());
  RETURN_IF_ERROR(stream->Memcpy(da.ptr(), a.data(), n * n * 4));
  RETURN_IF_ERROR(stream->Memcpy(db.ptr(), b.data(), n * n * 4));

  DeviceCheckResult result;
  result.gemm_size = n;
  ASSIGN_OR_RETURN(se::blas::BlasSupport * blas, executor->AsBlas());
  se::blas::GemmCall call;
  call.m = call.n = call.k = n;
  call.a = da.cref(), call.b = db.cref(), call.c = dc.cref();
  call.lda = call.ldb = call.ldc = n;
  RETURN_IF_ERROR(blas->Gemm(stream.get(), call));
  RETURN_IF_ERROR(stream->Memcpy(out.data(), dc.cref(), n * n * 4));
  RETURN_IF_ERROR(stream->BlockHostUntilDone());
  std::vector<double> want(n * n, 0);
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < n; ++i) want[j * n + i] += double{a[p * n + i]} * b[j * n + p];
  result.gemm_max_error = MaxError(out, want);

  ASSIGN_OR_RETURN(std::unique_ptr<se::Kernel> kernel,
                   executor->LoadKernel(ScaleAddKernel()));
  se::KernelArgs args;
  args.AddAddress(da.cref());
  args.AddAddress(db.cref());
  args.AddScalar(n * n);
  RETURN_IF_ERROR(stream->Launch(se::LaunchDimensionsFor(n * n), *kernel, args));
  RETURN_IF_ERROR(stream->Memcpy(out.data(), db.cref(), n * n * 4));
  RETURN_IF_ERROR(stream->BlockHostUntilDone());
  for (int i = 0; i < n * n; ++i) want[i] = 3.0 * a[i] + b[i];
  result.kernel_max_error = MaxError(out, want);

  if (result.gemm_max_error > 1e-4 || result.kernel_max_error > 1e-6) {
    return absl::InternalError(absl::StrFormat(
        "device check failed: gemm error %g, kernel error %g",
        result.gemm_max_error, result.kernel_max_error));
  }
  return result;
}

}  // namespace xla_lite
