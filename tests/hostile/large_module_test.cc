// Large valid modules compile and run: a chain of 20,000 elementwise ops
// (lowered without recursion) and tuples of tens of thousands of values
// (passes stay near-linear in the module's size).

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"

namespace xla_lite::testing {
namespace {

using LargeModuleTest = CompilerTest;

// x_{i} = negate(x_{i-1}), n times, then x_n + x_0.
std::string NegateChain(int n) {
  std::string text = "HloModule chain\nENTRY e {\n  x0 = f32[4] parameter(0)\n";
  for (int i = 1; i <= n; ++i) {
    absl::StrAppend(&text, "  x", i, " = f32[4] negate(x", i - 1, ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = f32[4] add(x", n, ", x0)\n}\n");
  return text;
}

TEST_P(LargeModuleTest, ChainOf20000ElementwiseOpsRuns) {
  Literal x = Literal::FromDoubles(Shape::Array(PrimitiveType::F32, {4}),
                                   {1, -2, 3.5, 0});
  absl::StatusOr<std::vector<Literal>> results =
      CompileAndRun(NegateChain(20000), {x});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 1);
  // An even number of negations: x + x.
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ((*results)[0].GetAsDouble(i), 2 * x.GetAsDouble(i)) << i;
  }
}

// A tuple of n parameters (the entry's result).
std::string ParameterTuple(int n) {
  std::string text = "HloModule wide\nENTRY e {\n";
  std::vector<std::string> shapes, names;
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&text, "  p", i, " = f32[4] parameter(", i, ")\n");
    shapes.push_back("f32[4]");
    names.push_back(absl::StrCat("p", i));
  }
  absl::StrAppend(&text, "  ROOT t = (", absl::StrJoin(shapes, ", "),
                  ") tuple(", absl::StrJoin(names, ", "), ")\n}\n");
  return text;
}

TEST_P(LargeModuleTest, CompileTimeGrowsNearLinearly) {
  if (!IsHost()) GTEST_SKIP() << "compile time is measured on the host";
  // The runtime's defaults: command buffers on, as users compile.
  auto CompileSeconds = [&](const std::string& hlo) {
    auto start = std::chrono::steady_clock::now();
    auto executable = Compile(hlo, DefaultDebugOptions());
    EXPECT_TRUE(executable.ok()) << executable.status();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  // Ten times the operands: about ten times the time when near-linear,
  // a hundred when quadratic. The bound leaves room for a busy machine,
  // and each size keeps its fastest of three compiles, so one compile
  // slowed by other work on the machine does not decide.
  auto Fastest = [&](const std::string& hlo) {
    double best = CompileSeconds(hlo);
    for (int i = 0; i < 2; ++i) best = std::min(best, CompileSeconds(hlo));
    return best;
  };
  double small = Fastest(ParameterTuple(3000));
  double large = Fastest(ParameterTuple(30000));
  EXPECT_LT(large, 35 * std::max(small, 0.01))
      << "3,000 operands: " << small << " s, 30,000: " << large << " s";
}

INSTANTIATE_FOR_ALL_PLATFORMS(LargeModuleTest);

}  // namespace
}  // namespace xla_lite::testing
