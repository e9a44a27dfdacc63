#include "stream_executor/rocm/rocm_platform.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"
#include "gtest/gtest.h"
#include "hip/hip_runtime_api.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/device_description.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/gpu/gpu_kernel_cache.h"
#include "stream_executor/platform.h"
#include "stream_executor/platform_manager.h"
#include "stream_executor/rocm/rocm_blas.h"
#include "stream_executor/rocm/rocm_graph_api.h"
#include "stream_executor/rocm/rocm_hiprtc.h"
#include "stream_executor/rocm/rocm_library.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor::rocm {
namespace {

constexpr char kScaleSource[] = R"(
extern "C" __global__ void scale(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

constexpr char kSyntaxErrorSource[] = R"(
extern "C" __global__ void syntax_error(float* y) {
  y[0] = 2.0f *;
}
)";

// ELF e_machine of AMD GPU code objects.
constexpr unsigned char kElfMachineAmdgpu = 0xe0;

Platform* RocmPlatform() {
  absl::StatusOr<Platform*> platform =
      PlatformManager::PlatformWithName(kRocmPlatformName);
  CHECK(platform.ok()) << platform.status();
  return *platform;
}

// hiprtc runs on the host, so it compiles for an MI250X without one.
DeviceDescription Mi250xDescription() {
  DeviceDescription device;
  device.name = "AMD Instinct MI250X (simulated)";
  device.arch = "gfx90a";
  device.compute_major = 9;
  device.compute_minor = 0;
  return device;
}

// Set to "rocm" on an AMD GPU host (as docs/gpu_testing.md does for CUDA): a
// missing device or library then fails instead of skipping.
bool RocmRequired() {
  const char* required = std::getenv("XLA_LITE_TEST_REQUIRE_PLATFORM");
  return required != nullptr && absl::StrContains(required, kRocmPlatformName);
}

void SkipOrFailUnless(const absl::Status& status) {
  if (status.ok()) return;
  if (RocmRequired()) FAIL() << status;
  GTEST_SKIP() << status;
}

TEST(RocmPlatformTest, IsRegistered) {
  absl::StatusOr<Platform*> platform =
      PlatformManager::PlatformWithName("ROCm");
  ASSERT_TRUE(platform.ok()) << platform.status();
  EXPECT_EQ((*platform)->Name(), "rocm");
}

TEST(RocmPlatformTest, UnavailableWithoutDeviceFailsCleanly) {
  Platform* platform = RocmPlatform();
  absl::Status available = platform->Availability();
  if (available.ok()) {
    EXPECT_GT(platform->VisibleDeviceCount(), 0);
    GTEST_SKIP() << "an AMD GPU is present";
  }
  LOG(INFO) << "rocm is unavailable here: " << available;
  EXPECT_FALSE(RocmRequired()) << available;
  EXPECT_EQ(available.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(available.message(), "ROCm") ||
              absl::StrContains(available.message(), "HIP"))
      << available;
  EXPECT_EQ(platform->VisibleDeviceCount(), 0);

  absl::StatusOr<StreamExecutor*> executor = platform->ExecutorForDevice(0);
  ASSERT_FALSE(executor.ok());
  EXPECT_EQ(executor.status(), available);
  EXPECT_EQ(platform->CreateExecutor(StreamExecutorConfig()).status(),
            available);
  EXPECT_FALSE(PlatformManager::AvailablePlatformWithName("rocm").ok());
}

TEST(RocmLibraryTest, MissingLibraryNamesEveryCandidate) {
  constexpr const char* kMissing[] = {"libxla_lite_missing.so.1"};
  absl::StatusOr<RocmLibrary> library = RocmLibrary::Open("Missing", kMissing);
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(library.status().message(),
                                "/opt/rocm/lib/libxla_lite_missing.so.1"))
      << library.status();
}

TEST(RocmLibraryTest, KnowsTheSonameBehindTheLink) {
  absl::StatusOr<RocmLibrary> library =
      RocmLibrary::Open("HIP runtime", kHipRuntimeSonames);
  SkipOrFailUnless(library.status());
  if (!library.ok()) return;
  EXPECT_TRUE(library->HasSoname("libamdhip64.so.5") ||
              library->HasSoname("libamdhip64.so.6") ||
              library->HasSoname("libamdhip64.so.7"));
  // Loaded, but another library.
  EXPECT_FALSE(library->HasSoname("libc.so.6"));
  EXPECT_FALSE(library->HasSoname("libhipblas.so.2"));

  void (*missing)() = nullptr;
  absl::Status status = library->Resolve("hipNoSuchFunction", &missing);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(status.message(), "hipNoSuchFunction"));
  library->ResolveOptional("hipNoSuchFunction", &missing);
  EXPECT_EQ(missing, nullptr);
}

TEST(RocmLibrariesTest, HipblasLoadsOrNamesTheLibrary) {
  absl::StatusOr<const gpu::GpuBlasApi*> blas = LoadHipblasApi();
  if (!blas.ok()) {
    LOG(INFO) << "hipBLAS is unavailable here: " << blas.status();
    EXPECT_FALSE(RocmRequired()) << blas.status();
    EXPECT_EQ(blas.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_TRUE(absl::StrContains(blas.status().message(), "libhipblas"))
        << blas.status();
    return;
  }
  EXPECT_STREQ((*blas)->display_name, "hipBLAS");
  EXPECT_STREQ((*blas)->error_string(0), "HIPBLAS_STATUS_SUCCESS");
}

// The graph entries come from the library alone, so whether the runtime has
// them is checked without a device: a runtime lacking one would leave command
// buffers UNIMPLEMENTED on every AMD GPU.
class RocmGraphApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<RocmLibrary> library =
        RocmLibrary::Open("HIP runtime", kHipRuntimeSonames);
    SkipOrFailUnless(library.status());
    if (library.ok()) library_ = *std::move(library);
  }

  std::optional<RocmLibrary> library_;
};

// hipRuntimeGetVersion's encoding: major * 10^7 + minor * 10^5 + patch.
constexpr int kHip5_2 = 50221153;
constexpr int kHip6_0 = 60000000;

TEST_F(RocmGraphApiTest, RuntimeExportsEveryGraphFunction) {
  std::vector<std::string> missing = MissingHipGraphFunctions(*library_);
  EXPECT_TRUE(missing.empty()) << "missing: " << absl::StrJoin(missing, ", ");
}

TEST(RocmGraphApiLibraryTest, LibraryWithoutGraphsLeavesTheEntriesNull) {
  constexpr const char* kLibc[] = {"libc.so.6"};
  absl::StatusOr<RocmLibrary> libc = RocmLibrary::Open("C library", kLibc);
  ASSERT_TRUE(libc.ok()) << libc.status();
  std::vector<std::string> missing = MissingHipGraphFunctions(*libc);
  EXPECT_EQ(missing.size(), 19u) << absl::StrJoin(missing, ", ");
  EXPECT_NE(std::find(missing.begin(), missing.end(),
                      "hipGraphExecChildGraphNodeSetParams"),
            missing.end());

  gpu::GpuApi api{};
  absl::Status status = FillHipGraphEntries(*libc, kHip6_0, &api);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(status.message(), "hipGraphAddKernelNode"))
      << status;
  EXPECT_EQ(api.graph_create, nullptr);
  EXPECT_EQ(api.graph_exec_child_node_set_params, nullptr);
}

TEST_F(RocmGraphApiTest, FillsEveryGraphEntryWithConservativeTraits) {
  gpu::GpuApi api{};
  ASSERT_TRUE(FillHipGraphEntries(*library_, kHip5_2, &api).ok());
  // The entries GpuCommandBuffer requires all together.
  EXPECT_NE(api.graph_create, nullptr);
  EXPECT_NE(api.graph_clone, nullptr);
  EXPECT_NE(api.graph_add_kernel_node, nullptr);
  EXPECT_NE(api.graph_add_memcpy_d2d_node, nullptr);
  EXPECT_NE(api.graph_add_memset32_node, nullptr);
  EXPECT_NE(api.graph_add_child_node, nullptr);
  EXPECT_NE(api.graph_add_empty_node, nullptr);
  EXPECT_NE(api.graph_add_dependency, nullptr);
  EXPECT_NE(api.graph_destroy_node, nullptr);
  EXPECT_NE(api.graph_kernel_node_set_params, nullptr);
  EXPECT_NE(api.graph_memcpy_d2d_node_set_params, nullptr);
  EXPECT_NE(api.graph_memset32_node_set_params, nullptr);
  EXPECT_NE(api.graph_instantiate, nullptr);
  EXPECT_NE(api.graph_exec_destroy, nullptr);
  EXPECT_NE(api.graph_launch, nullptr);
  EXPECT_NE(api.graph_exec_kernel_node_set_params, nullptr);
  EXPECT_NE(api.graph_exec_memcpy_d2d_node_set_params, nullptr);
  EXPECT_NE(api.graph_exec_memset32_node_set_params, nullptr);
  EXPECT_NE(api.graph_exec_child_node_set_params, nullptr);
  EXPECT_FALSE(api.graph_traits.empty_graph_launch);
  EXPECT_FALSE(api.graph_traits.empty_child_graph);
  EXPECT_FALSE(api.graph_traits.exec_destroy_defers_to_launches);
  // Entries outside the graph group are not the graph loader's to fill.
  EXPECT_EQ(api.graph_destroy, nullptr);
  EXPECT_EQ(api.launch_kernel, nullptr);
}

TEST_F(RocmGraphApiTest, ChildNodesUpdateInPlaceOnlyFromHip6) {
  gpu::GpuApi hip5{}, hip6{};
  ASSERT_TRUE(FillHipGraphEntries(*library_, kHip5_2, &hip5).ok());
  ASSERT_TRUE(FillHipGraphEntries(*library_, kHip6_0, &hip6).ok());
  EXPECT_NE(hip5.graph_exec_child_node_set_params,
            hip6.graph_exec_child_node_set_params);
  EXPECT_EQ(hip5.graph_exec_kernel_node_set_params,
            hip6.graph_exec_kernel_node_set_params);
  // Before HIP 6 the update is refused without calling HIP (so this needs no
  // device): GpuCommandBuffer then re-instantiates.
  EXPECT_EQ(hip5.graph_exec_child_node_set_params(nullptr, nullptr, nullptr),
            hipErrorNotSupported);
}

class HiprtcTest : public ::testing::Test {
 protected:
  void SetUp() override { SkipOrFailUnless(LoadHiprtcApi().status()); }
};

TEST_F(HiprtcTest, TargetsTheProcessorWithoutContraction) {
  const gpu::GpuCompilerApi& hiprtc = **LoadHiprtcApi();
  absl::StatusOr<gpu::GpuCompileTarget> target =
      hiprtc.select_target(Mi250xDescription());
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->target_name, "gfx90a");
  EXPECT_EQ(target->format, gpu::GpuCodeFormat::kBinary);
  EXPECT_EQ(target->file_extension, "hsaco");
  EXPECT_NE(std::find(target->options.begin(), target->options.end(),
                      "--offload-arch=gfx90a"),
            target->options.end());
  EXPECT_NE(std::find(target->options.begin(), target->options.end(),
                      "-ffp-contract=off"),
            target->options.end());

  DeviceDescription nvidia = Mi250xDescription();
  nvidia.arch = "sm_90";
  EXPECT_EQ(hiprtc.select_target(nvidia).status().code(),
            absl::StatusCode::kFailedPrecondition);
  DeviceDescription with_features = Mi250xDescription();
  with_features.arch = "gfx90a:xnack-";
  EXPECT_FALSE(hiprtc.select_target(with_features).ok());
}

TEST_F(HiprtcTest, CompilesCodeObjectsAndCachesThemOnDisk) {
  std::string dir = absl::StrCat(::testing::TempDir(), "/hiprtc_cache");
  std::filesystem::remove_all(dir);
  gpu::GpuKernelCache cache(&LoadHiprtcApi, dir);
  absl::StatusOr<gpu::GpuKernelImage> image =
      cache.GetOrCompile("scale", kScaleSource, Mi250xDescription());
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->target_name, "gfx90a");
  const std::string& bytes = *image->bytes;
  ASSERT_GE(bytes.size(), 20u);
  EXPECT_EQ(bytes.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(static_cast<unsigned char>(bytes[18]), kElfMachineAmdgpu);
  EXPECT_TRUE(
      std::filesystem::exists(absl::StrCat(dir, "/", image->key, ".hsaco")));

  gpu::GpuKernelCache reloaded(&LoadHiprtcApi, dir);
  ASSERT_TRUE(
      reloaded.GetOrCompile("scale", kScaleSource, Mi250xDescription()).ok());
  EXPECT_EQ(reloaded.stats().disk_hits, 1);
  EXPECT_EQ(reloaded.stats().compilations, 0);

  // A processor this hiprtc knows: hiprtc 5.2 crashes on one its comgr does
  // not (docs/rocm.md).
  DeviceDescription mi100 = Mi250xDescription();
  mi100.arch = "gfx908";
  absl::StatusOr<gpu::GpuKernelImage> other =
      reloaded.GetOrCompile("scale", kScaleSource, mi100);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(other->key, image->key);
}

TEST_F(HiprtcTest, CompileErrorCarriesTheLog) {
  gpu::GpuKernelCache cache(&LoadHiprtcApi, "");
  absl::StatusOr<gpu::GpuKernelImage> image = cache.GetOrCompile(
      "syntax_error", kSyntaxErrorSource, Mi250xDescription());
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(image.status().message(), "'syntax_error'"))
      << image.status();
  EXPECT_TRUE(absl::StrContains(image.status().message(), "gfx90a"))
      << image.status();
  // The log names the source line of the error (HIP 5.2 calls the file
  // "CompileSource" whatever the program's name).
  EXPECT_TRUE(absl::StrContains(image.status().message(), ":3:"))
      << image.status();
  EXPECT_TRUE(absl::StrContains(image.status().message(), "error"))
      << image.status();
}

TEST(RocmDeviceTest, DescribesTheDevice) {
  SkipOrFailUnless(RocmPlatform()->Availability());
  if (!RocmPlatform()->Availability().ok()) return;
  absl::StatusOr<StreamExecutor*> executor =
      RocmPlatform()->ExecutorForDevice(0);
  ASSERT_TRUE(executor.ok()) << executor.status();
  const DeviceDescription& device = (*executor)->GetDeviceDescription();
  EXPECT_TRUE(absl::StartsWith(device.arch, "gfx")) << device.arch;
  EXPECT_FALSE(absl::StrContains(device.arch, ":")) << device.arch;
  EXPECT_GT(device.memory_bytes, 0);
  EXPECT_GT(device.core_count, 0);
  EXPECT_TRUE(absl::StartsWith(device.runtime_version, "HIP runtime"))
      << device.runtime_version;
}

// The conformance suite
// (tests/stream_executor/command_buffer_conformance_test.cc) runs command
// buffers on the device; this only says early whether the table got its
// graph entries there.
TEST(RocmDeviceTest, CreatesCommandBuffers) {
  SkipOrFailUnless(RocmPlatform()->Availability());
  if (!RocmPlatform()->Availability().ok()) return;
  absl::StatusOr<StreamExecutor*> executor =
      RocmPlatform()->ExecutorForDevice(0);
  ASSERT_TRUE(executor.ok()) << executor.status();
  absl::StatusOr<std::unique_ptr<CommandBuffer>> command_buffer =
      (*executor)->CreateCommandBuffer();
  ASSERT_TRUE(command_buffer.ok()) << command_buffer.status();
  EXPECT_TRUE((*command_buffer)->Finalize().ok());
}

}  // namespace
}  // namespace stream_executor::rocm
