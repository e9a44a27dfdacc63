// FindLazySelects: which select sides a loop kernel computes only where
// they are taken.

#include "xla_lite/service/lazy_selects.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/hlo_opcode.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/service/elemental_lowering.h"

namespace xla_lite::testing {
namespace {

using gpu::ExprKind;
using gpu::KernelProgram;
using gpu::LazySelects;

struct Lowered {
  std::unique_ptr<HloModule> module;
  gpu::LoweredKernel kernel;
  std::vector<int> roots, closure;
};

// The entry's instructions named `roots` (default: the root) as one loop
// kernel over the entry's parameters.
Lowered Lower(const char* hlo, std::vector<std::string> roots = {}) {
  Lowered lowered;
  auto module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  lowered.module = *std::move(module);
  const HloComputation* entry = lowered.module->entry_computation();
  std::vector<const HloInstruction*> root_instructions;
  if (roots.empty()) root_instructions.push_back(entry->root_instruction());
  for (const std::string& name : roots) {
    for (const HloInstruction* instruction : entry->instructions()) {
      if (instruction->name() == name) {
        root_instructions.push_back(instruction);
      }
    }
  }
  auto kernel = gpu::LowerLoopFusion(
      root_instructions, [](const HloInstruction* instruction) {
        return instruction->opcode() == HloOpcode::kParameter;
      });
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  lowered.kernel = *std::move(kernel);
  const KernelProgram& program = *lowered.kernel.program;
  for (const auto& output : program.outputs()) {
    lowered.roots.push_back(output.op);
  }
  lowered.closure = program.Closure(lowered.roots);
  return lowered;
}

int CountLoads(const KernelProgram& program, const std::vector<int>& ids) {
  int loads = 0;
  for (int id : ids) loads += program.op(id).kind == ExprKind::kLoad;
  return loads;
}

TEST(LazySelectsTest, AConcatenateLoadsEachOperandOnlyWhereTaken) {
  Lowered l = Lower(R"(
HloModule concat3
ENTRY main {
  a = f32[4,3] parameter(0)
  b = f32[4,5] parameter(1)
  c = f32[4,2] parameter(2)
  ROOT r = f32[4,10] concatenate(a, b, c), dimensions={1}
})");
  const KernelProgram& program = *l.kernel.program;
  LazySelects lazy = gpu::FindLazySelects(program, l.closure, l.roots);
  // Two selects pick among three operands; every load sits on one side.
  ASSERT_EQ(lazy.selects.size(), 2);
  int loads = 0;
  for (const auto& [select, sides] : lazy.selects) {
    EXPECT_FALSE(sides.on_true.empty());
    EXPECT_FALSE(sides.on_false.empty());
    loads += CountLoads(program, sides.on_true) +
             CountLoads(program, sides.on_false);
  }
  EXPECT_EQ(loads, 3);
  // The outer select is the root; the inner one is on a side of it.
  int deferred_selects = 0;
  for (const auto& [select, sides] : lazy.selects) {
    deferred_selects += lazy.deferred[select];
  }
  EXPECT_EQ(deferred_selects, 1);
  EXPECT_FALSE(lazy.deferred[l.roots[0]]);
}

TEST(LazySelectsTest, ASideUsedElsewhereStaysEager) {
  // x feeds the condition too, and the other side is a constant: no side
  // holds a load only it needs.
  Lowered l = Lower(R"(
HloModule relu
ENTRY main {
  x = f32[64] parameter(0)
  zero = f32[] constant(0)
  zeros = f32[64] broadcast(zero), dimensions={}
  positive = pred[64] compare(x, zeros), direction=GT
  ROOT r = f32[64] select(positive, x, zeros)
})");
  LazySelects lazy =
      gpu::FindLazySelects(*l.kernel.program, l.closure, l.roots);
  EXPECT_TRUE(lazy.selects.empty());
  for (int id : l.closure) EXPECT_FALSE(lazy.deferred[id]) << id;
}

TEST(LazySelectsTest, AValueAnotherRootNeedsIsNotDeferred) {
  // y's load also feeds the second root: only x's side is deferred.
  Lowered l = Lower(R"(
HloModule two_roots
ENTRY main {
  p = pred[64] parameter(0)
  x = f32[64] parameter(1)
  y = f32[64] parameter(2)
  e = f32[64] exponential(x)
  s = f32[64] select(p, e, y)
  n = f32[64] negate(y)
  ROOT t = (f32[64], f32[64]) tuple(s, n)
})",
                    {"s", "n"});
  const KernelProgram& program = *l.kernel.program;
  LazySelects lazy = gpu::FindLazySelects(program, l.closure, l.roots);
  ASSERT_EQ(lazy.selects.size(), 1);
  const LazySelects::Sides& sides = lazy.selects.begin()->second;
  EXPECT_EQ(CountLoads(program, sides.on_true), 1);  // x, then exp
  EXPECT_EQ(sides.on_true.size(), 2);
  EXPECT_TRUE(sides.on_false.empty());
  int deferred_loads = 0;
  for (int id : l.closure) {
    deferred_loads +=
        lazy.deferred[id] && program.op(id).kind == ExprKind::kLoad;
  }
  EXPECT_EQ(deferred_loads, 1);
}

}  // namespace
}  // namespace xla_lite::testing
