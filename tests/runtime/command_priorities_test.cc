// CriticalCommands and EstimatedMicros: which commands of a command buffer
// launch at high priority.

#include "xla_lite/runtime/command_priorities.h"

#include <cstdint>
#include <vector>

#include "glog/logging.h"
#include "gtest/gtest.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/runtime/memset_thunk.h"
#include "xla_lite/shape.h"

namespace xla_lite::testing {
namespace {

using gpu::CriticalCommands;
using gpu::kCriticalSlack;
using Deps = std::vector<std::vector<int64_t>>;

TEST(CriticalCommandsTest, EveryCommandOfAChainIsCritical) {
  EXPECT_EQ(CriticalCommands({5, 1, 20}, Deps{{}, {0}, {1}}, kCriticalSlack),
            std::vector<bool>({true, true, true}));
}

// A diamond whose short branch has slack: the chain through the long branch
// is critical, the short branch is not.
TEST(CriticalCommandsTest, TheShortBranchOfADiamondHasSlack) {
  const Deps diamond = {{}, {0}, {0}, {1, 2}};
  EXPECT_EQ(CriticalCommands({1, 10, 1, 1}, diamond, kCriticalSlack),
            std::vector<bool>({true, true, false, true}));
  // Within the allowed slack (0.1 of 12 us is under 2%), both branches.
  EXPECT_EQ(CriticalCommands({1, 10, 9.9, 1}, diamond, kCriticalSlack),
            std::vector<bool>({true, true, true, true}));
  // A larger allowance takes in the short branch too; none, only the chain.
  EXPECT_EQ(CriticalCommands({1, 10, 5, 1}, diamond, 0.5),
            std::vector<bool>({true, true, true, true}));
  EXPECT_EQ(CriticalCommands({1, 10, 9.9, 1}, diamond, 0),
            std::vector<bool>({true, true, false, true}));
}

// A training step's shape: a long chain (input gradients) that drops side
// branches (weight gradients) which only the last command (the optimizer)
// joins. Only the side branch that starts last lies close enough to the
// longest path.
TEST(CriticalCommandsTest, SideBranchesJoiningAtTheEndHaveSlackByHowEarly) {
  //   0 -> 1 -> 2 -> 3 -> 6
  //   0 -> 4 ---------->  6 (starts early: slack)
  //             2 -> 5 -> 6 (starts late, as long as 3: no slack)
  const Deps step = {{}, {0}, {1}, {2}, {0}, {2}, {3, 4, 5}};
  EXPECT_EQ(CriticalCommands({10, 10, 10, 10, 10, 10, 1}, step, kCriticalSlack),
            std::vector<bool>({true, true, true, true, false, true, true}));
}

TEST(CriticalCommandsTest, OfTwoUnconnectedChainsOnlyTheLongerIsCritical) {
  EXPECT_EQ(CriticalCommands({3, 3, 1, 1}, Deps{{}, {0}, {}, {2}},
                             kCriticalSlack),
            std::vector<bool>({true, true, false, false}));
  EXPECT_TRUE(CriticalCommands({}, Deps{}, kCriticalSlack).empty());
}

// Estimates rank work by its size: a larger fill, a larger product.
TEST(EstimatedMicrosTest, GrowsWithBytesAndFlops) {
  gpu::BufferAllocation allocation = gpu::BufferAllocation::Temp(0, 1 << 24);
  gpu::MemsetThunk small("small", allocation.GetSlice(0, 1 << 10), uint8_t{0});
  gpu::MemsetThunk large("large", allocation.GetSlice(0, 1 << 24), uint8_t{0});
  EXPECT_GT(gpu::EstimatedMicros(large), gpu::EstimatedMicros(small));

  auto gemm = [&](int64_t n) {
    absl::StatusOr<gpu::GemmConfig> config = gpu::GemmConfig::For(
        Shape::Array(PrimitiveType::F32, {256, 256}), false,
        Shape::Array(PrimitiveType::F32, {256, n}), false,
        Shape::Array(PrimitiveType::F32, {256, n}), 1.0f, 0.0f);
    CHECK(config.ok()) << config.status();
    return gpu::GemmThunk("gemm", *config, allocation.GetSlice(0, 1 << 18),
                          allocation.GetSlice(0, 4 * 256 * n),
                          allocation.GetSlice(0, 4 * 256 * n));
  };
  // Linear in the flops (n here), whatever a launch adds: the product
  // 1024 wide is 3 widths of 256 past the one 256 wide, 512 one width.
  const double base = gpu::EstimatedMicros(gemm(256));
  EXPECT_NEAR(gpu::EstimatedMicros(gemm(1024)) - base,
              3 * (gpu::EstimatedMicros(gemm(512)) - base), 1e-6);
  EXPECT_GT(gpu::EstimatedMicros(gemm(512)), base);
}

}  // namespace
}  // namespace xla_lite::testing
