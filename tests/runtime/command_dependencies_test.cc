// CommandDependencies: the edges a command buffer gets from buffer uses.

#include "xla_lite/runtime/command_dependencies.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::BufferUse;
using gpu::BufferUses;
using gpu::CommandDependencies;
using gpu::DropImpliedDependencies;
using Deps = std::vector<int64_t>;

class CommandDependenciesTest : public ::testing::Test {
 protected:
  // Adds the next command and returns what it waits for.
  Deps Next(const BufferUses& uses) {
    Deps deps = tracker_.DependenciesOf(uses);
    tracker_.Add(next_++, uses);
    return deps;
  }

  BufferAllocation a_ = BufferAllocation::Temp(0, 1024);
  BufferAllocation b_ = BufferAllocation::Temp(1, 1024);
  CommandDependencies tracker_;
  int64_t next_ = 0;
};

TEST_F(CommandDependenciesTest, ReadAfterWriteAndWriteAfterRead) {
  auto all = a_.GetSlice();
  EXPECT_EQ(Next({BufferUse::Write(all)}), Deps{});           // 0
  EXPECT_EQ(Next({BufferUse::Read(all)}), Deps{0});           // 1
  EXPECT_EQ(Next({BufferUse::Read(all)}), Deps{0});           // 2
  EXPECT_EQ(Next({BufferUse::Write(all)}), (Deps{0, 1, 2}));  // 3
  // The write covered everything before it: only 3 is left to wait for.
  EXPECT_EQ(Next({BufferUse::Write(all)}), Deps{3});          // 4
  EXPECT_EQ(Next({BufferUse::Read(b_.GetSlice())}), Deps{});  // 5
}

TEST_F(CommandDependenciesTest, OnlyOverlappingSlicesConflict) {
  EXPECT_EQ(Next({BufferUse::Write(a_.GetSlice(0, 256))}), Deps{});    // 0
  EXPECT_EQ(Next({BufferUse::Write(a_.GetSlice(256, 256))}), Deps{});  // 1
  EXPECT_EQ(Next({BufferUse::Read(a_.GetSlice(128, 256))}), (Deps{0, 1}));
  EXPECT_EQ(Next({BufferUse::Write(a_.GetSlice(512, 512))}), Deps{});  // 3
  EXPECT_EQ(Next({BufferUse::Write(b_.GetSlice(0, 256))}), Deps{});    // 4
}

TEST_F(CommandDependenciesTest, PartialOverwriteKeepsOlderAccesses) {
  EXPECT_EQ(Next({BufferUse::Write(a_.GetSlice(0, 512))}), Deps{});  // 0
  // Covers only half of 0's write, so 0 stays a writer of [256, 512).
  EXPECT_EQ(Next({BufferUse::Write(a_.GetSlice(0, 256))}), Deps{0});  // 1
  EXPECT_EQ(Next({BufferUse::Read(a_.GetSlice(128, 256))}), (Deps{0, 1}));
}

TEST_F(CommandDependenciesTest, ReadModifyWriteOrdersBothWays) {
  auto all = a_.GetSlice();
  EXPECT_EQ(Next({BufferUse::Read(all), BufferUse::Write(all)}), Deps{});
  EXPECT_EQ(Next({BufferUse::Read(all)}), Deps{0});
  EXPECT_EQ(Next({BufferUse::Read(all), BufferUse::Write(all)}), (Deps{0, 1}));
}

TEST_F(CommandDependenciesTest, EmptySlicesOrderNothing) {
  EXPECT_EQ(Next({BufferUse::Write(a_.GetSlice(0, 0))}), Deps{});
  EXPECT_EQ(Next({BufferUse::Write(a_.GetSlice())}), Deps{});
  EXPECT_EQ(Next({BufferUse::Read(a_.GetSlice(8, 0))}), Deps{});
}

// Per command, every command it waits for, directly or through others.
std::vector<std::vector<bool>> Closure(const std::vector<Deps>& deps) {
  std::vector<std::vector<bool>> before(deps.size(),
                                        std::vector<bool>(deps.size()));
  for (int i = 0; i < deps.size(); ++i) {
    for (int64_t d : deps[i]) {
      before[i][d] = true;
      for (int k = 0; k < d; ++k) before[i][k] = before[i][k] || before[d][k];
    }
  }
  return before;
}

TEST(DropImpliedDependenciesTest, DropsEdgesALongerPathImplies) {
  // 0 -> 1 -> 2 and 0 -> 2: the direct edge adds nothing. 3 waits for 1
  // and 2, and 2 waits for 1: only 2 is left.
  std::vector<Deps> deps = {{}, {0}, {0, 1}, {1, 2}};
  EXPECT_EQ(DropImpliedDependencies(deps), 2);
  EXPECT_EQ(deps, (std::vector<Deps>{{}, {0}, {1}, {2}}));
}

TEST(DropImpliedDependenciesTest, KeepsEdgesNoOtherPathImplies) {
  // A diamond: 3 waits for both sides, neither of which implies the
  // other. 4's edge from 0 is implied through 3; 5's edge from 2 is not.
  std::vector<Deps> deps = {{}, {0}, {0}, {1, 2}, {0, 3}, {2}};
  EXPECT_EQ(DropImpliedDependencies(deps), 1);
  EXPECT_EQ(deps, (std::vector<Deps>{{}, {0}, {0}, {1, 2}, {3}, {2}}));
}

TEST(DropImpliedDependenciesTest, RandomGraphsKeepTheirOrderWithNoImpliedEdge) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 2 + rng() % 150;
    std::vector<Deps> deps(n);
    for (int i = 1; i < n; ++i) {
      for (int d = 0; d < i; ++d) {
        if (rng() % 8 == 0) deps[i].push_back(d);
      }
    }
    std::vector<Deps> reduced = deps;
    const int64_t dropped = DropImpliedDependencies(reduced);
    int64_t edges = 0;
    for (int i = 0; i < n; ++i) edges += deps[i].size() - reduced[i].size();
    EXPECT_EQ(dropped, edges) << "trial " << trial;
    EXPECT_EQ(Closure(reduced), Closure(deps)) << "trial " << trial;
    std::vector<std::vector<bool>> before = Closure(reduced);
    for (int i = 0; i < n; ++i) {
      for (int64_t d : reduced[i]) {
        for (int64_t other : reduced[i]) {
          EXPECT_FALSE(other != d && before[other][d])
              << "trial " << trial << ": " << i << " waits for " << d
              << " through " << other;
        }
      }
    }
  }
}

TEST(DropImpliedDependenciesTest, LongSequencesKeepEveryEdge) {
  std::vector<Deps> deps(gpu::kMaxReducedCommands + 1);
  deps[1] = {0};
  deps[2] = {0, 1};
  const std::vector<Deps> original = deps;
  EXPECT_EQ(DropImpliedDependencies(deps), 0);
  EXPECT_EQ(deps, original);
}

TEST(FindLongestPathTest, FollowsTheLongestChainOfDependencies) {
  // 0 -> 1 -> 3 takes 1 + 5 + 1; 0 -> 2 -> 3 takes 1 + 2 + 1; 4 alone 6.
  const gpu::LongestPath path = gpu::FindLongestPath(
      {1, 5, 2, 1, 6}, {{}, {0}, {0}, {1, 2}, {}});
  EXPECT_EQ(path.micros, 7);
  EXPECT_EQ(path.commands, (std::vector<int64_t>{0, 1, 3}));
  EXPECT_TRUE(gpu::FindLongestPath({}, {}).commands.empty());
}

}  // namespace
}  // namespace xla_lite::testing
