// The emitted source through the GPU runtime compilers, which run on the host
// without a device: NVRTC for an H100 (--config=cuda) and hiprtc for AMD
// Instinct processors (--config=rocm), with the options the platforms use.
// Every operand layout, both types, both beta forms and every tiling.

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "stream_executor/device_description.h"
#include "stream_executor/gpu/gpu_kernel_cache.h"
#include "tests/gemm/gemm_test_util.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"
#if defined(XLA_LITE_GEMM_TEST_NVRTC)
#include "stream_executor/cuda/cuda_nvrtc.h"
#endif
#if defined(XLA_LITE_GEMM_TEST_HIPRTC)
#include "stream_executor/rocm/rocm_hiprtc.h"
#endif

namespace xla_lite::testing {
namespace {

using se::blas::DataType;

[[maybe_unused]] se::DeviceDescription Device(const std::string& arch,
                                              int major) {
  se::DeviceDescription device;
  device.name = arch + " (simulated)";
  device.arch = arch;
  device.compute_major = major;
  return device;
}

// Every kernel variant the emitter can produce, each once.
std::vector<se::KernelSpec> AllVariants() {
  std::vector<se::KernelSpec> specs;
  for (DataType type : {DataType::kF32, DataType::kBF16}) {
    for (int layout = 0; layout < 8; ++layout) {
      GemmProblem problem{2,
                          37,
                          45,
                          21,
                          (layout & 1) != 0,
                          (layout & 2) != 0,
                          1.5f,
                          (layout & 4) != 0 ? 0.5f : 0.0f,
                          type};
      specs.push_back(gpu::EmitGemmKernel(*problem.Config(), "gemm"));
    }
  }
  for (int rows : {1, 2, 4}) {
    for (int cols : {1, 2, 4}) {
      gpu::GemmTiling tiling;
      tiling.rows_per_thread = rows;
      tiling.cols_per_thread = cols;
      specs.push_back(gpu::EmitGemmKernel(
          *GemmProblem{1, 100, 100, 100}.Config(), "dot.1", tiling));
    }
  }
  return specs;
}

[[maybe_unused]] void ExpectCompiles(se::gpu::GpuCompilerLoader loader,
                                     const se::DeviceDescription& device,
                                     const std::string& platform) {
  absl::Status loaded = loader().status();
  if (!loaded.ok()) {
    ASSERT_FALSE(PlatformRequired(platform)) << loaded;
    GTEST_SKIP() << "no runtime compiler: " << loaded;
  }
  se::gpu::GpuKernelCache cache(loader, "");
  for (const se::KernelSpec& spec : AllVariants()) {
    auto image = cache.GetOrCompile(spec.name, spec.cuda_source, device);
    EXPECT_TRUE(image.ok()) << image.status() << "\n" << spec.cuda_source;
    if (image.ok()) {
      EXPECT_FALSE(image->bytes->empty());
    }
  }
}

TEST(GemmKernelCompileTest, NvrtcCompilesEveryVariantForH100) {
#if defined(XLA_LITE_GEMM_TEST_NVRTC)
  ExpectCompiles(&se::cuda::LoadNvrtcApi, Device("sm_90", 9), "cuda");
#else
  GTEST_SKIP() << "built without --config=cuda";
#endif
}

TEST(GemmKernelCompileTest, HiprtcCompilesEveryVariant) {
#if defined(XLA_LITE_GEMM_TEST_HIPRTC)
  // gfx90a (MI200) and gfx908 (MI100); hiprtc 5.2 crashes on processors its
  // comgr does not know (docs/rocm.md), so no newer ones.
  for (const char* arch : {"gfx90a", "gfx908"}) {
    SCOPED_TRACE(arch);
    ExpectCompiles(&se::rocm::LoadHiprtcApi, Device(arch, 9), "rocm");
  }
#else
  GTEST_SKIP() << "built without --config=rocm";
#endif
}

}  // namespace
}  // namespace xla_lite::testing
