// PlanOrdering: which ops of a plan a command buffer runs one after the
// other, and which lie on the longest path.

#include "xla_lite/service/plan_ordering.h"

#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/service/execution_plan.h"

namespace xla_lite::testing {
namespace {

using gpu::ExecutionPlan;
using gpu::LogicalBuffer;
using gpu::PlannedOp;
using gpu::PlanOrdering;

// Two chains of 64x64 gemms from the parameters, a1 -> ... -> a<a> and
// b1 -> ... -> b<b>, whose last values a gemm r multiplies.
std::string TwoChains(int a, int b) {
  std::string hlo =
      "HloModule chains\n\nENTRY main {\n"
      "  x = f32[64,64] parameter(0)\n  w = f32[64,64] parameter(1)\n";
  for (const auto& [chain, length, first, rhs] :
       {std::tuple{"a", a, "x, w", "w"}, std::tuple{"b", b, "w, x", "x"}}) {
    for (int i = 1; i <= length; ++i) {
      absl::StrAppend(&hlo, "  ", chain, i, " = f32[64,64] dot(",
                      i == 1 ? std::string(first)
                             : absl::StrCat(chain, i - 1, ", ", rhs),
                      "), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n");
    }
  }
  absl::StrAppend(&hlo, "  ROOT r = f32[64,64] dot(a", a, ", b", b,
                  "), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  return hlo;
}

ExecutionPlan PlanOf(const std::string& hlo) {
  auto module = Parse(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(RunHloPasses(module->get()).ok());
  auto plan = gpu::BuildExecutionPlan(
      **module, KernelEmissionFor(OpByOpOptions(), /*blas=*/true,
                                  /*dnn=*/false, /*workspace_bytes=*/0));
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *std::move(plan) : ExecutionPlan();
}

int64_t OpNamed(const ExecutionPlan& plan, const std::string& name) {
  for (int64_t i = 0; i < plan.ops.size(); ++i) {
    if (plan.ops[i].name == name) return i;
  }
  ADD_FAILURE() << "no op " << name << " in\n" << plan.ToString();
  return 0;
}

TEST(PlanOrderingTest, OrdersOpsAlongTheirValuesOnly) {
  const ExecutionPlan plan = PlanOf(TwoChains(3, 1));
  const PlanOrdering ordering(plan);
  ASSERT_TRUE(ordering.exact());
  const int64_t a1 = OpNamed(plan, "a1"), a2 = OpNamed(plan, "a2"),
                a3 = OpNamed(plan, "a3"), b1 = OpNamed(plan, "b1"),
                r = OpNamed(plan, "r");
  EXPECT_TRUE(ordering.ExecutesBefore(a1, a2));
  EXPECT_TRUE(ordering.ExecutesBefore(a1, a3)) << "through a2";
  EXPECT_TRUE(ordering.ExecutesBefore(b1, r));
  EXPECT_FALSE(ordering.ExecutesBefore(a3, a1));
  for (int64_t a : {a1, a2, a3}) {
    EXPECT_FALSE(ordering.ExecutesBefore(a, b1)) << plan.ops[a].name;
    EXPECT_FALSE(ordering.ExecutesBefore(b1, a)) << plan.ops[a].name;
  }
}

TEST(PlanOrderingTest, TheLongerChainIsCritical) {
  const ExecutionPlan plan = PlanOf(TwoChains(3, 1));
  const PlanOrdering ordering(plan);
  for (const char* name : {"a1", "a2", "a3", "r"}) {
    EXPECT_TRUE(ordering.Protected(OpNamed(plan, name))) << name;
  }
  EXPECT_FALSE(ordering.Protected(OpNamed(plan, "b1")))
      << "b1 can run any time before r";
}

// A plan of `ops` copies, op i reading buffer `reads[i]` and writing
// buffer `writes[i]`; buffers 0 and 1 are parameter 0's (its value and a
// result aliased to it), the rest temps.
ExecutionPlan CopyPlan(const std::vector<int>& reads,
                       const std::vector<int>& writes, int buffers) {
  ExecutionPlan plan;
  plan.name = "copies";
  for (int b = 0; b < buffers; ++b) {
    LogicalBuffer buffer;
    buffer.id = b;
    buffer.size = 64;
    if (b < 2) {
      buffer.placement = LogicalBuffer::Placement::kParameter;
      buffer.number = 0;
    }
    plan.buffers.push_back(buffer);
  }
  for (int i = 0; i < reads.size(); ++i) {
    PlannedOp op;
    op.kind = PlannedOp::Kind::kCopy;
    op.reads = {reads[i]};
    op.writes = {writes[i]};
    plan.ops.push_back(op);
  }
  return plan;
}

TEST(PlanOrderingTest, AWriteWaitsForEarlierReadsOfTheSameBytes) {
  // op 0 reads the parameter into temp 2; op 1 reads temp 3 into the
  // result aliased to the parameter: one slice, so op 1 waits for op 0.
  // op 2 reads temp 3 into temp 4: nothing orders it after op 0 or 1.
  const ExecutionPlan plan = CopyPlan({0, 3, 3}, {2, 1, 4}, 5);
  const PlanOrdering ordering(plan);
  EXPECT_TRUE(ordering.ExecutesBefore(0, 1));
  EXPECT_FALSE(ordering.ExecutesBefore(0, 2));
  EXPECT_FALSE(ordering.ExecutesBefore(1, 2));
}

TEST(PlanOrderingTest, LargePlansOrderAndProtectNothing) {
  const int n = PlanOrdering::kMaxOps + 1;
  std::vector<int> reads(n, 2), writes;
  for (int i = 0; i < n; ++i) writes.push_back(3 + i);
  const ExecutionPlan plan = CopyPlan(reads, writes, 3 + n);
  PlanOrdering ordering(plan);
  EXPECT_FALSE(ordering.exact());
  EXPECT_FALSE(ordering.ExecutesBefore(0, n - 1));
  EXPECT_FALSE(ordering.Protected(0));
  ordering.Protect(0);
  EXPECT_FALSE(ordering.Protected(0));
}

TEST(PlanOrderingTest, EmptyBuffersOrderNothing) {
  // op 0 writes an empty buffer 2 that op 1 reads: no bytes, no order.
  ExecutionPlan plan = CopyPlan({0, 2}, {2, 3}, 4);
  plan.buffers[2].size = 0;
  const PlanOrdering ordering(plan);
  EXPECT_FALSE(ordering.ExecutesBefore(0, 1));
}

// a1 -> a2 -> a3 and b1, then r. b1 has the slack of two gemms: it may
// wait for a2 (b1 taking bytes a2 read) at no cost, but waiting for a3
// makes a path of four gemms and r.
TEST(PlanOrderingTest, NamesTheOpsWhoseWaitsLengthenTheLongestPath) {
  const ExecutionPlan plan = PlanOf(TwoChains(3, 1));
  PlanOrdering ordering(plan);
  const int64_t a2 = OpNamed(plan, "a2"), a3 = OpNamed(plan, "a3"),
                b1 = OpNamed(plan, "b1");
  ASSERT_FALSE(ordering.Protected(b1));
  EXPECT_TRUE(ordering.DelayedOnLongestPath({}).empty());
  EXPECT_TRUE(ordering.DelayedOnLongestPath({{a2, a3}}).empty())
      << "an edge the plan has already";
  EXPECT_TRUE(ordering.DelayedOnLongestPath({{a2, b1}}).empty())
      << "within b1's slack";
  EXPECT_EQ(ordering.DelayedOnLongestPath({{a3, b1}}),
            std::vector<int64_t>{b1});
  ordering.Protect(b1);
  EXPECT_TRUE(ordering.Protected(b1));
  EXPECT_TRUE(ordering.DelayedOnLongestPath({{a3, b1}}).empty())
      << "b1 is protected: packing keeps it from waiting";
}

}  // namespace
}  // namespace xla_lite::testing
