#include "stream_executor/platform_manager.h"

#include "gtest/gtest.h"
#include "stream_executor/blas.h"
#include "stream_executor/launch_dim.h"

namespace stream_executor {
namespace {

TEST(PlatformManagerTest, HostIsRegisteredAndCaseInsensitive) {
  auto platform = PlatformManager::PlatformWithName("HOST");
  ASSERT_TRUE(platform.ok()) << platform.status();
  EXPECT_EQ((*platform)->Name(), "host");
  EXPECT_TRUE((*platform)->Availability().ok());
  EXPECT_GE((*platform)->VisibleDeviceCount(), 2);
}

TEST(PlatformManagerTest, UnknownPlatformListsRegisteredOnes) {
  auto platform = PlatformManager::PlatformWithName("tpu");
  EXPECT_EQ(platform.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(platform.status().message().find("host"), std::string::npos)
      << platform.status();
}

TEST(PlatformManagerTest, DuplicateRegistrationFails) {
  auto host = PlatformManager::PlatformWithName("host");
  ASSERT_TRUE(host.ok());
  class Fake : public Platform {
   public:
    const std::string& Name() const override { return name_; }
    absl::Status Availability() const override { return absl::OkStatus(); }
    int VisibleDeviceCount() const override { return 0; }
    absl::StatusOr<StreamExecutor*> ExecutorForDevice(int) override {
      return absl::UnimplementedError("fake");
    }
    absl::StatusOr<std::unique_ptr<StreamExecutor>> CreateExecutor(
        const StreamExecutorConfig&) override {
      return absl::UnimplementedError("fake");
    }
    std::string name_ = "Host";
  };
  EXPECT_EQ(PlatformManager::RegisterPlatform(std::make_unique<Fake>()).code(),
            absl::StatusCode::kAlreadyExists);
}

TEST(PlatformManagerTest, DefaultPlatformIsAvailable) {
  auto platform = PlatformManager::DefaultPlatform();
  ASSERT_TRUE(platform.ok()) << platform.status();
  EXPECT_TRUE((*platform)->Availability().ok());
}

TEST(PlatformManagerTest, HostExecutorsPerOrdinal) {
  auto platform = PlatformManager::PlatformWithName("host");
  ASSERT_TRUE(platform.ok());
  auto e0 = (*platform)->ExecutorForDevice(0), e1 = (*platform)->ExecutorForDevice(1);
  ASSERT_TRUE(e0.ok() && e1.ok());
  EXPECT_NE(*e0, *e1);
  EXPECT_EQ((*e1)->device_ordinal(), 1);
  EXPECT_EQ(*(*platform)->ExecutorForDevice(0), *e0);
  EXPECT_EQ((*platform)->ExecutorForDevice(7).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GemmCallTest, ValidateChecksLeadingDimensionsAndSizes) {
  blas::GemmCall call;
  call.m = 4, call.n = 3, call.k = 2;
  std::vector<float> a(8), b(6), c(12);
  call.a = DeviceAddressBase(a.data(), 32);
  call.b = DeviceAddressBase(b.data(), 24);
  call.c = DeviceAddressBase(c.data(), 48);
  call.lda = 4, call.ldb = 2, call.ldc = 4;
  EXPECT_TRUE(call.Validate().ok()) << call.Validate();

  blas::GemmCall bad_ld = call;
  bad_ld.lda = 3;
  EXPECT_EQ(bad_ld.Validate().code(), absl::StatusCode::kInvalidArgument);

  blas::GemmCall transposed = call;  // A stored as k x m needs lda >= k.
  transposed.transa = blas::Transpose::kTranspose;
  transposed.lda = 2;
  EXPECT_TRUE(transposed.Validate().ok()) << transposed.Validate();

  blas::GemmCall batched = call;  // A and B broadcast (stride 0); C does not fit.
  batched.batch_count = 2;
  batched.stride_c = 12;
  EXPECT_NE(batched.Validate().message().find("C holds 48 bytes"),
            std::string::npos)
      << batched.Validate();
}

TEST(LaunchDimensionsTest, CoversAllElements) {
  EXPECT_EQ(LaunchDimensionsFor(1000, 256).blocks.x, 4);
  EXPECT_EQ(LaunchDimensionsFor(1024, 256).blocks.x, 4);
  EXPECT_EQ(LaunchDimensionsFor(0, 256).blocks.x, 1);
  EXPECT_EQ(LaunchDimensionsFor(1000, 256).num_threads(), 1024);
}

TEST(KernelArgsTest, ParamPointersPointAtValues) {
  float x = 0;
  KernelArgs args;
  args.AddAddress(DeviceAddressBase(&x, 4));
  args.AddScalar(int64_t{-5});
  std::vector<void*> params = args.ParamPointers();
  ASSERT_EQ(params.size(), 2);
  EXPECT_EQ(*static_cast<float**>(params[0]), &x);
  EXPECT_EQ(*static_cast<int64_t*>(params[1]), -5);
  EXPECT_EQ(args[1].scalar<int64_t>(), -5);
}

}  // namespace
}  // namespace stream_executor
