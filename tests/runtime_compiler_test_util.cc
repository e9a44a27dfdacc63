#include "tests/runtime_compiler_test_util.h"

#include <string>

#include "gtest/gtest.h"
#include "stream_executor/device_description.h"
#include "stream_executor/gpu/gpu_kernel_cache.h"
#include "tests/platform_test_util.h"
#if defined(XLA_LITE_TEST_NVRTC)
#include "stream_executor/cuda/cuda_nvrtc.h"
#endif
#if defined(XLA_LITE_TEST_HIPRTC)
#include "stream_executor/rocm/rocm_hiprtc.h"
#endif

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;

[[maybe_unused]] se::DeviceDescription SimulatedDevice(const std::string& arch,
                                                       int major) {
  se::DeviceDescription device;
  device.name = arch + " (simulated)";
  device.arch = arch;
  device.compute_major = major;
  return device;
}

[[maybe_unused]] void ExpectCompiles(
    se::gpu::GpuCompilerLoader loader, const se::DeviceDescription& device,
    const std::string& platform, const std::vector<se::KernelSpec>& specs) {
  absl::Status loaded = loader().status();
  if (!loaded.ok()) {
    ASSERT_FALSE(PlatformRequired(platform)) << loaded;
    GTEST_SKIP() << "no runtime compiler: " << loaded;
  }
  se::gpu::GpuKernelCache cache(loader, "");
  for (const se::KernelSpec& spec : specs) {
    auto image = cache.GetOrCompile(spec.name, spec.cuda_source, device);
    EXPECT_TRUE(image.ok()) << image.status() << "\n" << spec.cuda_source;
    if (image.ok()) {
      EXPECT_FALSE(image->bytes->empty()) << spec.name;
    }
  }
}

}  // namespace

void ExpectNvrtcCompiles(const std::vector<se::KernelSpec>& specs) {
#if defined(XLA_LITE_TEST_NVRTC)
  ExpectCompiles(&se::cuda::LoadNvrtcApi, SimulatedDevice("sm_90", 9), "cuda",
                 specs);
#else
  GTEST_SKIP() << "built without --config=cuda";
#endif
}

void ExpectHiprtcCompiles(const std::vector<se::KernelSpec>& specs) {
#if defined(XLA_LITE_TEST_HIPRTC)
  for (const char* arch : {"gfx90a", "gfx908"}) {
    SCOPED_TRACE(arch);
    ExpectCompiles(&se::rocm::LoadHiprtcApi, SimulatedDevice(arch, 9), "rocm",
                   specs);
  }
#else
  GTEST_SKIP() << "built without --config=rocm";
#endif
}

}  // namespace xla_lite::testing
