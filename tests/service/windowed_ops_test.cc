// convolution (every form JAX's training steps emit: strides, padding,
// dilations, reversal, the input- and filter-gradient dim_labels, feature
// and batch groups), reduce-window and select-and-scatter through the
// compiler's emitted kernels on every platform, against the HloEvaluator.

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"

namespace xla_lite::testing {
namespace {

using WindowedOpsTest = CompilerTest;

TEST_P(WindowedOpsTest, ForwardConvolutions) {
  for (const char* attrs : {
           "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
       }) {
    ExpectMatchesEvaluator(
        ConvolutionModule("2,6,5,3", "3,3,3,4", "2,6,5,4", attrs));
  }
  // VALID, strided, dilated, reversed, negative padding.
  ExpectMatchesEvaluator(ConvolutionModule("2,6,5,3", "3,3,3,4", "2,4,3,4",
                                           "window={size=3x3}, "
                                           "dim_labels=b01f_01io->b01f"));
  ExpectMatchesEvaluator(
      ConvolutionModule("2,7,6,3", "3,2,3,4", "2,3,3,4",
                        "window={size=3x2 stride=2x2 pad=0_1x0_0}"
                        ", dim_labels=b01f_01io->b01f"));
  ExpectMatchesEvaluator(ConvolutionModule("1,7,7,2", "2,2,2,3", "1,5,4,3",
                                           "window={size=2x2 pad=0_0x-1_0 "
                                           "rhs_dilate=2x2}, "
                                           "dim_labels=b01f_01io->b01f"));
  ExpectMatchesEvaluator(ConvolutionModule("1,4,4,2", "3,3,2,3", "1,9,9,3",
                                           "window={size=3x3 pad=2_2x2_2 "
                                           "lhs_dilate=2x2 rhs_reversal=1x0}, "
                                           "dim_labels=b01f_01io->b01f"));
  // NCHW / OIHW.
  ExpectMatchesEvaluator(ConvolutionModule("2,3,5,5", "4,3,3,3", "2,4,5,5",
                                           "window={size=3x3 pad=1_1x1_1}, "
                                           "dim_labels=bf01_oi01->bf01"));
}

TEST_P(WindowedOpsTest, GradientConvolutions) {
  // Input gradient: transposed kernel labels (the kernel reversed by a
  // reverse op in JAX's text).
  ExpectMatchesEvaluator(ConvolutionModule("2,6,5,4", "3,3,3,4", "2,6,5,3",
                                           "window={size=3x3 pad=1_1x1_1}, "
                                           "dim_labels=b01f_01oi->b01f"));
  // Filter gradient: batch and feature swapped, the window the output
  // gradient's extent.
  ExpectMatchesEvaluator(ConvolutionModule("2,6,5,3", "2,6,5,4", "3,3,3,4",
                                           "window={size=6x5 pad=1_1x1_1}, "
                                           "dim_labels=f01b_i01o->01bf"));
}

TEST_P(WindowedOpsTest, GroupedConvolutions) {
  ExpectMatchesEvaluator(ConvolutionModule("2,5,5,4", "3,3,1,8", "2,5,5,8",
                                           "window={size=3x3 pad=1_1x1_1}, "
                                           "dim_labels=b01f_01io->b01f, "
                                           "feature_group_count=4"));
  ExpectMatchesEvaluator(ConvolutionModule("2,5,5,4", "3,3,2,6", "2,5,5,6",
                                           "window={size=3x3 pad=1_1x1_1}, "
                                           "dim_labels=b01f_01io->b01f, "
                                           "feature_group_count=2"));
  // The depthwise filter gradient.
  ExpectMatchesEvaluator(ConvolutionModule("2,5,5,4", "2,5,5,4", "3,3,1,4",
                                           "window={size=5x5 pad=1_1x1_1}, "
                                           "dim_labels=f01b_i01o->01bf, "
                                           "batch_group_count=4"));
}

std::string Pooling(const std::string& op_line, const std::string& params) {
  return absl::StrCat("HloModule pooling\n", kAddComputation, kMaxComputation,
                      kGeComputation, "ENTRY main {\n", params, "  zero = f32[] constant(0)\n",
                      "  lowest = f32[] constant(-inf)\n  ROOT r = ", op_line,
                      "\n}\n");
}

TEST_P(WindowedOpsTest, ReduceWindow) {
  const std::string x = "  x = f32[2,7,6,3] parameter(0)\n";
  ExpectMatchesEvaluator(Pooling(
      "f32[2,3,3,3] reduce-window(x, lowest), window={size=1x2x2x1 "
      "stride=1x2x2x1}, to_apply=max",
      x));
  ExpectMatchesEvaluator(Pooling(
      "f32[2,4,3,3] reduce-window(x, zero), window={size=1x3x3x1 "
      "stride=1x2x2x1 pad=0_0x1_1x1_0x0_0}, to_apply=add",
      x));
  ExpectMatchesEvaluator(Pooling(
      "f32[2,12,10,3] reduce-window(x, zero), window={size=1x2x2x1 "
      "lhs_dilate=1x2x2x1}, to_apply=add",
      x));
  ExpectMatchesEvaluator(Pooling(
      "f32[2,5,4,3] reduce-window(x, lowest), window={size=1x2x2x1 "
      "rhs_dilate=1x2x2x1}, to_apply=max",
      x));
}

TEST_P(WindowedOpsTest, SelectAndScatter) {
  const std::string params =
      "  x = f32[2,8,6,3] parameter(0)\n  dy = f32[2,4,3,3] parameter(1)\n";
  ExpectMatchesEvaluator(Pooling(
      "f32[2,8,6,3] select-and-scatter(x, dy, zero), window={size=1x2x2x1 "
      "stride=1x2x2x1}, select=ge, scatter=add",
      params));
  // Windows that tile the operand (one thread per window on GPUs) with
  // ties: the relu's zeros make the first of equal elements the selected
  // one, as in a max-pool gradient after a relu; an init of 1.5.
  ExpectMatchesEvaluator(absl::StrCat(
      "HloModule pooling\n", kAddComputation, kGeComputation,
      "ENTRY main {\n  x = f32[2,8,6,3] parameter(0)\n"
      "  dy = f32[2,4,3,3] parameter(1)\n  zero = f32[] constant(0)\n"
      "  zeros = f32[2,8,6,3] broadcast(zero), dimensions={}\n"
      "  relu = f32[2,8,6,3] maximum(x, zeros)\n"
      "  init = f32[] constant(1.5)\n"
      "  ROOT r = f32[2,8,6,3] select-and-scatter(relu, dy, init), "
      "window={size=1x2x2x1 stride=1x2x2x1}, select=ge, scatter=add\n}\n"));
  // Overlapping windows, padding.
  const std::string overlapping =
      "  x = f32[2,8,6,3] parameter(0)\n  dy = f32[2,4,3,3] parameter(1)\n";
  ExpectMatchesEvaluator(Pooling(
      "f32[2,8,6,3] select-and-scatter(x, dy, zero), window={size=1x3x3x1 "
      "stride=1x2x2x1 pad=0_0x1_0x1_0x0_0}, select=ge, scatter=add",
      overlapping));
}

// A convolution with a bias and relu after it, and a pooled step, recorded
// in a command buffer and replayed.
TEST_P(WindowedOpsTest, InCommandBuffers) {
  const std::string hlo = absl::StrCat("HloModule block\n", kMaxComputation,
                                       R"(
ENTRY main {
  x = f32[2,6,6,3] parameter(0)
  k = f32[3,3,3,4] parameter(1)
  bias = f32[4] parameter(2)
  conv = f32[2,6,6,4] convolution(x, k), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01io->b01f
  b = f32[2,6,6,4] broadcast(bias), dimensions={3}
  sum = f32[2,6,6,4] add(conv, b)
  zero = f32[] constant(0)
  zeros = f32[2,6,6,4] broadcast(zero), dimensions={}
  relu = f32[2,6,6,4] maximum(sum, zeros)
  lowest = f32[] constant(-inf)
  ROOT pool = f32[2,3,3,4] reduce-window(relu, lowest),
      window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max
})");
  DebugOptions options = DefaultDebugOptions();
  ExpectMatchesEvaluator(hlo, -1, 1, options, /*steps=*/3);
}

TEST_P(WindowedOpsTest, UnsupportedFormsNameTheInstruction) {
  const std::string hlo = R"(
HloModule pooling
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] multiply(a, b)
}
ENTRY main {
  x = f32[4,8] parameter(0)
  one = f32[] constant(1)
  ROOT r = f32[2,4] reduce-window(x, one), window={size=2x2 stride=2x2},
      to_apply=mul
})";
  auto executable = Compile(hlo);
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(executable.status().message().find("instruction r"),
            std::string::npos)
      << executable.status();
}

INSTANTIATE_FOR_ALL_PLATFORMS(WindowedOpsTest);

}  // namespace
}  // namespace xla_lite::testing
