#ifndef TESTS_RUNTIME_RUNTIME_TEST_BASE_H_
#define TESTS_RUNTIME_RUNTIME_TEST_BASE_H_

// A fixture for runtime tests that run on every platform: a stream, an
// allocator and host<->device helpers on top of PlatformTest.

#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream.h"
#include "tests/platform_test_util.h"
#include "xla_lite/runtime/run_options.h"

namespace xla_lite::testing {

inline absl::Status StatusOf(const absl::Status& status) { return status; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

#define XLA_LITE_ASSERT_OK(expr)                         \
  do {                                                   \
    absl::Status status_ = ::xla_lite::testing::StatusOf(expr); \
    ASSERT_TRUE(status_.ok()) << status_;                \
  } while (0)
#define XLA_LITE_EXPECT_OK(expr)                         \
  do {                                                   \
    absl::Status status_ = ::xla_lite::testing::StatusOf(expr); \
    EXPECT_TRUE(status_.ok()) << status_;                \
  } while (0)

inline std::vector<float> RandomFloats(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

class RuntimeTest : public PlatformTest {
 protected:
  void SetUp() override {
    PlatformTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    auto stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok()) << stream.status();
    stream_ = std::move(*stream);
    allocator_ = std::make_unique<se::StreamExecutorAllocator>(executor_);
    baseline_bytes_ = executor_->allocated_bytes();
  }

  se::ScopedDeviceAddress Allocate(uint64_t size) {
    auto mem = allocator_->Allocate(executor_->device_ordinal(), size);
    EXPECT_TRUE(mem.ok()) << mem.status();
    return mem.ok() ? std::move(*mem) : se::ScopedDeviceAddress();
  }

  template <typename T>
  se::ScopedDeviceAddress Upload(const std::vector<T>& host) {
    se::ScopedDeviceAddress mem = Allocate(host.size() * sizeof(T));
    absl::Status status = executor_->SynchronousMemcpyH2D(
        host.data(), host.size() * sizeof(T), mem.ptr());
    EXPECT_TRUE(status.ok()) << status;
    return mem;
  }

  template <typename T>
  std::vector<T> Download(const se::DeviceAddressBase& mem) {
    std::vector<T> host(mem.size() / sizeof(T));
    absl::Status status =
        executor_->SynchronousMemcpyD2H(mem, mem.size(), host.data());
    EXPECT_TRUE(status.ok()) << status;
    return host;
  }

  xla_lite::gpu::RunOptions Options(se::DeviceAddressAllocator* allocator = nullptr) {
    xla_lite::gpu::RunOptions options;
    options.stream = stream_.get();
    options.allocator = allocator != nullptr ? allocator : allocator_.get();
    return options;
  }

  // Bytes this test still holds on the device, beyond what earlier tests on
  // the shared executor left.
  int64_t HeldBytes() const {
    return executor_->allocated_bytes() - baseline_bytes_;
  }

  std::unique_ptr<se::Stream> stream_;
  std::unique_ptr<se::StreamExecutorAllocator> allocator_;
  int64_t baseline_bytes_ = 0;
};

}  // namespace xla_lite::testing

#endif  // TESTS_RUNTIME_RUNTIME_TEST_BASE_H_
