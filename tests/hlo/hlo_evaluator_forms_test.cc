// The forms of iota, concatenate, compare, convert, select, clamp, dot and
// reduce that a transformer's training step uses, on inputs whose results
// are worked out by hand in the comments.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/evaluator_test_util.h"

namespace xla_lite {
namespace {

const double kNaN = std::nan("");

TEST(EvaluatorFormsTest, IotaAlongAnyDimension) {
  EXPECT_THAT(EvalRoot({}, "s32[2,3,2] iota(), iota_dimension=1", {}),
              Is({0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2}));
  EXPECT_THAT(EvalRoot({}, "s32[1,2,3] iota(), iota_dimension=2", {}),
              Is({0, 1, 2, 0, 1, 2}));
  EXPECT_THAT(EvalRoot({}, "bf16[3] iota(), iota_dimension=0", {}),
              Is({0, 1, 2}));
}

TEST(EvaluatorFormsTest, ConcatenateThreeOperands) {
  // The q, k, v gradients joined along their last dimension:
  // {{1},{2}} ++ {{3,4},{5,6}} ++ {{7},{8}}.
  EXPECT_THAT(EvalRoot({"f32[1,2,1]", "f32[1,2,2]", "f32[1,2,1]"},
                       "f32[1,2,4] concatenate(p0, p1, p2), dimensions={2}",
                       {F32({1, 2, 1}, {1, 2}), F32({1, 2, 2}, {3, 4, 5, 6}),
                        F32({1, 2, 1}, {7, 8})}),
              Is({1, 3, 4, 7, 2, 5, 6, 8}));
}

TEST(EvaluatorFormsTest, CompareSignedIntegers) {
  // a = {-3, 0, 5}, b = {-3, 1, 2}.
  const std::vector<Literal> args = {S32({3}, {-3, 0, 5}),
                                     S32({3}, {-3, 1, 2})};
  const struct {
    const char* direction;
    std::vector<double> expected;
  } kCases[] = {{"EQ", {1, 0, 0}}, {"NE", {0, 1, 1}}, {"LT", {0, 1, 0}},
                {"LE", {1, 1, 0}}, {"GT", {0, 0, 1}}, {"GE", {1, 0, 1}}};
  for (const auto& c : kCases) {
    EXPECT_THAT(EvalRoot({"s32[3]", "s32[3]"},
                         std::string("pred[3] compare(p0, p1), direction=") +
                             c.direction,
                         args),
                Is(c.expected))
        << c.direction;
    // type=SIGNED is what s32 means anyway.
    EXPECT_THAT(EvalRoot({"s32[3]", "s32[3]"},
                         std::string("pred[3] compare(p0, p1), direction=") +
                             c.direction + ", type=SIGNED",
                         args),
                Is(c.expected))
        << c.direction;
  }
  // Unsigned: 2^32 - 1 is the largest u32, not -1.
  EXPECT_THAT(EvalRoot({"u32[2]", "u32[2]"},
                       "pred[2] compare(p0, p1), direction=GT, type=UNSIGNED",
                       {Make(PrimitiveType::U32, {2}, {4294967295.0, 1}),
                        Make(PrimitiveType::U32, {2}, {1, 2})}),
              Is({1, 0}));
}

TEST(EvaluatorFormsTest, CompareTotalOrder) {
  // a = {-0, NaN, NaN, 1}, b = {+0, inf, NaN, 1}. FLOAT: -0 == +0 and NaN
  // is unordered. TOTALORDER: -0 < +0, +NaN above +inf, NaN equals itself.
  const std::vector<Literal> args = {F32({4}, {-0.0, kNaN, kNaN, 1}),
                                     F32({4}, {0.0, kInf, kNaN, 1})};
  const std::vector<std::string> params = {"f32[4]", "f32[4]"};
  EXPECT_THAT(EvalRoot(params, "pred[4] compare(p0, p1), direction=LT", args),
              Is({0, 0, 0, 0}));
  EXPECT_THAT(EvalRoot(params, "pred[4] compare(p0, p1), direction=EQ", args),
              Is({1, 0, 0, 1}));
  EXPECT_THAT(
      EvalRoot(params, "pred[4] compare(p0, p1), direction=LT, type=TOTALORDER",
               args),
      Is({1, 0, 0, 0}));
  EXPECT_THAT(
      EvalRoot(params, "pred[4] compare(p0, p1), direction=EQ, type=TOTALORDER",
               args),
      Is({0, 0, 1, 1}));
  EXPECT_THAT(
      EvalRoot(params, "pred[4] compare(p0, p1), direction=GT, type=TOTALORDER",
               args),
      Is({0, 1, 0, 0}));
}

// XLA's convert: float to integer truncates toward zero and saturates at
// the type's bounds, NaN giving 0 (XLA's CPU and GPU emitters clamp the
// same way); to pred is "!= 0", so NaN is true; integer to float rounds to
// nearest even.
TEST(EvaluatorFormsTest, ConvertRoundingAndTruncation) {
  EXPECT_THAT(EvalRoot({"f32[6]"}, "s32[6] convert(p0)",
                       {F32({6}, {2.7, -2.7, 3e9, -3e9, kNaN, 0.5})}),
              Is({2, -2, 2147483647, -2147483648.0, 0, 0}));
  // 2^24 + 1 lies halfway between the f32 neighbours 2^24 and 2^24 + 2:
  // ties go to the even significand; 2^24 + 3 goes up to 2^24 + 4.
  EXPECT_THAT(EvalRoot({"s32[3]"}, "f32[3] convert(p0)",
                       {S32({3}, {16777217, 16777219, -16777217})}),
              Is({16777216, 16777220, -16777216}));
  // bf16 keeps 8 significant bits: 257 ties down to 256, 259 up to 260.
  EXPECT_THAT(
      EvalRoot({"s32[3]"}, "bf16[3] convert(p0)", {S32({3}, {257, 259, -257})}),
      Is({256, 260, -256}));
  EXPECT_THAT(EvalRoot({"bf16[2]"}, "s32[2] convert(p0)",
                       {Make(PrimitiveType::BF16, {2}, {2.5, -1.5})}),
              Is({2, -1}));
  EXPECT_THAT(EvalRoot({"f32[4]"}, "pred[4] convert(p0)",
                       {F32({4}, {0.0, -0.0, 0.1, kNaN})}),
              Is({0, 0, 1, 1}));
  EXPECT_THAT(
      EvalRoot({"s32[3]"}, "pred[3] convert(p0)", {S32({3}, {0, 5, -1})}),
      Is({0, 1, 1}));
  EXPECT_THAT(EvalRoot({"pred[2]"}, "f32[2] convert(p0)",
                       {Make(PrimitiveType::PRED, {2}, {1, 0})}),
              Is({1, 0}));
  EXPECT_THAT(EvalRoot({"pred[2]"}, "s32[2] convert(p0)",
                       {Make(PrimitiveType::PRED, {2}, {1, 0})}),
              Is({1, 0}));
}

TEST(EvaluatorFormsTest, SelectAndClampOnIntegers) {
  // take_along_axis wraps negative indices: select(idx < 0, idx + 64, idx).
  EXPECT_THAT(
      EvalRoot({"pred[3]", "s32[3]", "s32[3]"}, "s32[3] select(p0, p1, p2)",
               {Make(PrimitiveType::PRED, {3}, {1, 0, 1}), S32({3}, {1, 2, 3}),
                S32({3}, {-1, -2, -3})}),
      Is({1, -2, 3}));
  EXPECT_THAT(EvalRoot({"s32[]", "s32[3]", "s32[]"}, "s32[3] clamp(p0, p1, p2)",
                       {S32({}, {0}), S32({3}, {-5, 3, 70}), S32({}, {63})}),
              Is({0, 3, 63}));
}

TEST(EvaluatorFormsTest, AttentionScoresBqhdBkhdToBhqk) {
  // One sequence, 2 queries, 2 keys, 2 heads of 2. Batch dimensions b and
  // h come first in the result, then q (lhs free), then k (rhs free):
  // out[h][q][k] = sum_d q[q][h][d] k[k][h][d].
  // q: q0 = {h0: {1,2}, h1: {3,4}}, q1 = {h0: {5,6}, h1: {7,8}};
  // k: k0 = {h0: {1,0}, h1: {0,1}}, k1 = {h0: {1,1}, h1: {2,0}}.
  // h0: {{1, 3}, {5, 11}}; h1: {{4, 6}, {8, 14}}.
  EXPECT_THAT(EvalRoot({"f32[1,2,2,2]", "f32[1,2,2,2]"},
                       "f32[1,2,2,2] dot(p0, p1), lhs_batch_dims={0,2}, "
                       "lhs_contracting_dims={3}, rhs_batch_dims={0,2}, "
                       "rhs_contracting_dims={3}",
                       {F32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                        F32({1, 2, 2, 2}, {1, 0, 0, 1, 1, 1, 2, 0})}),
              Is({1, 3, 5, 11, 4, 6, 8, 14}));
}

TEST(EvaluatorFormsTest, AttentionValuesWithBatchDimensionsApart) {
  // JAX's weighted values: v[b][k][h][d] (batch b, h; contract k) against
  // p[b][h][q][k] (batch b, h; contract k): out[b][h][d][q] =
  // sum_k v[k][h][d] p[h][q][k].
  // v: k0 = {h0: {1,2}, h1: {3,4}}, k1 = {h0: {5,6}, h1: {7,8}};
  // p: h0 = {q0: {1,0}, q1: {1,1}}, h1 = {q0: {0,1}, q1: {2,1}}.
  // h0: d0 = {1, 1+5}, d1 = {2, 2+6}; h1: d0 = {7, 6+7}, d1 = {8, 8+8}.
  EXPECT_THAT(EvalRoot({"f32[1,2,2,2]", "f32[1,2,2,2]"},
                       "f32[1,2,2,2] dot(p0, p1), lhs_batch_dims={0,2}, "
                       "lhs_contracting_dims={1}, rhs_batch_dims={0,1}, "
                       "rhs_contracting_dims={3}",
                       {F32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                        F32({1, 2, 2, 2}, {1, 0, 1, 1, 0, 1, 2, 1})}),
              Is({1, 6, 2, 8, 7, 13, 8, 16}));
}

const char kMax[] =
    "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT m = f32[] maximum(a, b)\n}\n\n";
const char kAnd[] =
    "and {\n  a = pred[] parameter(0)\n  b = pred[] parameter(1)\n"
    "  ROOT m = pred[] and(a, b)\n}\n\n";

TEST(EvaluatorFormsTest, MaxOverSeveralDimensions) {
  // in[i][j][k] = {{{3,-1},{4,1}}, {{-5,9},{2,6}}}; reducing i and k
  // leaves j: j=0 sees {3,-1,-5,9}, j=1 sees {4,1,2,6}. The order the
  // dimensions are listed in does not matter.
  const std::vector<Literal> args = {F32({2, 2, 2}, {3, -1, 4, 1, -5, 9, 2, 6}),
                                     F32({}, {-kInf})};
  for (const char* dims : {"{0,2}", "{2,0}"}) {
    EXPECT_THAT(EvalRoot({"f32[2,2,2]", "f32[]"},
                         std::string("f32[2] reduce(p0, p1), dimensions=") +
                             dims + ", to_apply=max",
                         args, kMax),
                Is({9, 6}))
        << dims;
  }
  // All three: 9.
  EXPECT_THAT(EvalRoot({"f32[2,2,2]", "f32[]"},
                       "f32[] reduce(p0, p1), dimensions={0,1,2}, to_apply=max",
                       args, kMax),
              Is({9}));
}

TEST(EvaluatorFormsTest, AndReductionOverPred) {
  // Whether every index of a row is in range: {1,1} -> 1, {1,0} -> 0.
  EXPECT_THAT(EvalRoot({"pred[2,2]", "pred[]"},
                       "pred[2] reduce(p0, p1), dimensions={1}, to_apply=and",
                       {Make(PrimitiveType::PRED, {2, 2}, {1, 1, 1, 0}),
                        Make(PrimitiveType::PRED, {}, {1})},
                       kAnd),
              Is({1, 0}));
}

}  // namespace
}  // namespace xla_lite
