#include "xla_lite/runtime/execution_stats.h"

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla_lite::gpu {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ExecutionCountersTest, EveryMemberIsAListedCounter) {
  absl::Span<const ExecutionCounters::Field> fields =
      ExecutionCounters::Fields();
  // A member added by hand, outside the list, would be missed by every
  // generic operation.
  EXPECT_EQ(fields.size() * sizeof(int64_t), sizeof(ExecutionCounters));
  std::set<std::string> names;
  for (const ExecutionCounters::Field& field : fields) {
    names.insert(field.name);
    EXPECT_EQ(ExecutionCounters::NameOf(field.value), field.name);
  }
  EXPECT_EQ(names.size(), fields.size());
  EXPECT_EQ(fields.front().name, std::string("executions"));
  EXPECT_EQ(
      ExecutionCounters::NameOf(&ExecutionCounters::command_buffer_traces),
      "command_buffer_traces");
}

// Gives every counter a different value, so that a counter read from or
// written to the wrong member shows.
ExecutionCounters Distinct(int64_t base) {
  ExecutionCounters counters;
  int64_t value = base;
  for (const ExecutionCounters::Field& field : ExecutionCounters::Fields()) {
    counters.*field.value = value++;
  }
  return counters;
}

TEST(ExecutionCountersTest, SnapshotAndAddCoverEveryCounter) {
  ExecutionStats stats;
  stats.Add(Distinct(100));
  ++stats.executions;
  stats.command_buffer_launches += 5;
  ExecutionCounters snapshot = stats.Snapshot();
  ExecutionCounters expected = Distinct(100);
  ++expected.executions;
  expected.command_buffer_launches += 5;
  EXPECT_EQ(snapshot.ToString(), expected.ToString());
  EXPECT_EQ(stats.ToString(), expected.ToString());
}

TEST(ExecutionCountersTest, DifferenceIsPerCounter) {
  ExecutionCounters later = Distinct(1000);
  later.stabilization_copies += 7;
  ExecutionCounters difference = later - Distinct(10);
  for (const ExecutionCounters::Field& field : ExecutionCounters::Fields()) {
    int64_t expected =
        field.value == &ExecutionCounters::stabilization_copies ? 997 : 990;
    EXPECT_EQ(difference.*field.value, expected) << field.name;
  }
}

TEST(ExecutionCountersTest, PrintsEveryCounterInListOrder) {
  ExecutionCounters counters;
  counters.executions = 2;
  counters.command_buffer_launches = 3;
  std::string text = counters.ToString();
  EXPECT_THAT(text, StartsWith("executions=2 failed_executions=0 "));
  EXPECT_THAT(text, HasSubstr(" command_buffer_launches=3"));
  std::vector<std::string> parts = absl::StrSplit(text, ' ');
  ASSERT_EQ(parts.size(), ExecutionCounters::Fields().size());
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_THAT(
        parts[i],
        StartsWith(std::string(ExecutionCounters::Fields()[i].name) + "="));
  }

  std::string json = counters.ToJson();
  EXPECT_THAT(json,
              StartsWith("{\"executions\": 2, \"failed_executions\": 0, "));
  EXPECT_THAT(json, HasSubstr("\"command_buffer_launches\": 3, "));
  EXPECT_TRUE(absl::EndsWith(
      json, absl::StrCat("\"", ExecutionCounters::Fields().back().name,
                         "\": 0}")))
      << json;
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(json, ':')).size(),
            ExecutionCounters::Fields().size() + 1);
}

// Adds from several threads, as runs on several streams do.
TEST(ExecutionCountersTest, ConcurrentAddsAllCount) {
  ExecutionStats stats;
  ExecutionCounters one;
  one.command_buffer_node_updates = 1;
  one.command_buffer_traces = 2;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) stats.Add(one);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(stats.command_buffer_node_updates.load(), 4000);
  EXPECT_EQ(stats.command_buffer_traces.load(), 8000);
  EXPECT_EQ(stats.executions.load(), 0);
}

}  // namespace
}  // namespace xla_lite::gpu
