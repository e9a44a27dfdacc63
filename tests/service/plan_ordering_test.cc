// PlanOrdering: which ops of a plan a command buffer runs one after the
// other, and which lie on the longest path.

#include "xla_lite/service/plan_ordering.h"

#include <string>

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

// Two chains of gemms from one parameter that meet at the end: `a` three
// gemms long, `b` one.
constexpr char kBranches[] = R"(
HloModule branches

ENTRY main {
  x = f32[64,64] parameter(0)
  w = f32[64,64] parameter(1)
  a1 = f32[64,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a2 = f32[64,64] dot(a1, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a3 = f32[64,64] dot(a2, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b1 = f32[64,64] dot(w, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[64,64] dot(a3, b1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

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
  const ExecutionPlan plan = PlanOf(kBranches);
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
  const ExecutionPlan plan = PlanOf(kBranches);
  const PlanOrdering ordering(plan);
  for (const char* name : {"a1", "a2", "a3", "r"}) {
    EXPECT_TRUE(ordering.Critical(OpNamed(plan, name))) << name;
  }
  EXPECT_FALSE(ordering.Critical(OpNamed(plan, "b1")))
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

TEST(PlanOrderingTest, LargePlansFallBackToPositions) {
  const int n = PlanOrdering::kMaxOps + 1;
  std::vector<int> reads(n, 2), writes;
  for (int i = 0; i < n; ++i) writes.push_back(3 + i);
  const ExecutionPlan plan = CopyPlan(reads, writes, 3 + n);
  const PlanOrdering ordering(plan);
  EXPECT_FALSE(ordering.exact());
  EXPECT_TRUE(ordering.ExecutesBefore(0, n - 1));
  EXPECT_FALSE(ordering.ExecutesBefore(n - 1, 0));
  EXPECT_FALSE(ordering.Critical(0));
}

}  // namespace
}  // namespace xla_lite::testing
