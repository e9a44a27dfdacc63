// CommandDependencies: the edges a command buffer gets from buffer uses.

#include "xla_lite/runtime/command_dependencies.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::BufferUse;
using gpu::BufferUses;
using gpu::CommandDependencies;
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

}  // namespace
}  // namespace xla_lite::testing
