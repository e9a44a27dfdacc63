// configs/models/dp2_mlp compiled and run on the host platform's two
// devices (DataParallelProgram: the shard_map split into the per-device
// step, one TrainingLoop per device, collective thunks over the host's
// in-process communicators), against JAX after 1 and 5 steps: each
// element within 1e-4 of max(|expected|, 1e-3), as models_test asks of
// one device. With the collectives in the command buffers, nothing is
// recorded or updated after step 2 on either device. Hostile input: more
// devices than the platform has.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "stream_executor/platform_manager.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/npy.h"
#include "xla_lite/training/data_parallel_program.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

std::string Dp2(const std::string& file) {
  return RunfilePath(absl::StrCat("configs/models/dp2_mlp/", file));
}

std::vector<Literal> Read(const std::string& prefix, int count) {
  std::vector<Literal> out;
  for (int i = 0; i < count; ++i) {
    auto literal = ReadNpyFile(Dp2(absl::StrCat(prefix, i, ".npy")));
    EXPECT_TRUE(literal.ok()) << literal.status();
    if (literal.ok()) out.push_back(*std::move(literal));
  }
  return out;
}

std::string FirstMismatch(const std::vector<Literal>& actual,
                          const std::vector<Literal>& expected) {
  if (actual.size() != expected.size()) return "output count";
  for (size_t o = 0; o < expected.size(); ++o) {
    for (int64_t i = 0; i < expected[o].element_count(); ++i) {
      const double a = actual[o].GetAsDouble(i), e = expected[o].GetAsDouble(i);
      if (!(std::fabs(a - e) <= 1e-4 * std::max(std::fabs(e), 1e-3))) {
        return absl::StrCat("output ", o, " element ", i, ": ", a,
                            " expected ", e);
      }
    }
  }
  return "";
}

se::Platform* Host() {
  auto platform = se::PlatformManager::PlatformWithName("host");
  EXPECT_TRUE(platform.ok());
  return platform.ok() ? *platform : nullptr;
}

TEST(DataParallelTest, Dp2MlpMatchesJaxAfterOneAndFiveStepsWithGraphs) {
  DebugOptions options = DefaultDebugOptions();
  options.add_xla_gpu_enable_command_buffer(DebugOptions::COLLECTIVES);
  auto program = DataParallelProgram::Create(Dp2("train_step.hlo"), Host(), 2,
                                             options);
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_TRUE((*program)->SetArguments(Read("input_", 8)).ok());
  ASSERT_TRUE((*program)->Steps(1).ok());
  auto step1 = (*program)->Results();
  ASSERT_TRUE(step1.ok()) << step1.status();
  EXPECT_EQ(FirstMismatch(*step1, Read("reference_step1/output_", 7)), "");
  ASSERT_TRUE((*program)->Steps(1).ok());
  gpu::ExecutionCounters after_two[2];
  for (int d = 0; d < 2; ++d) after_two[d] = (*program)->stats(d).Snapshot();
  ASSERT_TRUE((*program)->Steps(3).ok());
  auto step5 = (*program)->Results();
  ASSERT_TRUE(step5.ok()) << step5.status();
  EXPECT_EQ(FirstMismatch(*step5, Read("reference_step5/output_", 7)), "");
  for (int d = 0; d < 2; ++d) {
    const gpu::ExecutionCounters steady =
        (*program)->stats(d).Snapshot() - after_two[d];
    EXPECT_EQ(steady.command_buffer_records, 0) << "device " << d;
    EXPECT_EQ(steady.command_buffer_updates, 0) << "device " << d;
    EXPECT_GT(steady.command_buffer_launches, 0) << "device " << d;
  }
  // One group of both devices, made once for all steps.
  EXPECT_EQ((*program)->cliques().cliques_created(), 1);
}

TEST(DataParallelTest, MoreDevicesThanThePlatformHas) {
  // The host platform has two devices (a batch that does not split is
  // jax_data_parallel_test's).
  auto program = DataParallelProgram::Create(Dp2("train_step.hlo"), Host(), 3,
                                             DefaultDebugOptions());
  ASSERT_FALSE(program.ok());
  EXPECT_THAT(program.status().message(), HasSubstr("--devices=3"));
}

}  // namespace
}  // namespace xla_lite
