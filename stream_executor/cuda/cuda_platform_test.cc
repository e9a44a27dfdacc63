#include "stream_executor/cuda/cuda_platform.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "gtest/gtest.h"
#include "stream_executor/blas.h"
#include "stream_executor/cuda/cuda_blas.h"
#include "stream_executor/cuda/cuda_nvrtc.h"
#include "stream_executor/device_description.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_kernel_cache.h"
#include "stream_executor/kernel.h"
#include "stream_executor/platform.h"
#include "stream_executor/platform_manager.h"
#include "stream_executor/stream.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor::cuda {
namespace {

constexpr char kAxpySource[] = R"(
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

constexpr char kBrokenSource[] = R"(
extern "C" __global__ void broken(float* y) {
  y[0] = 1.0f +;
}
)";

KernelSpec AxpySpec() {
  KernelSpec spec;
  spec.name = "axpy";
  spec.cuda_source = kAxpySource;
  spec.arity = 4;
  return spec;
}

std::string FreshDir(const std::string& name) {
  std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

int CountFiles(const std::string& dir, const std::string& extension) {
  if (!std::filesystem::exists(dir)) return 0;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == extension) ++count;
  }
  return count;
}

Platform* CudaPlatform() {
  absl::StatusOr<Platform*> platform =
      PlatformManager::PlatformWithName(kCudaPlatformName);
  CHECK(platform.ok()) << platform.status();
  return *platform;
}

// Compiles for an H100 without needing one: NVRTC runs on the host.
DeviceDescription H100Description() {
  DeviceDescription device;
  device.name = "H100 (simulated)";
  device.arch = "sm_90";
  device.compute_major = 9;
  device.compute_minor = 0;
  return device;
}

// On a GPU host the test runner sets XLA_LITE_TEST_REQUIRE_PLATFORM=cuda
// (docs/gpu_testing.md): a missing device or library is then a failure, so a
// broken setup cannot pass by skipping everything.
bool CudaRequired() {
  const char* required = std::getenv("XLA_LITE_TEST_REQUIRE_PLATFORM");
  return required != nullptr && std::string(required) == kCudaPlatformName;
}

#define SKIP_UNLESS_OK(status)                   \
  do {                                           \
    absl::Status skip_status = (status);         \
    if (!skip_status.ok()) {                     \
      if (CudaRequired()) FAIL() << skip_status; \
      GTEST_SKIP() << skip_status;               \
    }                                            \
  } while (0)

#define SKIP_WITHOUT_NVRTC() SKIP_UNLESS_OK(LoadNvrtcApi().status())
#define SKIP_WITHOUT_GPU() SKIP_UNLESS_OK(CudaPlatform()->Availability())

TEST(CudaPlatformTest, IsRegistered) {
  absl::StatusOr<Platform*> platform =
      PlatformManager::PlatformWithName("CUDA");
  ASSERT_TRUE(platform.ok()) << platform.status();
  EXPECT_EQ((*platform)->Name(), "cuda");
}

TEST(CudaPlatformTest, UnavailableWithoutDriverFailsCleanly) {
  Platform* platform = CudaPlatform();
  absl::Status available = platform->Availability();
  if (available.ok()) {
    EXPECT_GT(platform->VisibleDeviceCount(), 0);
    GTEST_SKIP() << "a CUDA device is present";
  }
  EXPECT_FALSE(CudaRequired()) << available;
  EXPECT_EQ(available.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(available.message(), "CUDA")) << available;
  EXPECT_TRUE(absl::StrContains(available.message(), "driver") ||
              absl::StrContains(available.message(), "device"))
      << available;
  EXPECT_EQ(platform->VisibleDeviceCount(), 0);

  absl::StatusOr<StreamExecutor*> executor = platform->ExecutorForDevice(0);
  ASSERT_FALSE(executor.ok());
  EXPECT_EQ(executor.status(), available);

  StreamExecutorConfig config;
  EXPECT_EQ(platform->CreateExecutor(config).status(), available);

  absl::StatusOr<Platform*> by_name =
      PlatformManager::AvailablePlatformWithName("cuda");
  ASSERT_FALSE(by_name.ok());
  EXPECT_TRUE(
      absl::StrContains(by_name.status().message(), available.message()));
}

TEST(CudaLibrariesTest, CublasLoadsOrSaysWhy) {
  absl::StatusOr<const gpu::GpuBlasApi*> blas = LoadCublasApi();
  if (!blas.ok()) {
    EXPECT_EQ(blas.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_TRUE(absl::StrContains(blas.status().message(), "cuBLAS"))
        << blas.status();
  }
  SKIP_UNLESS_OK(blas.status());
  EXPECT_STREQ((*blas)->display_name, "cuBLAS");
  EXPECT_NE((*blas)->error_string(0), nullptr);
}

TEST(CudaKernelCacheTest, CompileErrorCarriesLogAndName) {
  SKIP_WITHOUT_NVRTC();
  gpu::GpuKernelCache cache(&LoadNvrtcApi, "");
  absl::StatusOr<gpu::GpuKernelImage> image =
      cache.GetOrCompile("broken", kBrokenSource, H100Description());
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(image.status().message(), "'broken'"))
      << image.status();
  EXPECT_TRUE(absl::StrContains(image.status().message(), "sm_90"))
      << image.status();
  // The log names the source line of the error.
  EXPECT_TRUE(absl::StrContains(image.status().message(), "broken.cu(3)"))
      << image.status();
  EXPECT_EQ(cache.stats().compilations, 0);
}

TEST(CudaKernelCacheTest, CachesInMemoryAndOnDisk) {
  SKIP_WITHOUT_NVRTC();
  std::string dir = FreshDir("nvrtc_cache");
  gpu::GpuKernelCache first(&LoadNvrtcApi, dir);
  absl::StatusOr<gpu::GpuKernelImage> image =
      first.GetOrCompile("axpy", kAxpySource, H100Description());
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->target_name, "sm_90");
  EXPECT_EQ(image->format, gpu::GpuCodeFormat::kBinary);
  // A CUBIN is an ELF file.
  ASSERT_GE(image->bytes->size(), 4u);
  EXPECT_EQ(image->bytes->substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(first.stats().compilations, 1);
  EXPECT_EQ(first.stats().disk_writes, 1);
  EXPECT_EQ(CountFiles(dir, ".cubin"), 1);
  EXPECT_TRUE(
      std::filesystem::exists(absl::StrCat(dir, "/", image->key, ".cubin")));

  absl::StatusOr<gpu::GpuKernelImage> again =
      first.GetOrCompile("axpy", kAxpySource, H100Description());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(first.stats().compilations, 1);
  EXPECT_EQ(first.stats().memory_hits, 1);

  gpu::GpuKernelCache second(&LoadNvrtcApi, dir);
  absl::StatusOr<gpu::GpuKernelImage> loaded =
      second.GetOrCompile("axpy", kAxpySource, H100Description());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(second.stats().compilations, 0);
  EXPECT_EQ(second.stats().disk_hits, 1);
  EXPECT_EQ(*loaded->bytes, *image->bytes);
  EXPECT_EQ(loaded->key, image->key);

  // Another target is another image.
  DeviceDescription a100 = H100Description();
  a100.compute_major = 8;
  a100.arch = "sm_80";
  absl::StatusOr<gpu::GpuKernelImage> other =
      second.GetOrCompile("axpy", kAxpySource, a100);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(other->key, image->key);
  EXPECT_EQ(second.stats().compilations, 1);
}

TEST(CudaKernelCacheTest, UnknownArchitectureFallsBackToPtx) {
  SKIP_WITHOUT_NVRTC();
  DeviceDescription future = H100Description();
  future.compute_major = 99;
  future.compute_minor = 9;
  gpu::GpuKernelCache cache(&LoadNvrtcApi, "");
  absl::StatusOr<gpu::GpuKernelImage> image =
      cache.GetOrCompile("axpy", kAxpySource, future);
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->format, gpu::GpuCodeFormat::kAssembly);
  EXPECT_TRUE(absl::StartsWith(image->target_name, "compute_"))
      << image->target_name;
  EXPECT_EQ(image->bytes->back(), '\0');
  EXPECT_TRUE(absl::StrContains(*image->bytes, ".entry axpy"));
}

// Everything below needs a device.

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_GPU();
    platform_ = CudaPlatform();
  }

  std::unique_ptr<StreamExecutor> NewExecutor(StreamExecutorConfig config) {
    absl::StatusOr<std::unique_ptr<StreamExecutor>> executor =
        platform_->CreateExecutor(config);
    CHECK(executor.ok()) << executor.status();
    return *std::move(executor);
  }

  Platform* platform_ = nullptr;
};

TEST_F(CudaDeviceTest, DescribesTheDevice) {
  absl::StatusOr<StreamExecutor*> executor = platform_->ExecutorForDevice(0);
  ASSERT_TRUE(executor.ok()) << executor.status();
  const DeviceDescription& device = (*executor)->GetDeviceDescription();
  EXPECT_FALSE(device.name.empty());
  EXPECT_EQ(device.arch,
            absl::StrCat("sm_", device.compute_major, device.compute_minor));
  EXPECT_GT(device.memory_bytes, 0);
  EXPECT_GT(device.core_count, 0);
  EXPECT_TRUE(absl::StrContains(device.runtime_version, "CUDA runtime"));
  EXPECT_FALSE(
      platform_->ExecutorForDevice(platform_->VisibleDeviceCount()).ok());
}

TEST_F(CudaDeviceTest, CompileErrorIsInvalidArgumentWithLog) {
  std::unique_ptr<StreamExecutor> executor = NewExecutor({});
  KernelSpec spec;
  spec.name = "broken";
  spec.cuda_source = kBrokenSource;
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = executor->LoadKernel(spec);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(kernel.status().message(), "'broken'"));
  EXPECT_TRUE(absl::StrContains(kernel.status().message(), "error"))
      << kernel.status();
}

TEST_F(CudaDeviceTest, AxpyComputesExactly) {
  std::unique_ptr<StreamExecutor> executor = NewExecutor({});
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      executor->LoadKernel(AxpySpec());
  ASSERT_TRUE(kernel.ok()) << kernel.status();

  constexpr int kN = 1000;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(kN), y(kN);
  for (int i = 0; i < kN; ++i) {
    x[i] = uniform(rng);
    y[i] = uniform(rng);
  }
  absl::StatusOr<DeviceAddressBase> dx = executor->Allocate(kN * sizeof(float));
  absl::StatusOr<DeviceAddressBase> dy = executor->Allocate(kN * sizeof(float));
  ASSERT_TRUE(dx.ok() && dy.ok());
  ASSERT_TRUE(executor->SynchronousMemcpyH2D(x.data(), dx->size(), &*dx).ok());
  ASSERT_TRUE(executor->SynchronousMemcpyH2D(y.data(), dy->size(), &*dy).ok());

  absl::StatusOr<std::unique_ptr<Stream>> stream = executor->CreateStream();
  ASSERT_TRUE(stream.ok()) << stream.status();
  KernelArgs args;
  args.AddScalar(3.0f);
  args.AddAddress(*dx);
  args.AddAddress(*dy);
  args.AddScalar(kN);
  ASSERT_TRUE(
      (*stream)->Launch(LaunchDimensionsFor(kN, 128), **kernel, args).ok());
  std::vector<float> out(kN);
  ASSERT_TRUE((*stream)->Memcpy(out.data(), *dy, dy->size()).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  for (int i = 0; i < kN; ++i) {
    // Rounded after the multiply and after the add, like the kernel compiled
    // without multiply-add contraction.
    volatile float product = 3.0f * x[i];
    ASSERT_EQ(out[i], product + y[i]) << "at " << i;
  }

  KernelArgs too_few;
  too_few.AddScalar(1.0f);
  absl::Status wrong_arity =
      (*stream)->Launch(LaunchDimensionsFor(kN), **kernel, too_few);
  EXPECT_EQ(wrong_arity.code(), absl::StatusCode::kInvalidArgument);

  EXPECT_TRUE(executor->Deallocate(&*dx).ok());
  EXPECT_TRUE(executor->Deallocate(&*dy).ok());
}

TEST_F(CudaDeviceTest, DiskCacheIsSharedBetweenExecutors) {
  StreamExecutorConfig config;
  config.kernel_cache_dir = FreshDir("executor_kernel_cache");
  std::unique_ptr<StreamExecutor> first = NewExecutor(config);
  ASSERT_TRUE(first->LoadKernel(AxpySpec()).ok());
  auto* first_gpu = dynamic_cast<gpu::GpuExecutor*>(first.get());
  ASSERT_NE(first_gpu, nullptr);
  EXPECT_EQ(first_gpu->kernel_cache_stats().compilations, 1);
  EXPECT_EQ(first_gpu->kernel_cache_stats().disk_writes, 1);
  EXPECT_EQ(CountFiles(config.kernel_cache_dir, ".cubin") +
                CountFiles(config.kernel_cache_dir, ".ptx"),
            1);

  std::unique_ptr<StreamExecutor> second = NewExecutor(config);
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      second->LoadKernel(AxpySpec());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto* second_gpu = dynamic_cast<gpu::GpuExecutor*>(second.get());
  EXPECT_EQ(second_gpu->kernel_cache_stats().compilations, 0);
  EXPECT_EQ(second_gpu->kernel_cache_stats().disk_hits, 1);
}

TEST_F(CudaDeviceTest, MemoryLimitIsResourceExhausted) {
  StreamExecutorConfig config;
  config.memory_limit_bytes = 1 << 20;
  std::unique_ptr<StreamExecutor> executor = NewExecutor(config);
  absl::StatusOr<DeviceAddressBase> half = executor->Allocate(512 << 10);
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_EQ(executor->allocated_bytes(), 512 << 10);
  absl::StatusOr<DeviceAddressBase> too_much = executor->Allocate(1 << 20);
  EXPECT_EQ(too_much.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(executor->Deallocate(&*half).ok());
  EXPECT_EQ(executor->allocated_bytes(), 0);
  absl::StatusOr<DeviceAddressBase> all = executor->Allocate(1 << 20);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(executor->Deallocate(&*all).ok());

  // Beyond the device itself: the runtime's out-of-memory, not an abort.
  std::unique_ptr<StreamExecutor> unlimited = NewExecutor({});
  absl::StatusOr<DeviceAddressBase> huge =
      unlimited->Allocate(uint64_t{1} << 50);
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted)
      << huge.status();

  DeviceAddressBase unknown(reinterpret_cast<void*>(0x1000), 16);
  EXPECT_EQ(unlimited->Deallocate(&unknown).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CudaDeviceTest, CaptureRefusesAllocationAndCountsNodes) {
  std::unique_ptr<StreamExecutor> executor = NewExecutor({});
  absl::StatusOr<DeviceAddressBase> buffer = executor->Allocate(1024);
  ASSERT_TRUE(buffer.ok());
  absl::StatusOr<std::unique_ptr<Stream>> stream = executor->CreateStream();
  ASSERT_TRUE(stream.ok());

  ASSERT_TRUE((*stream)->BeginCapture().ok());
  EXPECT_TRUE((*stream)->IsCapturing());
  absl::StatusOr<std::unique_ptr<CapturedGraph>> empty =
      (*stream)->EndCapture();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)->num_nodes(), 0);

  absl::StatusOr<DeviceAddressBase> doomed = executor->Allocate(256);
  ASSERT_TRUE(doomed.ok());
  ASSERT_TRUE((*stream)->BeginCapture().ok());
  EXPECT_EQ(executor->Allocate(64).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // Freeing is allowed: relaxed capture mode permits it, and no freed
  // address can end up in the graph.
  EXPECT_TRUE(executor->Deallocate(&*doomed).ok());
  ASSERT_TRUE((*stream)->Memset32(&*buffer, 0x3f800000u, 1024).ok());
  ASSERT_TRUE((*stream)->MemZero(&*buffer, 512).ok());
  absl::StatusOr<std::unique_ptr<CapturedGraph>> graph =
      (*stream)->EndCapture();
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ((*graph)->num_nodes(), 2);
  EXPECT_FALSE((*stream)->IsCapturing());

  absl::StatusOr<DeviceAddressBase> after = executor->Allocate(64);
  EXPECT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(executor->Deallocate(&*after).ok());
  EXPECT_TRUE(executor->Deallocate(&*buffer).ok());
}

TEST_F(CudaDeviceTest, StreamOrderingEventsAndCallbacks) {
  std::unique_ptr<StreamExecutor> executor = NewExecutor({});
  absl::StatusOr<DeviceAddressBase> buffer = executor->Allocate(4096);
  ASSERT_TRUE(buffer.ok());
  absl::StatusOr<std::unique_ptr<Stream>> a = executor->CreateStream();
  absl::StatusOr<std::unique_ptr<Stream>> b = executor->CreateStream();
  absl::StatusOr<std::unique_ptr<Event>> event = executor->CreateEvent();
  ASSERT_TRUE(a.ok() && b.ok() && event.ok());

  ASSERT_TRUE((*a)->Memset32(&*buffer, 0xdeadbeef, 4096).ok());
  ASSERT_TRUE((*a)->RecordEvent(event->get()).ok());
  ASSERT_TRUE((*b)->WaitFor(event->get()).ok());
  std::vector<uint32_t> out(1024);
  ASSERT_TRUE((*b)->Memcpy(out.data(), *buffer, 4096).ok());
  bool ran = false;
  ASSERT_TRUE((*b)->DoHostCallback([&] { ran = true; }).ok());
  ASSERT_TRUE((*b)->DoHostCallbackWithStatus(
                      [] { return absl::DataLossError("callback failed"); })
                  .ok());
  absl::Status done = (*b)->BlockHostUntilDone();
  EXPECT_EQ(done.code(), absl::StatusCode::kDataLoss) << done;
  EXPECT_TRUE((*b)->BlockHostUntilDone().ok());  // Reported once.
  EXPECT_TRUE(ran);
  EXPECT_TRUE((*event)->IsComplete());
  for (uint32_t word : out) ASSERT_EQ(word, 0xdeadbeefu);

  ASSERT_TRUE((*a)->MemZero(&*buffer, 4096).ok());
  ASSERT_TRUE((*b)->WaitFor(a->get()).ok());
  ASSERT_TRUE((*b)->Memcpy(out.data(), *buffer, 4096).ok());
  ASSERT_TRUE((*b)->BlockHostUntilDone().ok());
  for (uint32_t word : out) ASSERT_EQ(word, 0u);
  EXPECT_TRUE(executor->SynchronizeAllActivity().ok());
  EXPECT_TRUE(executor->Deallocate(&*buffer).ok());
}

TEST_F(CudaDeviceTest, GemmF32AndBf16) {
  std::unique_ptr<StreamExecutor> executor = NewExecutor({});
  absl::StatusOr<blas::BlasSupport*> blas = executor->AsBlas();
  SKIP_UNLESS_OK(blas.status());
  absl::StatusOr<std::unique_ptr<Stream>> stream = executor->CreateStream();
  ASSERT_TRUE(stream.ok());

  // Column-major 2x2: A = [1 3; 2 4], B = [5 7; 6 8], A*B = [23 31; 34 46].
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, c(4);
  auto da = executor->Allocate(16), db = executor->Allocate(16),
       dc = executor->Allocate(16);
  ASSERT_TRUE(da.ok() && db.ok() && dc.ok());
  ASSERT_TRUE((*stream)->Memcpy(&*da, a.data(), 16).ok());
  ASSERT_TRUE((*stream)->Memcpy(&*db, b.data(), 16).ok());
  blas::GemmCall call;
  call.m = call.n = call.k = 2;
  call.a = *da;
  call.b = *db;
  call.c = *dc;
  call.lda = call.ldb = call.ldc = 2;
  ASSERT_TRUE((*blas)->Gemm(stream->get(), call).ok());
  ASSERT_TRUE((*stream)->Memcpy(c.data(), *dc, 16).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  EXPECT_EQ(c, (std::vector<float>{23, 34, 31, 46}));

  // The same product in bf16 (all values exact in bf16).
  auto to_bf16 = [](float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<uint16_t>(bits >> 16);
  };
  std::vector<uint16_t> a16, b16, c16(4);
  for (float v : a) a16.push_back(to_bf16(v));
  for (float v : b) b16.push_back(to_bf16(v));
  ASSERT_TRUE((*stream)->Memcpy(&*da, a16.data(), 8).ok());
  ASSERT_TRUE((*stream)->Memcpy(&*db, b16.data(), 8).ok());
  call.type = blas::DataType::kBF16;
  ASSERT_TRUE((*blas)->Gemm(stream->get(), call).ok());
  ASSERT_TRUE((*stream)->Memcpy(c16.data(), *dc, 8).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  EXPECT_EQ(c16, (std::vector<uint16_t>{to_bf16(23), to_bf16(34), to_bf16(31),
                                        to_bf16(46)}));

  // Gemm records under capture: the workspace was allocated up front.
  ASSERT_TRUE((*stream)->BeginCapture().ok());
  call.type = blas::DataType::kF32;
  EXPECT_TRUE((*blas)->Gemm(stream->get(), call).ok());
  absl::StatusOr<std::unique_ptr<CapturedGraph>> graph =
      (*stream)->EndCapture();
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_GE((*graph)->num_nodes(), 1);

  call.m = 3;  // Now larger than the buffers.
  EXPECT_EQ((*blas)->Gemm(stream->get(), call).code(),
            absl::StatusCode::kInvalidArgument);
  for (auto* mem : {&*da, &*db, &*dc})
    EXPECT_TRUE(executor->Deallocate(mem).ok());
}

}  // namespace
}  // namespace stream_executor::cuda
