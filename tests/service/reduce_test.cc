// Reductions over every dimension and reducer, small (a thread per output),
// grouped (a group of threads per output) and large (a block per output),
// with fused producers, on every platform, against the HloEvaluator.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/runtime/kernel_thunk.h"

namespace xla_lite::testing {
namespace {

// A module reducing x:<type>[<in>] over <dims> with <op>, init <init>.
std::string Reduce(const std::string& type, const std::string& in,
                   const std::string& out, const std::string& dims,
                   const std::string& op, const std::string& init) {
  return absl::StrFormat(R"(
HloModule reduce

reducer {
  a = %s[] parameter(0)
  b = %s[] parameter(1)
  ROOT c = %s[] %s(a, b)
}

ENTRY main {
  x = %s[%s] parameter(0)
  init = %s[] constant(%s)
  ROOT r = %s[%s] reduce(x, init), dimensions={%s}, to_apply=reducer
})",
                         type, type, type, op, type, in, type, init, type, out,
                         dims);
}

class ReduceTest : public CompilerTest {
 protected:
  // Checks `hlo`'s results against the evaluator on arguments in [lo, hi),
  // then returns the blocks its one kernel launches (-1 if it is not one
  // kernel).
  int64_t CheckedBlocks(const std::string& hlo, double lo, double hi) {
    ExpectMatchesEvaluator(hlo, lo, hi);
    auto executable = Compile(hlo);
    EXPECT_TRUE(executable.ok()) << executable.status();
    if (!executable.ok() || FlatThunks(**executable).size() != 1) return -1;
    const auto* kernel =
        dynamic_cast<const gpu::KernelThunk*>(FlatThunks(**executable)[0]);
    return kernel == nullptr ? -1 : kernel->launch_dimensions().blocks.x;
  }
};

TEST_P(ReduceTest, SumOverEachDimensionAndCombination) {
  struct Case {
    const char* dims;
    const char* out;
  };
  for (const Case& c : std::vector<Case>{{"0", "7,8"},
                                         {"1", "6,8"},
                                         {"2", "6,7"},
                                         {"0,2", "7"},
                                         {"1,2", "6"},
                                         {"0,1", "8"},
                                         {"0,1,2", ""}}) {
    SCOPED_TRACE(c.dims);
    ExpectMatchesEvaluator(Reduce("f32", "6,7,8", c.out, c.dims, "add", "0"));
  }
}

TEST_P(ReduceTest, EveryReducer) {
  ExpectMatchesEvaluator(Reduce("f32", "5,30", "5", "1", "maximum", "-inf"));
  ExpectMatchesEvaluator(Reduce("f32", "5,30", "30", "0", "minimum", "inf"));
  ExpectMatchesEvaluator(
      Reduce("f32", "5,30", "5", "1", "multiply", "1"), 0.9, 1.1);
  ExpectMatchesEvaluator(Reduce("s32", "9,11", "9", "1", "add", "0"), -50, 50);
  ExpectMatchesEvaluator(Reduce("s32", "9,11", "11", "0", "maximum", "-1000"),
                         -50, 50);
  ExpectMatchesEvaluator(Reduce("pred", "9,11", "9", "1", "and", "true"));
  ExpectMatchesEvaluator(Reduce("pred", "9,11", "11", "0", "or", "false"));
}

TEST_P(ReduceTest, LargeExtentsUseBlockReductions) {
  // Extents around the block threshold and past one block of threads, rows
  // and columns, with a count of elements that is not a power of two.
  ExpectMatchesEvaluator(Reduce("f32", "4,1000", "4", "1", "add", "0"));
  ExpectMatchesEvaluator(Reduce("f32", "3,70", "3", "1", "add", "0"));
  ExpectMatchesEvaluator(Reduce("f32", "300,5", "5", "0", "add", "0"));
  ExpectMatchesEvaluator(Reduce("f32", "2,513", "2", "1", "maximum", "-inf"));
  ExpectMatchesEvaluator(Reduce("f32", "4097", "", "0", "add", "0"));
}

TEST_P(ReduceTest, ManyRowsShareBlocks) {
  // Softmax- and LayerNorm-like rows, enough of them that a block takes 8,
  // 4 or 2 (ReductionStrategy::row_groups, as many as leave 1024 blocks),
  // and too few for 2; row counts that fill no block exactly, extents that
  // fill no group of threads exactly, and the largest extent that is
  // grouped and the next. Sums of positive values: the order of the sums
  // differs from the evaluator's, which sums near zero would magnify past
  // the tolerance.
  EXPECT_EQ(
      CheckedBlocks(
          Reduce("f32", "3,2737,128", "3,2737", "2", "maximum", "-inf"), -1, 1),
      (3 * 2737 + 7) / 8);
  EXPECT_EQ(
      CheckedBlocks(Reduce("f32", "4101,100", "4101", "1", "add", "0.5"), 0, 1),
      (4101 + 3) / 4);
  EXPECT_EQ(
      CheckedBlocks(Reduce("f32", "2050,256", "2050", "1", "add", "0"), 0, 1),
      2050 / 2);
  EXPECT_EQ(
      CheckedBlocks(Reduce("f32", "2049,1024", "2049", "1", "add", "0"), 0, 1),
      (2049 + 1) / 2);
  EXPECT_EQ(
      CheckedBlocks(Reduce("f32", "2047,100", "2047", "1", "add", "0"), 0, 1),
      2047);
  EXPECT_EQ(CheckedBlocks(Reduce("f32", "9,1025", "9", "1", "add", "0"), 0, 1),
            9);
  EXPECT_EQ(
      CheckedBlocks(Reduce("s32", "8195,64", "8195", "1", "add", "0"), -50, 50),
      (8195 + 7) / 8);
}

TEST_P(ReduceTest, ColumnReductionsOverManyRows) {
  // Reductions over leading dimensions: lanes over outputs, 32 threads
  // folding each from 1024 rows on, split in two kernels past 4096 rows;
  // column counts that fill no warp exactly, and a fused producer.
  ExpectMatchesEvaluator(Reduce("f32", "2048,256", "256", "0", "add", "0"));
  ExpectMatchesEvaluator(Reduce("f32", "8192,40", "40", "0", "add", "0"));
  ExpectMatchesEvaluator(Reduce("f32", "16,128,40", "40", "0,1", "add", "1"));
  ExpectMatchesEvaluator(
      Reduce("f32", "600,70", "70", "0", "maximum", "-inf"));
  ExpectMatchesEvaluator(Reduce("f32", "24,33", "33", "0", "minimum", "inf"));
  ExpectMatchesEvaluator(R"(
HloModule bias_and_scale_gradients

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  dy = f32[512,96] parameter(0)
  x = f32[512,96] parameter(1)
  zero = f32[] constant(0)
  p = f32[512,96] multiply(dy, x)
  scale = f32[96] reduce(p, zero), dimensions={0}, to_apply=add
  bias = f32[96] reduce(dy, zero), dimensions={0}, to_apply=add
  ROOT t = (f32[96], f32[96]) tuple(scale, bias)
})");
}

// A column reduction of 1024 rows or more takes blocks of 1024 threads,
// bounded so that they launch: strips of 32 columns, narrowed down to 8
// while there are fewer than 128 strips, so that a few hundred columns
// still spread over the device. Fewer rows take blocks of 256 over 32
// columns. All match the evaluator, strips that the columns do not fill
// included.
TEST_P(ReduceTest, WideColumnStripsAreBoundedBlocksOf1024) {
  struct Case {
    int rows, columns;
    int64_t threads, blocks;
  };
  for (const Case& c : std::vector<Case>{{2048, 96, 1024, 12},
                                         {2048, 100, 1024, 13},
                                         {2048, 1024, 1024, 128},
                                         {1024, 8200, 1024, 257},
                                         {512, 96, 256, 3}}) {
    SCOPED_TRACE(absl::StrCat(c.rows, "x", c.columns));
    const std::string hlo =
        Reduce("f32", absl::StrCat(c.rows, ",", c.columns),
               absl::StrCat(c.columns), "0", "add", "0");
    EXPECT_EQ(CheckedBlocks(hlo, 0, 1), c.blocks);
    auto executable = Compile(hlo);
    ASSERT_TRUE(executable.ok()) << executable.status();
    const auto* kernel =
        dynamic_cast<const gpu::KernelThunk*>(FlatThunks(**executable)[0]);
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->launch_dimensions().threads_per_block.x, c.threads);
    EXPECT_EQ(kernel->spec().cuda_source.find("__launch_bounds__(1024)") !=
                  std::string::npos,
              c.threads == 1024);
  }
}

TEST_P(ReduceTest, InitThatIsNotAnIdentityIsAppliedOnce) {
  ExpectMatchesEvaluator(Reduce("f32", "4,10", "4", "1", "add", "1.5"));
  ExpectMatchesEvaluator(Reduce("f32", "4,300", "4", "1", "add", "1.5"));
  ExpectMatchesEvaluator(Reduce("f32", "4,300", "4", "1", "maximum", "0.75"));
}

TEST_P(ReduceTest, FusedProducersAndParameterInit) {
  ExpectMatchesEvaluator(R"(
HloModule softmax_denominator

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x = f32[16,100] parameter(0)
  m = f32[16] parameter(1)
  init = f32[] parameter(2)
  mb = f32[16,100] broadcast(m), dimensions={0}
  d = f32[16,100] subtract(x, mb)
  e = f32[16,100] exponential(d)
  t = f32[100,16] transpose(e), dimensions={1,0}
  ROOT r = f32[16] reduce(t, init), dimensions={0}, to_apply=add
})");
}

TEST_P(ReduceTest, ReduceOverUnitDimensionsBecomesElementwise) {
  ExpectMatchesEvaluator(Reduce("f32", "1,6,1", "6", "0,2", "add", "0.5"));
}

INSTANTIATE_FOR_ALL_PLATFORMS(ReduceTest);

}  // namespace
}  // namespace xla_lite::testing
