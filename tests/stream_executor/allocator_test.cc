// Memory: limits are RESOURCE_EXHAUSTED (never an abort), ownership returns
// every byte, bad frees are errors.

#include <vector>

#include "gtest/gtest.h"
#include "stream_executor/device_address_allocator.h"
#include "tests/platform_test_util.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;

class AllocatorTest : public PlatformTest {
 protected:
  std::unique_ptr<se::StreamExecutor> LimitedExecutor(int64_t limit) {
    se::StreamExecutorConfig config;
    config.memory_limit_bytes = limit;
    auto executor = platform_->CreateExecutor(config);
    EXPECT_TRUE(executor.ok()) << executor.status();
    return std::move(*executor);
  }
};

TEST_P(AllocatorTest, LimitIsResourceExhausted) {
  auto executor = LimitedExecutor(1 << 20);
  auto too_big = executor->Allocate(2 << 20);
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted)
      << too_big.status();
  EXPECT_NE(too_big.status().message().find("limit"), std::string::npos);

  auto half = executor->Allocate(512 << 10);
  ASSERT_TRUE(half.ok()) << half.status();
  auto more = executor->Allocate(600 << 10);
  EXPECT_EQ(more.status().code(), absl::StatusCode::kResourceExhausted);
  ASSERT_TRUE(executor->Deallocate(&*half).ok());
  auto again = executor->Allocate(600 << 10);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_TRUE(executor->Deallocate(&*again).ok());
  EXPECT_EQ(executor->allocated_bytes(), 0);
}

TEST_P(AllocatorTest, ScopedAddressesReturnEveryByte) {
  auto executor = LimitedExecutor(0);
  se::StreamExecutorAllocator allocator(executor.get());
  {
    std::vector<se::ScopedDeviceAddress> held;
    for (int i = 1; i <= 10; ++i) {
      auto mem = allocator.Allocate(executor->device_ordinal(), i * 1000);
      ASSERT_TRUE(mem.ok()) << mem.status();
      held.push_back(std::move(*mem));
    }
    EXPECT_GE(executor->allocated_bytes(), 55000);
    ASSERT_TRUE(held[3].Free().ok());
    EXPECT_TRUE(held[3].is_null());
    se::DeviceAddressBase released = held[4].Release();
    ASSERT_TRUE(allocator.Deallocate(executor->device_ordinal(), released).ok());
  }
  EXPECT_EQ(executor->allocated_bytes(), 0);
}

TEST_P(AllocatorTest, ZeroBytesIsNull) {
  auto mem = executor_->Allocate(0);
  ASSERT_TRUE(mem.ok()) << mem.status();
  EXPECT_TRUE(mem->is_null());
  EXPECT_TRUE(executor_->Deallocate(&*mem).ok());
}

TEST_P(AllocatorTest, DoubleFreeIsAnError) {
  auto executor = LimitedExecutor(0);
  auto mem = executor->Allocate(256);
  ASSERT_TRUE(mem.ok());
  se::DeviceAddressBase copy = *mem;
  ASSERT_TRUE(executor->Deallocate(&*mem).ok());
  EXPECT_EQ(executor->Deallocate(&copy).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(AllocatorTest, AllocatorWithoutExecutorForOrdinal) {
  se::StreamExecutorAllocator allocator(executor_);
  auto mem = allocator.Allocate(executor_->device_ordinal() + 5, 64);
  EXPECT_EQ(mem.status().code(), absl::StatusCode::kInvalidArgument);
}

INSTANTIATE_FOR_ALL_PLATFORMS(AllocatorTest);

}  // namespace
}  // namespace xla_lite::testing
