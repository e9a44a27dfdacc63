// Library gemms that run at the same time: independent gemms as concurrent
// nodes of one command buffer, and executions on several threads. The
// shapes are long in K, which the BLAS libraries split and reduce through
// their workspace, so two gemms sharing one workspace at once would corrupt
// each other's partial sums; every result must still match the evaluator.

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"

namespace xla_lite::testing {
namespace {

// Four independent [64,K] x [K,64] products of one lhs.
std::string IndependentDots(int64_t k) {
  std::string hlo = absl::StrCat("HloModule independent_dots\n\nENTRY main {\n",
                                 "  a = f32[64,", k, "] parameter(0)\n");
  std::string results;
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&hlo, "  b", i, " = f32[", k, ",64] parameter(", i + 1,
                    ")\n  d", i, " = f32[64,64] dot(a, b", i,
                    "), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                    "operand_precision={highest,highest}\n");
    absl::StrAppend(&results, i == 0 ? "" : ", ", "d", i);
  }
  absl::StrAppend(&hlo,
                  "  ROOT t = (f32[64,64], f32[64,64], f32[64,64], "
                  "f32[64,64]) tuple(",
                  results, ")\n}\n");
  return hlo;
}

// Every dot through the library, in command buffers (the defaults).
DebugOptions LibraryGemmsInGraphs() {
  DebugOptions options = DefaultDebugOptions();
  options.set_xla_gpu_emitted_gemm_max_size(0);
  return options;
}

using LibraryGemmConcurrencyTest = CompilerTest;

// Sums of 16384 products of values in [-1, 1]: rounding is relative to the
// terms' magnitude, not to a sum that may cancel to near zero.
constexpr double kTolerance = 1e-3;
constexpr double kFloor = 1.0;

TEST_P(LibraryGemmConcurrencyTest, IndependentGemmsInOneGraph) {
  const std::string hlo = IndependentDots(16384);
  auto random_case = MakeRandomCase(hlo, 11);
  ASSERT_TRUE(random_case.ok()) << random_case.status();
  // Step 1 runs op by op, step 2 records, steps 3 to 6 replay.
  ExpectEveryThreadMatches({CompileAndRun(hlo, random_case->arguments,
                                          LibraryGemmsInGraphs(), 6)},
                           random_case->expected, kTolerance, kFloor);
}

TEST_P(LibraryGemmConcurrencyTest, ExecutionsOnSeveralThreads) {
  const std::string hlo = IndependentDots(16384);
  auto random_case = MakeRandomCase(hlo, 12);
  ASSERT_TRUE(random_case.ok()) << random_case.status();
  ExpectEveryThreadMatches(
      CompileAndRunOnThreads(hlo, random_case->arguments,
                             LibraryGemmsInGraphs(), /*threads=*/4,
                             /*steps=*/4),
      random_case->expected, kTolerance, kFloor);
}

INSTANTIATE_FOR_ALL_PLATFORMS(LibraryGemmConcurrencyTest);

}  // namespace
}  // namespace xla_lite::testing
