// gather (a fused, data-dependent index) and scatter (a kernel of its own)
// in the forms JAX emits, on every platform, against the HloEvaluator:
// embedding lookups and their gradients with repeated indices,
// take_along_axis with batching dimensions, index_vector_dim equal to the
// rank, windows with several start dimensions, and indices out of range
// (clamped by gather, dropped by scatter).

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"

namespace xla_lite::testing {
namespace {

class GatherScatterTest : public CompilerTest {
 protected:
  // Runs `hlo` with random floats in [-1, 1) and, for parameter p of
  // `indices`, those values; the results must equal the evaluator's.
  void ExpectMatches(
      const std::string& hlo,
      const std::vector<std::pair<int, std::vector<int64_t>>>& indices,
      double tolerance = kRelativeTolerance) {
    auto module = Parse(hlo);
    ASSERT_TRUE(module.ok()) << module.status();
    std::mt19937 rng(7);
    std::vector<Literal> arguments = RandomArguments(**module, rng);
    for (const auto& [parameter, values] : indices) {
      Literal& literal = arguments.at(parameter);
      ASSERT_EQ(literal.element_count(), values.size()) << parameter;
      for (int64_t i = 0; i < values.size(); ++i) {
        literal.SetFromInt64(i, values[i]);
      }
    }
    auto expected = Evaluate(hlo, arguments);
    ASSERT_TRUE(expected.ok()) << expected.status();
    auto actual = CompileAndRun(hlo, arguments);
    ASSERT_TRUE(actual.ok()) << actual.status();
    ASSERT_EQ(actual->size(), expected->size());
    for (int i = 0; i < expected->size(); ++i) {
      absl::Status same =
          CompareLiterals((*actual)[i], (*expected)[i], tolerance);
      EXPECT_TRUE(same.ok()) << "result " << i << ": " << same;
    }
  }
};

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
)";

TEST_P(GatherScatterTest, EmbeddingGatherClampsOutOfRangeIds) {
  // ids s32[3,4,1] into a table of 10 rows: repeats, -3 and 12 (clamped to
  // rows 0 and 9), with an elementwise consumer fused behind the gather.
  ExpectMatches(R"(
HloModule embedding

ENTRY main {
  table = f32[10,6] parameter(0)
  ids = s32[3,4,1] parameter(1)
  pos = f32[3,4,6] parameter(2)
  g = f32[3,4,6] gather(table, ids), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,6}
  ROOT r = f32[3,4,6] add(g, pos)
})",
                {{1, {0, 3, 3, 9, -3, 12, 5, 5, 1, 2, 100, -100}}});
}

TEST_P(GatherScatterTest, IndexVectorDimEqualToRank) {
  ExpectMatches(R"(
HloModule implicit_index_vector

ENTRY main {
  table = f32[8,3] parameter(0)
  ids = s32[5] parameter(1)
  ROOT g = f32[5,3] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
})",
                {{1, {7, 0, 7, -1, 8}}});
}

TEST_P(GatherScatterTest, TakeAlongAxisWithBatchingDims) {
  // The cross-entropy loss's form: per (batch, position) one logit.
  ExpectMatches(R"(
HloModule take_along_axis

ENTRY main {
  logits = f32[2,3,5] parameter(0)
  targets = s32[2,3,1,1] parameter(1)
  g = f32[2,3,1] gather(logits, targets), offset_dims={}, collapsed_slice_dims={2}, start_index_map={2}, operand_batching_dims={0,1}, start_indices_batching_dims={0,1}, index_vector_dim=3, slice_sizes={1,1,1}
  ROOT e = f32[2,3,1] exponential(g)
})",
                {{1, {4, 0, 2, 2, -7, 5}}});
}

TEST_P(GatherScatterTest, WindowsWithSeveralStartDims) {
  // dynamic_slice-like windows of 2x3 from starts (row, column), clamped
  // so each window fits.
  ExpectMatches(R"(
HloModule windows

ENTRY main {
  x = f32[6,7] parameter(0)
  starts = s32[4,2] parameter(1)
  ROOT g = f32[4,2,3] gather(x, starts), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3}
})",
                {{1, {0, 0, 5, 6, -2, 3, 2, -9}}});
}

TEST_P(GatherScatterTest, GatherOfAFusedOperandAndFusedIndices) {
  // Neither the operand (an exponential) nor the indices (a clamp of
  // a broadcast) get a buffer: both are computed at the gathered index.
  ExpectMatches(R"(
HloModule fused_operand

ENTRY main {
  x = f32[6,4] parameter(0)
  id = s32[3] parameter(1)
  e = f32[6,4] exponential(x)
  b = s32[3,2] broadcast(id), dimensions={0}
  lo = s32[] constant(0)
  hi = s32[] constant(4)
  lo_b = s32[3,2] broadcast(lo), dimensions={}
  hi_b = s32[3,2] broadcast(hi), dimensions={}
  c = s32[3,2] clamp(lo_b, b, hi_b)
  r = s32[3,2,1] reshape(c)
  ROOT g = f32[3,2,4] gather(e, r), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,4}
})",
                {{1, {5, -1, 2}}});
}

TEST_P(GatherScatterTest, ScatterAddWithRepeatedAndOutOfRangeIds) {
  // The embedding gradient: rows 3 and 1 receive several updates, -1 and
  // 8 are dropped; the result feeds a fused consumer.
  ExpectMatches(absl::StrCat(R"(
HloModule embedding_grad
)",
                             kAdd, R"(
ENTRY main {
  ids = s32[2,4,1] parameter(0)
  grads = f32[2,4,5] parameter(1)
  w = f32[8,5] parameter(2)
  zero = f32[] constant(0)
  init = f32[8,5] broadcast(zero), dimensions={}
  s = f32[8,5] scatter(init, ids, grads), update_window_dims={2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=2, to_apply=add
  ROOT m = f32[8,5] multiply(s, w)
})"),
                {{0, {3, 1, 3, -1, 8, 3, 1, 7}}});
}

TEST_P(GatherScatterTest, ScatterAddWithBatchingDims) {
  // The cross-entropy gradient: one-hot rows built by scatter.
  ExpectMatches(absl::StrCat(R"(
HloModule one_hot
)",
                             kAdd, R"(
ENTRY main {
  targets = s32[2,3,1,1] parameter(0)
  updates = f32[2,3,1] parameter(1)
  zero = f32[] constant(0)
  init = f32[2,3,5] broadcast(zero), dimensions={}
  ROOT s = f32[2,3,5] scatter(init, targets, updates), update_window_dims={}, inserted_window_dims={2}, scatter_dims_to_operand_dims={2}, input_batching_dims={0,1}, scatter_indices_batching_dims={0,1}, index_vector_dim=3, to_apply=add
})"),
                {{0, {4, 0, 2, 5, -1, 1}}});
}

TEST_P(GatherScatterTest, ScatterMaxIntoAParameter) {
  // The operand is a parameter: copied into the result, then combined.
  ExpectMatches(R"(
HloModule scatter_max

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}

ENTRY main {
  x = f32[6,3] parameter(0)
  ids = s32[5] parameter(1)
  u = f32[5,3] parameter(2)
  two = f32[5,3] constant({{2,2,2},{2,2,2},{2,2,2},{2,2,2},{2,2,2}})
  v = f32[5,3] multiply(u, two)
  ROOT s = f32[6,3] scatter(x, ids, v), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=max
})",
                {{1, {2, 2, 5, 0, 6}}});
}

TEST_P(GatherScatterTest, ScatterAssignsWindows) {
  // dynamic_update_slice-like: 2x3 windows at (row, column) starts; a
  // window that does not fit is dropped, not clamped.
  ExpectMatches(R"(
HloModule scatter_assign

assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}

ENTRY main {
  x = f32[6,7] parameter(0)
  starts = s32[3,2] parameter(1)
  u = f32[3,2,3] parameter(2)
  ROOT s = f32[6,7] scatter(x, starts, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=assign
})",
                {{1, {0, 0, 4, 4, 5, 0}}});
}

TEST_P(GatherScatterTest, Bf16ScatterAdd) {
  // 16-bit elements combine through a 32-bit compare-and-swap on GPUs;
  // each addition rounds to bf16 as the evaluator's does.
  ExpectMatches(R"(
HloModule bf16_scatter

add_bf16 {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT c = bf16[] add(a, b)
}

ENTRY main {
  x = bf16[7,3] parameter(0)
  ids = s32[6,1] parameter(1)
  u = bf16[6,3] parameter(2)
  ROOT s = bf16[7,3] scatter(x, ids, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_bf16
})",
                {{1, {6, 0, 6, 3, 3, 3}}}, /*tolerance=*/1e-2);
}

TEST_P(GatherScatterTest, GatherThenScatterIsARoundTrip) {
  // Forward and backward of an embedding in one step, as a model has them.
  ExpectMatches(absl::StrCat(R"(
HloModule round_trip
)",
                             kAdd, R"(
ENTRY main {
  table = f32[9,4] parameter(0)
  ids = s32[6,1] parameter(1)
  g = f32[6,4] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
  t = f32[6,4] tanh(g)
  zero = f32[] constant(0)
  init = f32[9,4] broadcast(zero), dimensions={}
  s = f32[9,4] scatter(init, ids, t), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT r = (f32[6,4], f32[9,4]) tuple(t, s)
})"),
                {{1, {1, 8, 1, 0, 4, 1}}});
}

// dynamic-slice and dynamic-update-slice become a gather and a scatter
// (RewriteDynamicSlices) whose starts are clamped first: starts in range,
// past the end and negative all match the evaluator.
TEST_P(GatherScatterTest, DynamicSliceRunsAsAGather) {
  const std::string hlo = R"(
HloModule ds
ENTRY main {
  a = f32[6,5] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT s = f32[2,3] dynamic-slice(a, i, j), dynamic_slice_sizes={2,3}
})";
  for (int64_t i : {0, 3, 5, -2}) {
    for (int64_t j : {0, 2, 9}) {
      SCOPED_TRACE(absl::StrCat("starts ", i, ", ", j));
      ExpectMatches(hlo, {{1, {i}}, {2, {j}}});
    }
  }
}

TEST_P(GatherScatterTest, DynamicUpdateSliceRunsAsAScatter) {
  const std::string hlo = R"(
HloModule dus
ENTRY main {
  a = f32[6,5] parameter(0)
  u = f32[2,3] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT s = f32[6,5] dynamic-update-slice(a, u, i, j)
})";
  for (int64_t i : {0, 4, 7, -1}) {
    for (int64_t j : {1, 3}) {
      SCOPED_TRACE(absl::StrCat("starts ", i, ", ", j));
      ExpectMatches(hlo, {{2, {i}}, {3, {j}}});
    }
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(GatherScatterTest);

}  // namespace
}  // namespace xla_lite::testing
