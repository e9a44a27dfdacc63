// Row fusion seen through the compiled thunks: kernels over short rows that
// read each other's results only within a row become one kernel, and the
// fused results still match the evaluator.

#include <iterator>
#include <memory>
#include <regex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/kernel_thunk.h"

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

  // The CUDA C of `hlo`'s only kernel (empty when it is not one kernel).
  std::string SourceOfOnlyKernel(const std::string& hlo) {
    auto executable = Compile(hlo);
    EXPECT_TRUE(executable.ok()) << executable.status();
    if (!executable.ok() || FlatThunks(**executable).size() != 1) return "";
    const auto* kernel =
        dynamic_cast<const gpu::KernelThunk*>(FlatThunks(**executable)[0]);
    return kernel == nullptr ? "" : kernel->spec().cuda_source;
  }

  // `hlo`'s one kernel's launch as {blocks, threads per block}, after
  // checking its results; {-1, -1} when it is not one kernel.
  std::pair<int64_t, int64_t> LaunchOf(const std::string& hlo) {
    if (KernelsOf(hlo) != 1) return {-1, -1};
    auto executable = Compile(hlo);
    const auto* kernel =
        dynamic_cast<const gpu::KernelThunk*>(FlatThunks(**executable)[0]);
    if (kernel == nullptr) return {-1, -1};
    return {kernel->launch_dimensions().blocks.x,
            kernel->launch_dimensions().threads_per_block.x};
  }
};

TEST_P(RowFusionTest, SoftmaxOverShortRowsIsOneKernel) {
  EXPECT_EQ(KernelsOf(Softmax(24, 12, OwnRowMax(24, 12))), 1);
  // Rows of exactly the longest fused length, and a single row.
  EXPECT_EQ(KernelsOf(Softmax(5, 32, OwnRowMax(5, 32))), 1);
  EXPECT_EQ(KernelsOf(Softmax(1, 7, OwnRowMax(1, 7))), 1);
}

TEST_P(RowFusionTest, LongerRowsShareThreadsInOneKernel) {
  // A row takes a group of threads (32 up to 256, as long as the row)
  // unless it is at most 32 elements long and there are 65536 rows or
  // more: 8 rows a block where that leaves 1024 blocks (8192 rows of 128,
  // attention's softmax), fewer otherwise (2048 LayerNorm rows of 256
  // take 2), down to a block per row. Rows that fill no block, rows
  // longer than the group, and the longest fused rows.
  struct Case {
    int rows, cols;
    int64_t blocks, threads;
  };
  for (const Case& c : std::vector<Case>{{24, 33, 24, 64},
                                         // Short rows, too few to fill the
                                         // device a thread each: a warp
                                         // each (the tiny transformer's).
                                         {64, 32, 64, 32},
                                         {24, 12, 24, 32},
                                         // Enough of them: a thread each.
                                         {65536, 8, 256, 256},
                                         {8192, 128, 1024, 256},
                                         {2048, 256, 1024, 256},
                                         {5, 100, 5, 128},
                                         {3, 1024, 3, 256}}) {
    SCOPED_TRACE(absl::StrCat(c.rows, "x", c.cols));
    EXPECT_EQ(LaunchOf(Softmax(c.rows, c.cols, OwnRowMax(c.rows, c.cols))),
              std::make_pair(c.blocks, c.threads));
  }
}

// How often `pattern` (a regular expression) matches in `source`.
int Occurrences(const std::string& source, const std::string& pattern) {
  const std::regex re(pattern);
  return std::distance(
      std::sregex_iterator(source.begin(), source.end(), re),
      std::sregex_iterator());
}

// Softmax in f32 over the rows of a bf16 parameter, converted to f32 x.
std::string Bf16InputSoftmax(int rows, int cols) {
  const std::string shape = absl::StrFormat("[%d,%d]", rows, cols);
  return absl::StrReplaceAll(
      Softmax(rows, cols, OwnRowMax(rows, cols)),
      {{absl::StrCat("x = f32", shape, " parameter(0)"),
        absl::StrCat("xb = bf16", shape, " parameter(0)\n  x = f32", shape,
                     " convert(xb)")}});
}

TEST_P(RowFusionTest, RowSharesOfAFewTripsAreUnrolledAndKeptInRegisters) {
  // The softmax's three stages (maximum; sum of exponentials; quotients).
  // Rows of 128 take 32 lanes: every lane makes 4 trips over its share, in
  // the reductions and in the loop stage, and counts them, unrolled. x is
  // loaded once, by the maximum's stage, into one array of registers that
  // the later stages read. Rows of 33 take 64 lanes, which make 0 or 1
  // trips: a plain strided loop, no elements kept, and x loaded by all
  // three stages. Either way the row's maximum and sum go through two
  // slots of shared memory, each stored once, the maximum read by both
  // later stages and the sum by the last. Both match the evaluator
  // (KernelsOf).
  for (const auto& [rows, cols, unrolled] :
       std::vector<std::tuple<int, int, bool>>{{8192, 128, true},
                                               {24, 33, false}}) {
    SCOPED_TRACE(absl::StrCat(rows, "x", cols));
    const std::string hlo = Softmax(rows, cols, OwnRowMax(rows, cols));
    ASSERT_EQ(KernelsOf(hlo), 1);
    const std::string source = SourceOfOnlyKernel(hlo);
    EXPECT_EQ(source.find("r_trip < 4") != std::string::npos, unrolled);
    EXPECT_EQ(source.find("j_trip < 4") != std::string::npos, unrolled);
    EXPECT_EQ(
        source.find("for (idx_t r = x; r < 33; r += 64)") != std::string::npos,
        !unrolled);
    EXPECT_EQ(Occurrences(source, "= p0\\["), unrolled ? 1 : 3) << source;
    EXPECT_EQ(Occurrences(source, "float xl_e[0-9]+\\["), unrolled ? 1 : 0)
        << source;
    EXPECT_EQ(Occurrences(source, "__shared__ float xl_row"), 2) << source;
    EXPECT_EQ(Occurrences(source, "xl_row[0-9]+\\[y\\] = "), 2) << source;
    EXPECT_EQ(Occurrences(source, "= xl_row[0-9]+\\[y\\];"), 3) << source;
  }
}

TEST_P(RowFusionTest, Bf16ValuesAreKeptAsStored) {
  // x's bf16 elements are kept as loaded, bits and all, and converted
  // where each stage reads them, as a load from memory converts them.
  const std::string hlo = Bf16InputSoftmax(8192, 128);
  ASSERT_EQ(KernelsOf(hlo), 1);
  const std::string source = SourceOfOnlyKernel(hlo);
  EXPECT_EQ(Occurrences(source, "= p0\\["), 1) << source;
  EXPECT_EQ(Occurrences(source, "unsigned short xl_e0\\["), 1) << source;
  EXPECT_GE(Occurrences(source, "xl_bf16_to_f32\\(xl_e0"), 2) << source;
}

TEST_P(RowFusionTest, LayerNormIsOneKernel) {
  // Mean, variance of the centered values, and the normalized, scaled
  // and shifted rows, as JAX writes a LayerNorm over 256 features. The
  // shift is kept clear of the scaled values' range, so that no output
  // cancels to near zero, where the GPU's summation order would show
  // through the comparison's 1e-3 floor.
  const std::string hlo =
      absl::StrCat("HloModule layer_norm\n", kAddComputation, R"(
ENTRY main {
  x = f32[512,256] parameter(0)
  g = f32[256] parameter(1)
  b = f32[256] parameter(2)
  zero = f32[] constant(0)
  n = f32[] constant(0.00390625)
  eps = f32[] constant(1e-5)
  s = f32[512] reduce(x, zero), dimensions={1}, to_apply=add
  nb = f32[512] broadcast(n), dimensions={}
  mean = f32[512] multiply(s, nb)
  mb = f32[512,256] broadcast(mean), dimensions={0}
  c = f32[512,256] subtract(x, mb)
  c2 = f32[512,256] multiply(c, c)
  v = f32[512] reduce(c2, zero), dimensions={1}, to_apply=add
  var = f32[512] multiply(v, nb)
  eb = f32[512] broadcast(eps), dimensions={}
  ve = f32[512] add(var, eb)
  r = f32[512] rsqrt(ve)
  rb = f32[512,256] broadcast(r), dimensions={0}
  y = f32[512,256] multiply(c, rb)
  gb = f32[512,256] broadcast(g), dimensions={1}
  four = f32[] constant(4)
  fb = f32[256] broadcast(four), dimensions={}
  shift = f32[256] add(b, fb)
  bb = f32[512,256] broadcast(shift), dimensions={1}
  yg = f32[512,256] multiply(y, gb)
  ROOT out = f32[512,256] add(yg, bb)
})");
  EXPECT_EQ(KernelsOf(hlo), 1);
}

TEST_P(RowFusionTest, EmptyRowReductionIsItsInit) {
  // A reduction over no elements, with an init that is not the reducer's
  // identity, in a row kernel whose other stage gives each row a group of
  // threads (40 rows of 64 or of 8) and in one with a thread per row
  // (65536 rows of 8).
  for (auto [rows, cols] :
       std::vector<std::pair<int, int>>{{40, 64}, {40, 8}, {65536, 8}}) {
    SCOPED_TRACE(absl::StrCat(rows, "x", cols));
    EXPECT_EQ(KernelsOf(absl::StrFormat(R"(
HloModule empty_rows
%s
ENTRY main {
  x = f32[%d,0] parameter(0)
  p = f32[%d,%d] parameter(1)
  one = f32[] constant(1.5)
  s = f32[%d] reduce(x, one), dimensions={1}, to_apply=add
  sb = f32[%d,%d] broadcast(s), dimensions={0}
  ROOT r = f32[%d,%d] multiply(sb, p)
})",
                                        kAddComputation, rows, rows, cols, rows,
                                        rows, cols, rows, cols)),
              1);
  }
}

TEST_P(RowFusionTest, RowsPastTheLongestKeepTheirOwnKernels) {
  // 1025 elements per row: the row reductions stay kernels of their own.
  EXPECT_EQ(KernelsOf(Softmax(6, 1025, OwnRowMax(6, 1025))), 3);
}

TEST_P(RowFusionTest, ReadingAnotherRowsResultPreventsFusion) {
  // Row i subtracts the maximum of row 23 - i, which another thread stores.
  std::string hlo = Softmax(24, 12, R"(
  mr = f32[24] reverse(m), dimensions={0}
  mb = f32[24,12] broadcast(mr), dimensions={0})");
  EXPECT_GT(KernelsOf(hlo), 1);
  // The same with rows that take a group of threads each.
  EXPECT_GT(KernelsOf(Softmax(24, 100, R"(
  mr = f32[24] reverse(m), dimensions={0}
  mb = f32[24,100] broadcast(mr), dimensions={0})")),
            1);
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
