#ifndef TESTS_PLATFORM_TEST_UTIL_H_
#define TESTS_PLATFORM_TEST_UTIL_H_

// Runs one gtest suite on every platform linked into the test binary. A
// platform that is registered but unavailable here (no GPU, no driver) is
// skipped with its reason, unless XLA_LITE_TEST_REQUIRE_PLATFORM names it:
// the GPU test script sets that so a GPU run can never pass by skipping.

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "stream_executor/platform_manager.h"
#include "stream_executor/stream_executor.h"

namespace xla_lite::testing {

inline std::vector<std::string> RegisteredPlatforms() {
  return stream_executor::PlatformManager::ListPlatformNames();
}

inline bool PlatformRequired(const std::string& name) {
  const char* required = std::getenv("XLA_LITE_TEST_REQUIRE_PLATFORM");
  return required != nullptr && absl::StrContains(required, name);
}

class PlatformTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto platform = stream_executor::PlatformManager::PlatformWithName(GetParam());
    ASSERT_TRUE(platform.ok()) << platform.status();
    platform_ = *platform;
    absl::Status available = platform_->Availability();
    if (!available.ok()) {
      ASSERT_FALSE(PlatformRequired(GetParam()))
          << "required platform unavailable: " << available;
      GTEST_SKIP() << "platform " << GetParam()
                   << " is unavailable here: " << available;
    }
    auto executor = platform_->ExecutorForDevice(0);
    ASSERT_TRUE(executor.ok()) << executor.status();
    executor_ = *executor;
  }

  bool IsHost() const { return GetParam() == "host"; }

  stream_executor::Platform* platform_ = nullptr;
  stream_executor::StreamExecutor* executor_ = nullptr;
};

#define INSTANTIATE_FOR_ALL_PLATFORMS(suite)                           \
  INSTANTIATE_TEST_SUITE_P(                                            \
      AllPlatforms, suite,                                             \
      ::testing::ValuesIn(::xla_lite::testing::RegisteredPlatforms()), \
      [](const ::testing::TestParamInfo<std::string>& info) {          \
        return info.param;                                             \
      })

}  // namespace xla_lite::testing

#endif  // TESTS_PLATFORM_TEST_UTIL_H_
