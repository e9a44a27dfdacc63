// convolution, reduce-window and select-and-scatter through the parser,
// verifier and reference evaluator: every window field, the dim_labels
// forms JAX emits, both group counts, against hand-computed values; and
// the errors for malformed or hostile attributes.

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/evaluator_test_util.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/hlo/hlo_window.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

constexpr char kAdd[] = R"(add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}

)";

// x = {1,2,3,4,5} as f32[1,5,1] (b0f), kernel {1, 10} as f32[2,1,1] (0io):
// out[i] = sum over taps t of x[i*stride + t*rhs_dilate - pad_lo] * k[t].
std::vector<double> Conv1D(const std::string& out_shape,
                           const std::string& window) {
  return EvalRoot({"f32[1,5,1]", "f32[2,1,1]"},
                  absl::StrCat(out_shape, " convolution(p0, p1), window={",
                               window, "}, dim_labels=b0f_0io->b0f"),
                  {F32({1, 5, 1}, {1, 2, 3, 4, 5}), F32({2, 1, 1}, {1, 10})});
}

TEST(ConvolutionEvaluatorTest, WindowFields) {
  EXPECT_THAT(Conv1D("f32[1,4,1]", "size=2"), Is({21, 32, 43, 54}));
  EXPECT_THAT(Conv1D("f32[1,2,1]", "size=2 stride=2"), Is({21, 43}));
  EXPECT_THAT(Conv1D("f32[1,6,1]", "size=2 pad=1_1"),
              Is({10, 21, 32, 43, 54, 5}));
  // Negative padding cuts the base: {2,3,4} left.
  EXPECT_THAT(Conv1D("f32[1,2,1]", "size=2 pad=-1_-1"), Is({32, 43}));
  EXPECT_THAT(Conv1D("f32[1,3,1]", "size=2 rhs_dilate=2"), Is({31, 42, 53}));
  // lhs_dilate=2: the base is 1 _ 2 _ 3 _ 4 _ 5 (the input gradient of a
  // strided convolution).
  EXPECT_THAT(Conv1D("f32[1,8,1]", "size=2 lhs_dilate=2"),
              Is({1, 20, 2, 30, 3, 40, 4, 50}));
  EXPECT_THAT(Conv1D("f32[1,4,1]", "size=2 rhs_reversal=1"),
              Is({12, 23, 34, 45}));
}

TEST(ConvolutionEvaluatorTest, NhwcHwioMixesFeatures) {
  // A 1x1 convolution: out[h,w,o] = sum_c x[h,w,c] * k[c,o].
  EXPECT_THAT(EvalRoot({"f32[1,2,2,2]", "f32[1,1,2,3]"},
                       "f32[1,2,2,3] convolution(p0, p1), window={size=1x1}, "
                       "dim_labels=b01f_01io->b01f",
                       {F32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                        F32({1, 1, 2, 3}, {1, 0, 1, 0, 1, 1})}),
              Is({1, 2, 3, 3, 4, 7, 5, 6, 11, 7, 8, 15}));
}

TEST(ConvolutionEvaluatorTest, TransposedKernelLabels) {
  // The input gradient's form: kernel 0oi, reversed by the caller. Same
  // numbers as the 1x1 case with the kernel stored [o][c].
  EXPECT_THAT(EvalRoot({"f32[1,2,2,2]", "f32[1,1,3,2]"},
                       "f32[1,2,2,3] convolution(p0, p1), window={size=1x1}, "
                       "dim_labels=b01f_01oi->b01f",
                       {F32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                        F32({1, 1, 3, 2}, {1, 0, 0, 1, 1, 1})}),
              Is({1, 2, 3, 3, 4, 7, 5, 6, 11, 7, 8, 15}));
}

TEST(ConvolutionEvaluatorTest, FilterGradientLabels) {
  // f0b_i0o->0bf: the batch of the activations is contracted with the
  // batch of the output gradient; out[t] = sum_w x[w + t] * dy[w].
  EXPECT_THAT(EvalRoot({"f32[1,3,1]", "f32[1,2,1]"},
                       "f32[2,1,1] convolution(p0, p1), window={size=2}, "
                       "dim_labels=f0b_i0o->0bf",
                       {F32({1, 3, 1}, {1, 2, 3}), F32({1, 2, 1}, {1, 10})}),
              Is({21, 32}));
}

TEST(ConvolutionEvaluatorTest, FeatureGroups) {
  // Depthwise: channel c convolved with its own kernel column.
  // x[w][c] = {1,10}, {2,20}, {3,30}; k[t][0][o] = {1,1}, {2,3}.
  EXPECT_THAT(EvalRoot({"f32[1,3,2]", "f32[2,1,2]"},
                       "f32[1,2,2] convolution(p0, p1), window={size=2}, "
                       "dim_labels=b0f_0io->b0f, feature_group_count=2",
                       {F32({1, 3, 2}, {1, 10, 2, 20, 3, 30}),
                        F32({2, 1, 2}, {1, 1, 2, 3})}),
              Is({5, 70, 8, 110}));
}

TEST(ConvolutionEvaluatorTest, BatchGroups) {
  // Output feature o reads input batch o: x[b][w] = {1,2}, {3,4};
  // k[0][0][o] = {10, 100}.
  EXPECT_THAT(EvalRoot({"f32[2,2,1]", "f32[1,1,2]"},
                       "f32[1,2,2] convolution(p0, p1), window={size=1}, "
                       "dim_labels=b0f_0io->b0f, batch_group_count=2",
                       {F32({2, 2, 1}, {1, 2, 3, 4}),
                        F32({1, 1, 2}, {10, 100})}),
              Is({10, 300, 20, 400}));
}

TEST(ConvolutionEvaluatorTest, PrintsAndParsesBack) {
  const std::string text = EntryModule(
      {"f32[2,5,6,4]", "f32[3,2,2,8]"},
      "f32[2,3,8,8] convolution(p0, p1), window={size=3x2 stride=2x1 "
      "pad=1_1x0_-1 lhs_dilate=1x2 rhs_dilate=1x2}, "
      "dim_labels=b01f_01io->b01f, feature_group_count=2");
  std::unique_ptr<HloModule> module = ParseOrDie(text);
  ASSERT_NE(module, nullptr);
  const HloInstruction* conv = FindInstruction(*module, "r");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->window().size(), 2);
  EXPECT_EQ(conv->window()[1].padding_high, -1);
  EXPECT_EQ(conv->window()[1].base_dilation, 2);
  EXPECT_EQ(conv->convolution_dimension_numbers().input_feature_dimension, 3);
  EXPECT_EQ(conv->feature_group_count(), 2);
  const std::string printed = conv->ToString();
  EXPECT_THAT(printed, HasSubstr("window={size=3x2 stride=2x1 pad=1_1x0_-1 "
                                 "lhs_dilate=1x2 rhs_dilate=1x2}"));
  EXPECT_THAT(printed, HasSubstr("dim_labels=b01f_01io->b01f"));
  std::unique_ptr<HloModule> again = ParseOrDie(module->ToString());
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(FindInstruction(*again, "r")->ToString(), printed);
  absl::Status verified = VerifyHloModule(*module);
  EXPECT_TRUE(verified.ok()) << verified;
}

std::vector<double> ReduceWindow(const std::string& shapes,
                                 const std::string& root, Literal operand,
                                 double init) {
  return EvalRoot({shapes, "f32[]"}, root,
                  {std::move(operand), F32({}, {init})}, kAdd);
}

TEST(ReduceWindowEvaluatorTest, AddAndMaxWithPaddingStridesDilation) {
  EXPECT_THAT(ReduceWindow("f32[4]",
                           "f32[2] reduce-window(p0, p1), "
                           "window={size=2 stride=2}, to_apply=add",
                           F32({4}, {1, 2, 3, 4}), 0),
              Is({3, 7}));
  // Padding is skipped, so the max of a half-padded window is its element.
  EXPECT_THAT(ReduceWindow("f32[4]",
                           "f32[3] reduce-window(p0, p1), "
                           "window={size=2 stride=2 pad=1_1}, to_apply=max",
                           F32({4}, {1, 2, 3, 4}), -kInf),
              Is({1, 3, 4}));
  EXPECT_THAT(ReduceWindow("f32[2,3]",
                           "f32[1,2] reduce-window(p0, p1), "
                           "window={size=2x2}, to_apply=add",
                           F32({2, 3}, {1, 2, 3, 4, 5, 6}), 0),
              Is({12, 16}));
  // lhs_dilate: the base is 1 _ 2 _ 3; init 100 joins every window.
  EXPECT_THAT(ReduceWindow("f32[3]",
                           "f32[4] reduce-window(p0, p1), "
                           "window={size=2 lhs_dilate=2}, to_apply=add",
                           F32({3}, {1, 2, 3}), 100),
              Is({101, 102, 102, 103}));
  EXPECT_THAT(ReduceWindow("f32[4]",
                           "f32[2] reduce-window(p0, p1), "
                           "window={size=2 rhs_dilate=2}, to_apply=add",
                           F32({4}, {1, 2, 3, 4}), 0),
              Is({4, 6}));
}

std::vector<double> SelectAndScatter(const std::string& operand_shape,
                                     const std::string& source_shape,
                                     const std::string& window, Literal operand,
                                     Literal source) {
  return EvalRoot({operand_shape, source_shape, "f32[]"},
                  absl::StrCat(operand_shape,
                               " select-and-scatter(p0, p1, p2), window={",
                               window, "}, select=ge, scatter=add"),
                  {std::move(operand), std::move(source), F32({}, {0})}, kAdd);
}

TEST(SelectAndScatterEvaluatorTest, MaxPoolGradient) {
  EXPECT_THAT(SelectAndScatter("f32[4]", "f32[2]", "size=2 stride=2",
                               F32({4}, {1, 5, 3, 2}), F32({2}, {10, 20})),
              Is({0, 10, 20, 0}));
  // Ties go to the first element (GE keeps the selected one).
  EXPECT_THAT(SelectAndScatter("f32[4]", "f32[2]", "size=2 stride=2",
                               F32({4}, {2, 2, 1, 1}), F32({2}, {10, 20})),
              Is({10, 0, 20, 0}));
  // Overlapping windows that select one element add up there.
  EXPECT_THAT(SelectAndScatter("f32[3]", "f32[2]", "size=2 stride=1",
                               F32({3}, {1, 5, 3}), F32({2}, {1, 2})),
              Is({0, 3, 0}));
  EXPECT_THAT(SelectAndScatter("f32[2,4]", "f32[1,2]", "size=2x2 stride=2x2",
                               F32({2, 4}, {1, 2, 3, 9, 8, 4, 5, 6}),
                               F32({1, 2}, {7, 11})),
              Is({0, 0, 0, 11, 7, 0, 0, 0}));
}

absl::Status ParseAndVerify(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return VerifyHloModule(**module);
}

struct BadWindowCase {
  std::string name;
  std::string root;
  std::vector<std::string> expected;  // substrings of the error
};

class WindowRejectTest : public ::testing::TestWithParam<BadWindowCase> {};

TEST_P(WindowRejectTest, NamesTheProblem) {
  const std::string text =
      EntryModule({"f32[1,5,2]", "f32[2,2,4]", "f32[]"}, GetParam().root, kAdd);
  absl::Status status = ParseAndVerify(text);
  ASSERT_FALSE(status.ok()) << text;
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  for (const std::string& part : GetParam().expected) {
    EXPECT_THAT(status.message(), HasSubstr(part));
  }
}

std::string Conv(const std::string& shape, const std::string& attrs) {
  return absl::StrCat(shape, " convolution(p0, p1), ", attrs);
}

INSTANTIATE_TEST_SUITE_P(
    Convolution, WindowRejectTest,
    ::testing::Values(
        BadWindowCase{"StrideZero",
                      Conv("f32[1,4,4]",
                           "window={size=2 stride=0}, dim_labels=b0f_0io->b0f"),
                      {"stride", ">= 1", "got 0"}},
        BadWindowCase{"UnknownField",
                      Conv("f32[1,4,4]",
                           "window={size=2 step=1}, dim_labels=b0f_0io->b0f"),
                      {"step=1"}},
        BadWindowCase{"FieldTwice",
                      Conv("f32[1,4,4]",
                           "window={size=2 size=2}, dim_labels=b0f_0io->b0f"),
                      {"size given twice"}},
        BadWindowCase{"FieldLengths",
                      Conv("f32[1,4,4]", "window={size=2 pad=0_0x0_0}, "
                                         "dim_labels=b0f_0io->b0f"),
                      {"expected 1 dimensions, got 2"}},
        BadWindowCase{"HugeSize",
                      Conv("f32[1,4,4]", "window={size=99999999999999}, "
                                         "dim_labels=b0f_0io->b0f"),
                      {"99999999999999", "within"}},
        BadWindowCase{"LabelsRepeat",
                      Conv("f32[1,4,4]",
                           "window={size=2}, dim_labels=bbf_0io->b0f"),
                      {"dim_labels", "repeat 'b'"}},
        BadWindowCase{"LabelsSpatialCounts",
                      Conv("f32[1,4,4]",
                           "window={size=2}, dim_labels=b0f_01io->b0f"),
                      {"one number of spatial dimensions"}},
        BadWindowCase{"GroupCountZero",
                      Conv("f32[1,4,4]", "window={size=2}, "
                                         "dim_labels=b0f_0io->b0f, "
                                         "feature_group_count=0"),
                      {"feature_group_count", "got 0"}},
        BadWindowCase{"WindowRank",
                      Conv("f32[1,4,4]", "window={size=2x2}, "
                                         "dim_labels=b0f_0io->b0f"),
                      {"instruction 'r'", "window of 1 dimensions, got 2"}},
        BadWindowCase{"WindowSizeNotKernel",
                      Conv("f32[1,3,4]",
                           "window={size=3}, dim_labels=b0f_0io->b0f"),
                      {"expected window size 2", "got 3"}},
        BadWindowCase{"FeatureGroupsDoNotDivide",
                      Conv("f32[1,4,4]", "window={size=2}, "
                                         "dim_labels=b0f_0io->b0f, "
                                         "feature_group_count=3"),
                      {"feature_group_count 3 to divide"}},
        BadWindowCase{"KernelFeaturesNotGrouped",
                      Conv("f32[1,4,4]", "window={size=2}, "
                                         "dim_labels=b0f_0io->b0f, "
                                         "feature_group_count=2"),
                      {"kernel input feature dimension (2)"}},
        BadWindowCase{"ResultShape",
                      Conv("f32[1,5,4]",
                           "window={size=2}, dim_labels=b0f_0io->b0f"),
                      {"instruction 'r'", "f32[1,4,4]"}},
        BadWindowCase{"NegativePaddedBase",
                      Conv("f32[1,0,4]", "window={size=2 pad=-3_-3}, "
                                         "dim_labels=b0f_0io->b0f"),
                      {"padded base is negative"}}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Pooling, WindowRejectTest,
    ::testing::Values(
        BadWindowCase{"ReduceWindowRank",
                      "f32[1,4,2] reduce-window(p0, p2), window={size=1x2}, "
                      "to_apply=add",
                      {"instruction 'r'", "window of 3 dimensions, got 2"}},
        BadWindowCase{"ReduceWindowLacksWindow",
                      "f32[1,4,2] reduce-window(p0, p2), to_apply=add",
                      {"lacks its attribute window="}},
        BadWindowCase{"SourceShape",
                      "f32[1,5,2] select-and-scatter(p0, p0, p2), "
                      "window={size=1x2x1 stride=1x2x1}, select=ge, "
                      "scatter=add",
                      {"source", "f32[1,2,2]"}},
        BadWindowCase{"SelectNotPredicate",
                      "f32[1,5,2] select-and-scatter(p0, p0, p2), "
                      "window={size=1x1x1}, select=add, scatter=add",
                      {"select 'add'", "pred[]"}}),
    [](const auto& info) { return info.param.name; });

TEST(WindowTest, OutputSizeRefusesOverflow) {
  WindowDimension dim;
  dim.size = 2;
  dim.base_dilation = kMaxWindowValue;
  absl::StatusOr<int64_t> size =
      WindowedOutputSize(int64_t{1} << 62, dim);
  EXPECT_FALSE(size.ok());
  EXPECT_THAT(size.status().message(), HasSubstr("out of range"));
  dim.base_dilation = 1;
  size = WindowedOutputSize(1, dim);
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(*size, 0);  // the window does not fit
}

}  // namespace
}  // namespace xla_lite
