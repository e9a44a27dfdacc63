// Buffer assignment: temp packing by liveness, and where results live
// (their own allocation, or the parameter they alias).

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/command_dependencies.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/service/buffer_assignment.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/gemm_workspaces.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::BufferUse;
using gpu::PackTemps;
using gpu::TempPacking;
using gpu::TempValue;
using gpu::Thunk;

bool RangesOverlap(int64_t a, int64_t a_size, int64_t b, int64_t b_size) {
  return a_size > 0 && b_size > 0 && a < b + b_size && b < a + a_size;
}

// Values live at the same time never share a byte.
void ExpectNoConflicts(const std::vector<TempValue>& values,
                       const TempPacking& packing) {
  for (int i = 0; i < values.size(); ++i) {
    EXPECT_EQ(packing.offsets[i] % 64, 0) << "value " << i;
    EXPECT_LE(packing.offsets[i] + values[i].size, packing.size);
    for (int j = i + 1; j < values.size(); ++j) {
      bool live_together = values[i].start <= values[j].end &&
                           values[j].start <= values[i].end;
      if (!live_together) continue;
      EXPECT_FALSE(RangesOverlap(packing.offsets[i], values[i].size,
                                 packing.offsets[j], values[j].size))
          << "values " << i << " and " << j << " are live together";
    }
  }
}

TEST(PackTempsTest, DisjointLiveRangesShareSpace) {
  std::vector<TempValue> values = {{1000, 0, 1}, {800, 2, 3}, {600, 4, 5}};
  TempPacking packing = PackTemps(values);
  ExpectNoConflicts(values, packing);
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(packing.size, 1024);
}

TEST(PackTempsTest, OverlappingLiveRangesNeverShare) {
  // Each value is live when the next is written (a chain of ops).
  std::vector<TempValue> values = {{100, 0, 1}, {100, 1, 2}, {100, 2, 3}};
  TempPacking packing = PackTemps(values);
  ExpectNoConflicts(values, packing);
  EXPECT_NE(packing.offsets[0], packing.offsets[1]);
  EXPECT_NE(packing.offsets[1], packing.offsets[2]);
  // The first and the last are never live together: they share.
  EXPECT_EQ(packing.offsets[0], packing.offsets[2]);
}

TEST(PackTempsTest, BestFitPicksTheSmallestGapThatFits) {
  // While value 3 is live, values 0 (at 0..2047) and 2 (past a 512-byte and
  // a 4096-byte gap) are too; the 512-byte value takes the small gap.
  std::vector<TempValue> values = {
      {2048, 0, 10}, {512, 0, 1}, {4096, 0, 1}, {1024, 0, 10}, {448, 5, 6}};
  TempPacking packing = PackTemps(values);
  ExpectNoConflicts(values, packing);
  // Value 4 fits in the space values 1 and 2 left (dead by op 5); best fit
  // takes the smaller of the gaps it fits in.
  std::vector<std::pair<int64_t, int64_t>> live_at_5;
  for (int i : {0, 3}) live_at_5.push_back({packing.offsets[i], values[i].size});
  for (auto [offset, size] : live_at_5) {
    EXPECT_FALSE(RangesOverlap(packing.offsets[4], 448, offset, size));
  }
  EXPECT_LT(packing.offsets[4] + 448, packing.size);
}

TEST(PackTempsTest, RandomValuesNeverConflict) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<TempValue> values;
    int64_t total = 0;
    for (int i = 0; i < 40; ++i) {
      int64_t start = rng() % 30;
      int64_t size = (rng() % 5 == 0) ? 0 : 1 + rng() % 5000;
      values.push_back({size, start, start + static_cast<int64_t>(rng() % 8)});
      total += (size + 63) / 64 * 64;
    }
    TempPacking packing = PackTemps(values);
    ExpectNoConflicts(values, packing);
    EXPECT_LE(packing.size, total);
  }
}

// Checks, on the thunks of a compiled program, that a value written into a
// slice is not overwritten by anything else before its last reader.
void ExpectNoClobberedValues(const gpu::GpuExecutable& executable) {
  std::vector<const Thunk*> thunks = FlatThunks(executable);
  std::vector<gpu::BufferUses> uses;
  for (const Thunk* thunk : thunks) uses.push_back(thunk->buffer_uses());
  auto reads = [&](int k, const BufferAllocation::Slice& s) {
    for (const BufferUse& use : uses[k]) {
      if (use.access == BufferUse::Access::kRead && use.slice == s) return true;
    }
    return false;
  };
  for (int i = 0; i < thunks.size(); ++i) {
    for (const BufferUse& write : uses[i]) {
      if (write.access != BufferUse::Access::kWrite) continue;
      int last = i;
      for (int j = i + 1; j < thunks.size(); ++j) {
        if (reads(j, write.slice)) last = j;
        bool rewrites = false;
        for (const BufferUse& use : uses[j]) {
          rewrites |= use.access == BufferUse::Access::kWrite &&
                      use.slice == write.slice;
        }
        if (rewrites) break;
      }
      for (int k = i + 1; k <= last; ++k) {
        for (const BufferUse& other : uses[k]) {
          if (other.access != BufferUse::Access::kWrite ||
              !other.slice.OverlapsWith(write.slice)) {
            continue;
          }
          bool in_place = other.slice == write.slice && reads(k, write.slice);
          EXPECT_TRUE(in_place && k == last)
              << thunks[k]->name() << " writes " << other.slice.ToString()
              << " while " << thunks[i]->name() << "'s value in "
              << write.slice.ToString() << " is still read by "
              << thunks[last]->name();
        }
      }
    }
  }
}

// What the thunk computing `name` writes (a reduce kernel with an epilogue
// is named "<reduce>+<epilogue>").
BufferAllocation::Slice WrittenSlice(const gpu::GpuExecutable& executable,
                                     const std::string& name) {
  for (const Thunk* thunk : FlatThunks(executable)) {
    if (thunk->name() != name &&
        !absl::EndsWith(thunk->name(), absl::StrCat("+", name))) {
      continue;
    }
    for (const BufferUse& use : thunk->buffer_uses()) {
      if (use.access == BufferUse::Access::kWrite) return use.slice;
    }
  }
  ADD_FAILURE() << "no thunk " << name << " writes anything";
  return BufferAllocation::Slice();
}

using BufferAssignmentTest = CompilerTest;

// e1 is dead once d1 is computed, so e2 can take its place; d1 is read
// while e2 is written, so those two must not share.
constexpr char kChain[] = R"(
HloModule chain

ENTRY main {
  x = f32[32,32] parameter(0)
  w = f32[32,32] parameter(1)
  e1 = f32[32,32] exponential(x)
  d1 = f32[32,32] dot(e1, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e2 = f32[32,32] tanh(d1)
  d2 = f32[32,32] dot(e2, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e3 = f32[32,32] sine(d2)
  d3 = f32[32,32] dot(e3, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[32,32] negate(d3)
})";

TEST_P(BufferAssignmentTest, TempsReuseSpaceOnlyWhenLiveRangesAreDisjoint) {
  ExpectMatchesEvaluator(kChain, 0, 0.1);
  auto executable = Compile(kChain);
  ASSERT_TRUE(executable.ok()) << executable.status();
  ExpectNoClobberedValues(**executable);
  BufferAllocation::Slice e1 = WrittenSlice(**executable, "e1");
  BufferAllocation::Slice d1 = WrittenSlice(**executable, "d1");
  BufferAllocation::Slice e2 = WrittenSlice(**executable, "e2");
  EXPECT_EQ(e1, e2) << "e1 is dead when e2 is written";
  EXPECT_FALSE(d1.OverlapsWith(e2));
  EXPECT_FALSE(d1.OverlapsWith(e1));
  // Six 4 KiB temps, at most two live at once; the gemms' workspaces,
  // where the platform's library takes them, lie in an allocation of their
  // own.
  int small = 0, temps = 0;
  for (const BufferAllocation& allocation : (*executable)->allocations()) {
    if (!allocation.is_temp()) continue;
    ++temps;
    if (allocation.size() <= 2 * 4096) ++small;
  }
  EXPECT_EQ(small, 1);
  EXPECT_EQ(temps, executor_->GemmWorkspaceBytes() > 0 ? 2 : 1);
}

// Two chains of two gemms from the same parameters, as long as each
// other, that meet in a last gemm. In op order (a1, a2, b1, b2, r) a1 is
// dead when b1 is written, but b1 must not take its bytes: b1 would then
// wait for a2, which reads a1, and the chains would run one after the
// other in a command buffer.
constexpr char kTwoChains[] = R"(
HloModule two_chains

ENTRY main {
  x = f32[64,64] parameter(0)
  w = f32[64,64] parameter(1)
  a1 = f32[64,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a2 = f32[64,64] dot(a1, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b1 = f32[64,64] dot(w, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b2 = f32[64,64] dot(b1, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[64,64] dot(a2, b2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

TEST_P(BufferAssignmentTest, ChainsOfTheLongestPathNeverWaitForEachOther) {
  ExpectMatchesEvaluator(kTwoChains, 0, 0.1);
  auto executable = Compile(kTwoChains);
  ASSERT_TRUE(executable.ok()) << executable.status();
  ExpectNoClobberedValues(**executable);
  // What each thunk waits for in a command buffer, directly or not.
  std::vector<const Thunk*> thunks = FlatThunks(**executable);
  gpu::CommandDependencies tracker;
  std::vector<absl::flat_hash_set<std::string>> after(thunks.size());
  for (int i = 0; i < thunks.size(); ++i) {
    gpu::BufferUses uses = thunks[i]->buffer_uses();
    for (int64_t d : tracker.DependenciesOf(uses)) {
      after[i].insert(after[d].begin(), after[d].end());
      after[i].insert(std::string(thunks[d]->name()));
    }
    tracker.Add(i, uses);
  }
  auto waits = [&](const std::string& later, const std::string& earlier) {
    for (int i = 0; i < thunks.size(); ++i) {
      if (thunks[i]->name() == later) return after[i].contains(earlier);
    }
    ADD_FAILURE() << "no thunk " << later;
    return false;
  };
  EXPECT_TRUE(waits("a2", "a1"));
  EXPECT_TRUE(waits("b2", "b1"));
  for (const char* a : {"a1", "a2"}) {
    for (const char* b : {"b1", "b2"}) {
      EXPECT_FALSE(waits(b, a)) << b << " waits for " << a;
      EXPECT_FALSE(waits(a, b)) << a << " waits for " << b;
    }
  }
}

// 16 chains of three 128x128 gemms, as long as each other, each summed to
// a row. Every chain lies on the longest path, so packed for it no chain
// could share bytes with another: 32 values of 64 KiB where by live range
// a few suffice. Past kMaxOrderedTempGrowth the packing is by live range.
TEST_P(BufferAssignmentTest, ManyEqualChainsArePackedByLiveRange) {
  std::string hlo = absl::StrCat("HloModule many_chains\n", kAddComputation,
                                 "\nENTRY main {\n"
                                 "  x = f32[128,128] parameter(0)\n"
                                 "  w = f32[128,128] parameter(1)\n"
                                 "  zero = f32[] constant(0)\n");
  std::string sum;
  for (int c = 0; c < 16; ++c) {
    const std::string in = absl::StrCat("s", c);
    absl::StrAppend(&hlo, "  ", in, " = f32[128,128] sine(x)\n");
    std::string previous = in;
    for (int g = 1; g <= 3; ++g) {
      const std::string name = absl::StrCat("c", c, "g", g);
      absl::StrAppend(&hlo, "  ", name, " = f32[128,128] dot(", previous,
                      ", w), lhs_contracting_dims={1}, "
                      "rhs_contracting_dims={0}\n");
      previous = name;
    }
    absl::StrAppend(&hlo, "  r", c, " = f32[128] reduce(", previous,
                    ", zero), dimensions={0}, to_apply=add\n");
    sum = c == 0 ? "r0" : absl::StrCat("t", c);
    if (c > 0) {
      absl::StrAppend(&hlo, "  ", sum, " = f32[128] add(",
                      c == 1 ? "r0" : absl::StrCat("t", c - 1), ", r", c,
                      ")\n");
    }
  }
  absl::StrAppend(&hlo, "  ROOT out = f32[128] negate(", sum, ")\n}\n");
  ExpectMatchesEvaluator(hlo, 0, 0.1);
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  ExpectNoClobberedValues(**executable);
  // The values' allocation; the gemm workspaces', where the platform's
  // library takes them, comes last.
  const auto& allocations = (*executable)->allocations();
  int64_t temp_bytes = 0;
  for (int i = 0; i < allocations.size(); ++i) {
    const bool workspaces =
        executor_->GemmWorkspaceBytes() > 0 && i + 1 == allocations.size();
    if (allocations[i].is_temp() && !workspaces) {
      temp_bytes += allocations[i].size();
    }
  }
  EXPECT_LE(temp_bytes, 8 * 65536) << "the chains' values share bytes";
}

// `n` independent dots of one lhs whose sum feeds a last dot, or, with
// `dead_ends`, n dots whose sum is the result.
std::string IndependentDots(int n, bool dead_ends = false) {
  std::string hlo =
      "HloModule independent\n\nENTRY main {\n  a = f32[32,32] parameter(0)\n"
      "  b = f32[32,32] parameter(1)\n";
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&hlo, "  s", i, " = f32[32,32] sine(b)\n", "  d", i,
                    " = f32[32,32] dot(a, s", i,
                    "), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n");
    absl::StrAppend(&hlo, "  t", i, " = f32[32,32] ",
                    i == 0 ? "negate(d0)"
                           : absl::StrCat("add(t", i - 1, ", d", i, ")"),
                    "\n");
  }
  if (dead_ends) {
    absl::StrAppend(&hlo, "  ROOT r = f32[32,32] negate(t", n - 1, ")\n}\n");
  } else {
    absl::StrAppend(&hlo, "  ROOT r = f32[32,32] dot(t", n - 1,
                    ", b), lhs_contracting_dims={1}, "
                    "rhs_contracting_dims={0}\n}\n");
  }
  return hlo;
}

// The workspace buffer of each library gemm of `hlo`'s plan, in order.
struct PlannedWorkspaces {
  std::vector<int> of_gemm;
  std::unique_ptr<gpu::ExecutionPlan> plan;
};
PlannedWorkspaces PlanWorkspaces(const std::string& hlo, int64_t bytes) {
  PlannedWorkspaces planned;
  auto module = Parse(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return planned;
  EXPECT_TRUE(RunHloPasses(module->get()).ok());
  const gpu::KernelEmission emission =
      KernelEmissionFor(OpByOpOptions(), /*blas=*/true, /*dnn=*/false, bytes);
  auto plan = gpu::BuildExecutionPlan(**module, emission);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return planned;
  for (const gpu::PlannedOp& op : plan->ops) {
    if (!gpu::IsLibraryGemm(op, emission.gemm)) continue;
    EXPECT_EQ(op.writes.size(), bytes > 0 ? 2 : 1) << op.ToString();
    if (op.writes.size() < 2) continue;
    planned.of_gemm.push_back(op.writes[1]);
    EXPECT_EQ(plan->buffers[op.writes[1]].size, bytes);
  }
  planned.plan = std::make_unique<gpu::ExecutionPlan>(*std::move(plan));
  return planned;
}

int Distinct(const std::vector<int>& values) {
  return absl::flat_hash_set<int>(values.begin(), values.end()).size();
}

// Each library gemm writes a workspace, shared only with gemms it depends
// on: a chain of gemms shares one; independent gemms (which a command
// buffer may run at once) each have their own, up to kMaxGemmWorkspaces,
// and a gemm that needs them all shares one with them. Every workspace
// lies apart from every other. A library that needs no workspace gets
// none.
TEST(GemmWorkspaceTest, GemmsThatMayOverlapNeverShareAWorkspace) {
  constexpr int64_t kBytes = int64_t{1} << 20;
  PlannedWorkspaces chain = PlanWorkspaces(kChain, kBytes);
  ASSERT_EQ(chain.of_gemm.size(), 3);
  EXPECT_EQ(Distinct(chain.of_gemm), 1);

  PlannedWorkspaces four = PlanWorkspaces(IndependentDots(4), kBytes);
  ASSERT_EQ(four.of_gemm.size(), 5);
  EXPECT_EQ(Distinct(four.of_gemm), 4);
  auto assignment = gpu::AssignBuffers(*four.plan, {4096, 4096});
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) {
      EXPECT_FALSE(assignment->slices[four.of_gemm[i]].OverlapsWith(
          assignment->slices[four.of_gemm[j]]))
          << "gemms " << i << " and " << j;
    }
  }

  const int many = gpu::kMaxGemmWorkspaces + 3;
  PlannedWorkspaces capped =
      PlanWorkspaces(IndependentDots(many, /*dead_ends=*/true), kBytes);
  ASSERT_EQ(capped.of_gemm.size(), many);
  EXPECT_EQ(Distinct(capped.of_gemm), gpu::kMaxGemmWorkspaces);

  EXPECT_TRUE(PlanWorkspaces(kChain, 0).of_gemm.empty());
}

TEST_P(BufferAssignmentTest, TrainingStepKeepsEveryValueUntilItsLastRead) {
  std::string hlo = ReadRunfile("tests/service/testdata/jax_mlp_train_step.hlo");
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  ExpectNoClobberedValues(**executable);
}

constexpr char kInPlace[] = R"(
HloModule in_place, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  w = f32[16,8] parameter(0)
  b = f32[8] parameter(1)
  g = f32[16,8] parameter(2)
  z = f32[] constant(0)
  colsum = f32[8] reduce(w, z), dimensions={0}, to_apply=add
  wt = f32[8,16] transpose(w), dimensions={1,0}
  rowsum = f32[8] reduce(wt, z), dimensions={1}, to_apply=add
  lr = f32[] constant(0.5)
  lrb = f32[16,8] broadcast(lr), dimensions={}
  step = f32[16,8] multiply(g, lrb)
  w2 = f32[16,8] subtract(w, step)
  b2 = f32[8] add(b, colsum)
  ROOT r = (f32[16,8], f32[8], f32[8]) tuple(w2, b2, rowsum)
})";

TEST_P(BufferAssignmentTest, AliasedResultsAreWrittenInPlaceAfterEveryRead) {
  // w is read by two reductions and rewritten; b is read and rewritten.
  ExpectMatchesEvaluator(kInPlace, -1, 1, OpByOpOptions(), /*steps=*/3);
  auto executable = Compile(kInPlace);
  ASSERT_TRUE(executable.ok()) << executable.status();
  ExpectNoClobberedValues(**executable);
  EXPECT_EQ(CountThunks(**executable, Thunk::Kind::kMemcpy), 0);
  // Results 0 and 1 live in parameters 0 and 1; result 2 in its own.
  BufferAllocation::Slice w2 = WrittenSlice(**executable, "w2");
  BufferAllocation::Slice b2 = WrittenSlice(**executable, "b2");
  auto allocations = (*executable)->allocations();
  ASSERT_TRUE(allocations[w2.index()].is_entry_parameter());
  EXPECT_EQ(allocations[w2.index()].parameter_number(), 0);
  ASSERT_TRUE(allocations[b2.index()].is_entry_parameter());
  EXPECT_EQ(allocations[b2.index()].parameter_number(), 1);
  BufferAllocation::Slice rowsum = WrittenSlice(**executable, "rowsum");
  EXPECT_EQ(allocations[rowsum.index()].kind(), BufferAllocation::Kind::kOutput);
}

TEST_P(BufferAssignmentTest, AliasedResultThatCannotBeInPlaceIsCopiedIn) {
  // Each element of r reads another element of p: computing it in place
  // would race, so it is computed aside and copied in.
  constexpr char kTransposeInPlace[] = R"(
HloModule transpose_alias, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY main {
  p = f32[6,6] parameter(0)
  t = f32[6,6] transpose(p), dimensions={1,0}
  one = f32[] constant(1)
  ob = f32[6,6] broadcast(one), dimensions={}
  r = f32[6,6] add(t, ob)
  ROOT out = (f32[6,6]) tuple(r)
})";
  ExpectMatchesEvaluator(kTransposeInPlace, -1, 1, OpByOpOptions(), 3);
  auto executable = Compile(kTransposeInPlace);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(CountThunks(**executable, Thunk::Kind::kMemcpy), 1);
  ExpectNoClobberedValues(**executable);
}

TEST_P(BufferAssignmentTest, SwappedAliasedParametersAreStaged) {
  constexpr char kSwap[] = R"(
HloModule swap, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }

ENTRY main {
  a = f32[10] parameter(0)
  b = f32[10] parameter(1)
  ROOT r = (f32[10], f32[10]) tuple(b, a)
})";
  for (int steps : {1, 2, 3}) {
    SCOPED_TRACE(absl::StrCat(steps, " steps"));
    ExpectMatchesEvaluator(kSwap, -1, 1, OpByOpOptions(), steps);
  }
}

TEST_P(BufferAssignmentTest, ParametersAndRepeatedValuesAreCopiedToResults) {
  constexpr char kCopies[] = R"(
HloModule copies

ENTRY main {
  x = f32[8] parameter(0)
  n = f32[8] negate(x)
  ROOT r = (f32[8], f32[8], f32[8]) tuple(x, n, n)
})";
  ExpectMatchesEvaluator(kCopies);
  auto executable = Compile(kCopies);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(CountThunks(**executable, Thunk::Kind::kMemcpy), 2);
  EXPECT_EQ(CountThunks(**executable, Thunk::Kind::kKernel), 1);
}

INSTANTIATE_FOR_ALL_PLATFORMS(BufferAssignmentTest);

}  // namespace
}  // namespace xla_lite::testing
