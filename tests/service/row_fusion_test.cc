// Row fusion seen through the compiled thunks: kernels over short rows that
// read each other's results only within a row become one kernel, and the
// fused results still match the evaluator.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/runtime/gpu_executable.h"

namespace xla_lite::testing {
namespace {

using gpu::Thunk;

// Softmax over the rows of x f32[rows,cols], with `consumer` reading the
// row maximum m (f32[rows]) as mb (broadcast back to [rows,cols]).
std::string Softmax(int rows, int cols, const std::string& consumer) {
  return absl::StrFormat(R"(
HloModule softmax
%s%s
ENTRY main {
  x = f32[%d,%d] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  m = f32[%d] reduce(x, ninf), dimensions={1}, to_apply=max
%s
  d = f32[%d,%d] subtract(x, mb)
  e = f32[%d,%d] exponential(d)
  s = f32[%d] reduce(e, zero), dimensions={1}, to_apply=add
  sb = f32[%d,%d] broadcast(s), dimensions={0}
  ROOT r = f32[%d,%d] divide(e, sb)
})",
                         kMaxComputation, kAddComputation, rows, cols, rows,
                         consumer, rows, cols, rows, cols,
                         rows, rows, cols, rows, cols);
}

std::string OwnRowMax(int rows, int cols) {
  return absl::StrFormat("  mb = f32[%d,%d] broadcast(m), dimensions={0}",
                         rows, cols);
}

class RowFusionTest : public CompilerTest {
 protected:
  int64_t KernelsOf(const std::string& hlo) {
    ExpectMatchesEvaluator(hlo);
    auto executable = Compile(hlo);
    EXPECT_TRUE(executable.ok()) << executable.status();
    if (!executable.ok()) return -1;
    EXPECT_EQ(FlatThunks(**executable).size(),
              CountThunks(**executable, Thunk::Kind::kKernel));
    return CountThunks(**executable, Thunk::Kind::kKernel);
  }
};

TEST_P(RowFusionTest, SoftmaxOverShortRowsIsOneKernel) {
  EXPECT_EQ(KernelsOf(Softmax(24, 12, OwnRowMax(24, 12))), 1);
  // Rows of exactly the longest fused length, and a single row.
  EXPECT_EQ(KernelsOf(Softmax(5, 32, OwnRowMax(5, 32))), 1);
  EXPECT_EQ(KernelsOf(Softmax(1, 7, OwnRowMax(1, 7))), 1);
}

TEST_P(RowFusionTest, LongRowsKeepTheirOwnKernels) {
  // 33 elements per row: the row reductions stay parallel kernels.
  EXPECT_EQ(KernelsOf(Softmax(24, 33, OwnRowMax(24, 33))), 3);
}

TEST_P(RowFusionTest, ReadingAnotherRowsResultPreventsFusion) {
  // Row i subtracts the maximum of row 23 - i, which another thread stores.
  std::string hlo = Softmax(24, 12, R"(
  mr = f32[24] reverse(m), dimensions={0}
  mb = f32[24,12] broadcast(mr), dimensions={0})");
  EXPECT_GT(KernelsOf(hlo), 1);
}

TEST_P(RowFusionTest, ColumnReductionOfRowResultsIsNotARow) {
  // The column sum of the normalized rows reads every row.
  const std::string hlo = absl::StrCat("HloModule column\n", kAddComputation,
                                      R"(
ENTRY main {
  x = f32[24,12] parameter(0)
  zero = f32[] constant(0)
  s = f32[24] reduce(x, zero), dimensions={1}, to_apply=add
  sb = f32[24,12] broadcast(s), dimensions={0}
  n = f32[24,12] divide(x, sb)
  c = f32[12] reduce(n, zero), dimensions={0}, to_apply=add
  ROOT r = (f32[24,12], f32[12]) tuple(n, c)
})");
  EXPECT_EQ(KernelsOf(hlo), 2);
}

INSTANTIATE_FOR_ALL_PLATFORMS(RowFusionTest);

}  // namespace
}  // namespace xla_lite::testing
