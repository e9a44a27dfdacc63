// Each op on tiny inputs whose results are worked out by hand in the
// comments (or by the C library for transcendental functions).
#include "xla_lite/hlo/hlo_evaluator.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/evaluator_test_util.h"
#include "tests/hlo/hlo_test_util.h"

namespace xla_lite {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::vector<double> Unary(const std::string& op, std::vector<double> x) {
  const std::string shape = absl::StrCat("f32[", x.size(), "]");
  return EvalRoot({shape}, absl::StrCat(shape, " ", op, "(p0)"),
                  {F32({static_cast<int64_t>(x.size())}, x)});
}

std::vector<double> Binary(const std::string& op, const std::string& type,
                           std::vector<double> a, std::vector<double> b) {
  const std::string shape = absl::StrCat(type, "[", a.size(), "]");
  absl::StatusOr<PrimitiveType> parsed =
      primitive_util::StringToPrimitiveType(type);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  const PrimitiveType t = parsed.value_or(PrimitiveType::F32);
  const int64_t n = a.size();
  return EvalRoot({shape, shape}, absl::StrCat(shape, " ", op, "(p0, p1)"),
                  {Make(t, {n}, a), Make(t, {n}, b)});
}

// Integer types other than s32 wrap at their own width, and u64 is
// unsigned all the way.
TEST(EvaluatorElementwiseTest, IntegerTypesOfEveryWidth) {
  EXPECT_THAT(Binary("add", "s8", {127, -128}, {1, -1}), Is({-128, 127}));
  EXPECT_THAT(Binary("multiply", "u16", {300, 2}, {300, 3}),
              Is({90000 % 65536, 6}));
  EXPECT_THAT(Binary("divide", "u32", {4294967295.0, 7}, {2, 0}),
              Is({2147483647, 4294967295.0}));
  const std::string u64 = "u64[2]";
  std::string text = absl::StrCat(
      "HloModule t\n\nENTRY e {\n  a = ", u64, " parameter(0)\n  b = ", u64,
      " parameter(1)\n  q = ", u64, " divide(a, b)\n  m = ", u64,
      " maximum(a, b)\n  c = pred[2] compare(a, b), direction=GT\n"
      "  ROOT t = (u64[2], u64[2], pred[2]) tuple(q, m, c)\n}\n");
  Literal a(Shape(PrimitiveType::U64, {2})), b(Shape(PrimitiveType::U64, {2}));
  a.mutable_data<uint64_t>()[0] = ~uint64_t{0};  // 2^64 - 1
  a.mutable_data<uint64_t>()[1] = 5;
  b.mutable_data<uint64_t>()[0] = 2;
  b.mutable_data<uint64_t>()[1] = uint64_t{1} << 63;
  std::vector<Literal> out = Evaluate(text, {a, b});
  ASSERT_EQ(out.size(), 3);
  EXPECT_EQ(out[0].data<uint64_t>()[0], ~uint64_t{0} / 2);
  EXPECT_EQ(out[0].data<uint64_t>()[1], 0);
  EXPECT_EQ(out[1].data<uint64_t>()[0], ~uint64_t{0});
  EXPECT_EQ(out[1].data<uint64_t>()[1], uint64_t{1} << 63);
  EXPECT_THAT(Values(out[2]), Is({1, 0}));
}

TEST(EvaluatorElementwiseTest, F64KeepsDoublePrecision) {
  EXPECT_THAT(Binary("add", "f64", {0.1, 1e300}, {0.2, 1e300}),
              Is({0.1 + 0.2, 2e300}));
}

TEST(EvaluatorElementwiseTest, ExactUnaryOps) {
  EXPECT_THAT(Unary("abs", {-1.5, 0, 2}), Is({1.5, 0, 2}));
  EXPECT_THAT(Unary("negate", {-1.5, 0, 2}), Is({1.5, 0, -2}));
  EXPECT_THAT(Unary("ceil", {-1.5, 0.25, 2}), Is({-1, 1, 2}));
  EXPECT_THAT(Unary("floor", {-1.5, 0.25, 2}), Is({-2, 0, 2}));
  EXPECT_THAT(Unary("sign", {-3, 0, 0.5}), Is({-1, 0, 1}));
  EXPECT_THAT(Unary("sqrt", {0, 1, 6.25}), Is({0, 1, 2.5}));
  EXPECT_THAT(Unary("rsqrt", {4, 0.25, 1}), Is({0.5, 2, 1}));
  EXPECT_THAT(Unary("copy", {7, -8}), Is({7, -8}));
  // Values the functions hit exactly.
  EXPECT_THAT(Unary("exponential", {0}), Is({1}));
  EXPECT_THAT(Unary("log", {1}), Is({0}));
  EXPECT_THAT(Unary("tanh", {0}), Is({0}));
  EXPECT_THAT(Unary("logistic", {0}), Is({0.5}));
  EXPECT_THAT(Unary("sine", {0}), Is({0}));
  EXPECT_THAT(Unary("cosine", {0}), Is({1}));
  EXPECT_THAT(Unary("exponential-minus-one", {0}), Is({0}));
  EXPECT_THAT(Unary("log-plus-one", {0}), Is({0}));
}

TEST(EvaluatorElementwiseTest, TranscendentalOpsRoundToF32) {
  // The double result rounded once to f32.
  auto f = [](double v) { return static_cast<double>(static_cast<float>(v)); };
  EXPECT_THAT(Unary("exponential", {1}), Is({f(M_E)}));
  EXPECT_THAT(Unary("log", {2}), Is({f(M_LN2)}));
  EXPECT_THAT(Unary("tanh", {0.5}), Is({f(std::tanh(0.5))}));
  EXPECT_THAT(Unary("logistic", {2}),
              Is({f(1 / (1 + std::exp(-2.0)))}));
  EXPECT_THAT(Unary("exponential-minus-one", {1e-10}),
              Is({f(1e-10)}));  // exp(x)-1 would lose it
}

TEST(EvaluatorElementwiseTest, IsFinite) {
  EXPECT_THAT(EvalRoot({"f32[4]"}, "pred[4] is-finite(p0)",
                       {F32({4}, {1, kInf, -kInf, NAN})}),
              Is({1, 0, 0, 0}));
}

TEST(EvaluatorElementwiseTest, FloatBinaryOps) {
  EXPECT_THAT(Binary("add", "f32", {1, 2.5}, {3, -4}),
              Is({4, -1.5}));
  EXPECT_THAT(Binary("subtract", "f32", {1, 2.5}, {3, -4}),
              Is({-2, 6.5}));
  EXPECT_THAT(Binary("multiply", "f32", {1.5, -2}, {4, 3}),
              Is({6, -6}));
  EXPECT_THAT(Binary("divide", "f32", {1, -9}, {4, 3}),
              Is({0.25, -3}));
  EXPECT_THAT(Binary("power", "f32", {2, 9}, {3, 0.5}),
              Is({8, 3}));
  EXPECT_THAT(Binary("remainder", "f32", {7, -7}, {3, 3}),
              Is({1, -1}));
  EXPECT_THAT(Binary("maximum", "f32", {1, 5}, {3, -4}),
              Is({3, 5}));
  EXPECT_THAT(Binary("minimum", "f32", {1, 5}, {3, -4}),
              Is({1, -4}));
}

TEST(EvaluatorElementwiseTest, MaximumAndMinimumPropagateNaN) {
  for (const char* op : {"maximum", "minimum"}) {
    std::vector<double> out = Binary(op, "f32", {NAN, 1}, {1, NAN});
    ASSERT_EQ(out.size(), 2);
    EXPECT_TRUE(std::isnan(out[0])) << op;
    EXPECT_TRUE(std::isnan(out[1])) << op;
  }
}

TEST(EvaluatorElementwiseTest, IntegerOps) {
  // C++ integer semantics: division truncates toward zero.
  EXPECT_THAT(Binary("divide", "s32", {7, -7}, {2, 2}),
              Is({3, -3}));
  EXPECT_THAT(Binary("remainder", "s32", {7, -7}, {2, 2}),
              Is({1, -1}));
  EXPECT_THAT(Binary("power", "s32", {3, -2}, {4, 3}),
              Is({81, -8}));
  // s32 wraps: 2^31 - 1 + 1 = -2^31.
  EXPECT_THAT(Binary("add", "s32", {2147483647}, {1}),
              Is({-2147483648.0}));
  EXPECT_THAT(Binary("and", "s32", {12}, {10}), Is({8}));
  EXPECT_THAT(Binary("or", "s32", {12}, {10}), Is({14}));
  EXPECT_THAT(Binary("xor", "s32", {12}, {10}), Is({6}));
  EXPECT_THAT(Binary("and", "pred", {1, 1, 0}, {1, 0, 0}),
              Is({1, 0, 0}));
  EXPECT_THAT(Binary("or", "pred", {1, 1, 0}, {1, 0, 0}),
              Is({1, 1, 0}));
  EXPECT_THAT(Binary("xor", "pred", {1, 1, 0}, {1, 0, 0}),
              Is({0, 1, 0}));
  EXPECT_THAT(EvalRoot({"pred[2]"}, "pred[2] not(p0)",
                       {Make(PrimitiveType::PRED, {2}, {1, 0})}),
              Is({0, 1}));
  EXPECT_THAT(EvalRoot({"s32[2]"}, "s32[2] not(p0)",
                       {Make(PrimitiveType::S32, {2}, {0, 5})}),
              Is({-1, -6}));
  EXPECT_THAT(EvalRoot({"s32[3]"}, "s32[3] sign(p0)",
                       {Make(PrimitiveType::S32, {3}, {-4, 0, 9})}),
              Is({-1, 0, 1}));
}

TEST(EvaluatorElementwiseTest, CompareAllDirections) {
  const Literal a = F32({4}, {1, 2, 3, NAN});
  const Literal b = F32({4}, {2, 2, 2, NAN});
  struct Case {
    const char* direction;
    std::vector<double> expected;
  };
  // NaN compares unequal to everything, itself included.
  for (const Case& c : std::vector<Case>{{"EQ", {0, 1, 0, 0}},
                                         {"NE", {1, 0, 1, 1}},
                                         {"LT", {1, 0, 0, 0}},
                                         {"LE", {1, 1, 0, 0}},
                                         {"GT", {0, 0, 1, 0}},
                                         {"GE", {0, 1, 1, 0}}}) {
    EXPECT_THAT(EvalRoot({"f32[4]", "f32[4]"},
                         absl::StrCat("pred[4] compare(p0, p1), direction=",
                                      c.direction),
                         {a, b}),
                Is(c.expected))
        << c.direction;
  }
}

TEST(EvaluatorElementwiseTest, SelectClampConvert) {
  EXPECT_THAT(
      EvalRoot({"pred[3]", "f32[3]", "f32[3]"}, "f32[3] select(p0, p1, p2)",
               {Make(PrimitiveType::PRED, {3}, {1, 0, 1}), F32({3}, {1, 2, 3}),
                F32({3}, {-1, -2, -3})}),
      Is({1, -2, 3}));
  EXPECT_THAT(EvalRoot({"f32[]", "f32[4]", "f32[]"},
                       "f32[4] clamp(p0, p1, p2)",
                       {F32({}, {-1}), F32({4}, {-5, -0.5, 0.5, 5}),
                        F32({}, {1})}),
              Is({-1, -0.5, 0.5, 1}));
  // Float to integer truncates toward zero.
  EXPECT_THAT(EvalRoot({"f32[4]"}, "s32[4] convert(p0)",
                       {F32({4}, {2.7, -2.7, 0, 100})}),
              Is({2, -2, 0, 100}));
  EXPECT_THAT(EvalRoot({"f32[3]"}, "pred[3] convert(p0)",
                       {F32({3}, {0, -0.5, 3})}),
              Is({0, 1, 1}));
  // 1 + 2^-8 is halfway between the bf16 neighbours 1 and 1 + 2^-7: ties
  // go to the even one, 1; 1 + 3 * 2^-8 goes up to 1 + 2^-6.
  EXPECT_THAT(EvalRoot({"f32[2]"}, "bf16[2] convert(p0)",
                       {F32({2}, {1 + 1.0 / 256, 1 + 3.0 / 256})}),
              Is({1, 1 + 1.0 / 64}));
}

TEST(EvaluatorElementwiseTest, LowPrecisionRoundsAfterEachOp) {
  // In bf16, 1 + 2^-8 rounds back to 1 (ties to even); f32 keeps it.
  EXPECT_THAT(Binary("add", "bf16", {1}, {1.0 / 256}), Is({1}));
  EXPECT_THAT(Binary("add", "f32", {1}, {1.0 / 256}),
              Is({1 + 1.0 / 256}));
  // f16 has 10 mantissa bits: 2048 + 1 is not representable, 2048 + 2 is.
  EXPECT_THAT(Binary("add", "f16", {2048, 2048}, {1, 2}),
              Is({2048, 2050}));
}

const Literal& Matrix23() {
  // {{1, 2, 3},
  //  {4, 5, 6}}
  static const Literal* m = new Literal(F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  return *m;
}

TEST(EvaluatorDataMovementTest, Broadcast) {
  EXPECT_THAT(EvalRoot({"f32[3]"}, "f32[2,3] broadcast(p0), dimensions={1}",
                       {F32({3}, {1, 2, 3})}),
              Is({1, 2, 3, 1, 2, 3}));
  EXPECT_THAT(EvalRoot({"f32[2]"}, "f32[2,3] broadcast(p0), dimensions={0}",
                       {F32({2}, {1, 2})}),
              Is({1, 1, 1, 2, 2, 2}));
  EXPECT_THAT(EvalRoot({"f32[]"}, "f32[2,2] broadcast(p0), dimensions={}",
                       {F32({}, {7})}),
              Is({7, 7, 7, 7}));
  // Operand dimensions 0,1 land on output dimensions 2,0: out[i][j][k] =
  // in[k][i], so out[i][j] rows are {in[0][i], in[1][i]}.
  EXPECT_THAT(EvalRoot({"f32[2,3]"},
                       "f32[3,2,2] broadcast(p0), dimensions={2,0}",
                       {Matrix23()}),
              Is({1, 4, 1, 4, 2, 5, 2, 5, 3, 6, 3, 6}));
}

TEST(EvaluatorDataMovementTest, ReshapeTransposeBitcastCopy) {
  EXPECT_THAT(EvalRoot({"f32[2,3]"}, "f32[3,2] reshape(p0)", {Matrix23()}),
              Is({1, 2, 3, 4, 5, 6}));
  EXPECT_THAT(EvalRoot({"f32[2,3]"}, "f32[3,2] transpose(p0), dimensions={1,0}",
                       {Matrix23()}),
              Is({1, 4, 2, 5, 3, 6}));
  // Row-major [2,3] memory read as a column-major [3,2]: the transpose.
  EXPECT_THAT(EvalRoot({"f32[2,3]{1,0}"}, "f32[3,2]{0,1} bitcast(p0)",
                       {Matrix23()}),
              Is({1, 4, 2, 5, 3, 6}));
  // With default layouts on both sides a bitcast is a reshape.
  EXPECT_THAT(EvalRoot({"f32[2,3]{1,0}"}, "f32[6]{0} bitcast(p0)",
                       {Matrix23()}),
              Is({1, 2, 3, 4, 5, 6}));
  // Layouts do not change logical values.
  EXPECT_THAT(EvalRoot({"f32[2,3]{1,0}"}, "f32[2,3]{0,1} copy(p0)",
                       {Matrix23()}),
              Is({1, 2, 3, 4, 5, 6}));
  // 3-d: out[a][b][c] = in[b][c][a] for dimensions={2,0,1}; in is [2,1,3]
  // holding 1..6, so out is [3,2,1] with out[a][b][0] = in[b][0][a].
  EXPECT_THAT(EvalRoot({"f32[2,1,3]"},
                       "f32[3,2,1] transpose(p0), dimensions={2,0,1}",
                       {F32({2, 1, 3}, {1, 2, 3, 4, 5, 6})}),
              Is({1, 4, 2, 5, 3, 6}));
}

TEST(EvaluatorDataMovementTest, SliceConcatenateReverseIota) {
  EXPECT_THAT(EvalRoot({"f32[2,3]"}, "f32[2,2] slice(p0), slice={[0:2], [0:3:2]}",
                       {Matrix23()}),
              Is({1, 3, 4, 6}));
  EXPECT_THAT(EvalRoot({"f32[2,3]"}, "f32[1,2] slice(p0), slice={[1:2], [1:3]}",
                       {Matrix23()}),
              Is({5, 6}));
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[2,1]"},
                       "f32[2,4] concatenate(p0, p1), dimensions={1}",
                       {Matrix23(), F32({2, 1}, {7, 8})}),
              Is({1, 2, 3, 7, 4, 5, 6, 8}));
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[1,3]"},
                       "f32[3,3] concatenate(p0, p1), dimensions={0}",
                       {Matrix23(), F32({1, 3}, {7, 8, 9})}),
              Is({1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_THAT(EvalRoot({"f32[2,3]"}, "f32[2,3] reverse(p0), dimensions={1}",
                       {Matrix23()}),
              Is({3, 2, 1, 6, 5, 4}));
  EXPECT_THAT(EvalRoot({"f32[2,3]"}, "f32[2,3] reverse(p0), dimensions={0,1}",
                       {Matrix23()}),
              Is({6, 5, 4, 3, 2, 1}));
  EXPECT_THAT(EvalRoot({}, "s32[2,3] iota(), iota_dimension=0", {}),
              Is({0, 0, 0, 1, 1, 1}));
  EXPECT_THAT(EvalRoot({}, "f32[2,3] iota(), iota_dimension=1", {}),
              Is({0, 1, 2, 0, 1, 2}));
}

TEST(EvaluatorDotTest, MatrixProduct) {
  // {{1,2,3},{4,5,6}} x {{1,0},{0,1},{1,1}} = {{1+3, 2+3}, {4+6, 5+6}}.
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[3,2]"},
                       "f32[2,2] dot(p0, p1), lhs_contracting_dims={1}, "
                       "rhs_contracting_dims={0}",
                       {Matrix23(), F32({3, 2}, {1, 0, 0, 1, 1, 1})}),
              Is({4, 5, 10, 11}));
}

TEST(EvaluatorDotTest, ContractingDimensionZero) {
  // lhs^T rhs with lhs = {{1,2,3},{4,5,6}}, rhs = {{1,0},{0,1}}:
  // out[i][j] = sum_k lhs[k][i] rhs[k][j] = lhs[j][i] -> the transpose.
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[2,2]"},
                       "f32[3,2] dot(p0, p1), lhs_contracting_dims={0}, "
                       "rhs_contracting_dims={0}",
                       {Matrix23(), F32({2, 2}, {1, 0, 0, 1})}),
              Is({1, 4, 2, 5, 3, 6}));
  // Contracting both operands' dimension 1: lhs rhs^T; rhs = {{1,1,1}}
  // gives the row sums {6, 15}.
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[1,3]"},
                       "f32[2,1] dot(p0, p1), lhs_contracting_dims={1}, "
                       "rhs_contracting_dims={1}",
                       {Matrix23(), F32({1, 3}, {1, 1, 1})}),
              Is({6, 15}));
}

TEST(EvaluatorDotTest, BatchDimensions) {
  // Batch 0: {{1,2}} x {{1},{1}} = 3.  Batch 1: {{3,4}} x {{2},{0}} = 6.
  EXPECT_THAT(EvalRoot({"f32[2,1,2]", "f32[2,2,1]"},
                       "f32[2,1,1] dot(p0, p1), lhs_batch_dims={0}, "
                       "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                       "rhs_contracting_dims={1}",
                       {F32({2, 1, 2}, {1, 2, 3, 4}),
                        F32({2, 2, 1}, {1, 1, 2, 0})}),
              Is({3, 6}));
  // Batch dimension last on the rhs: rhs[k][b] with b the batch index;
  // out[b][i] = sum_k lhs[b][i][k] * rhs[k][b].  lhs[0] = {{1,2},{3,4}},
  // lhs[1] = {{5,6},{7,8}}, rhs = {{1,10},{2,20}}:
  // b=0: {1+4, 3+8} = {5, 11}; b=1: {50+120, 70+160} = {170, 230}.
  EXPECT_THAT(EvalRoot({"f32[2,2,2]", "f32[2,2]"},
                       "f32[2,2] dot(p0, p1), lhs_batch_dims={0}, "
                       "lhs_contracting_dims={2}, rhs_batch_dims={1}, "
                       "rhs_contracting_dims={0}",
                       {F32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                        F32({2, 2}, {1, 10, 2, 20})}),
              Is({5, 11, 170, 230}));
}

const char kAdd[] =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(a, b)\n}\n\n";
const char kMax[] =
    "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT s = f32[] maximum(a, b)\n}\n\n";
// acc + x * x: not a single op, so evaluated as a computation.
const char kSumSquares[] =
    "sum_sq {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  m = f32[] multiply(b, b)\n  ROOT s = f32[] add(a, m)\n}\n\n";

TEST(EvaluatorReduceTest, EachDimension) {
  const std::vector<Literal> args = {Matrix23(), F32({}, {0})};
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[]"},
                       "f32[3] reduce(p0, p1), dimensions={0}, to_apply=add",
                       args, kAdd),
              Is({5, 7, 9}));
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[]"},
                       "f32[2] reduce(p0, p1), dimensions={1}, to_apply=add",
                       args, kAdd),
              Is({6, 15}));
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[]"},
                       "f32[] reduce(p0, p1), dimensions={0,1}, to_apply=add",
                       args, kAdd),
              Is({21}));
}

TEST(EvaluatorReduceTest, InitValueAndOtherReducers) {
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[]"},
                       "f32[2] reduce(p0, p1), dimensions={1}, to_apply=add",
                       {Matrix23(), F32({}, {100})}, kAdd),
              Is({106, 115}));
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[]"},
                       "f32[3] reduce(p0, p1), dimensions={0}, to_apply=max",
                       {F32({2, 3}, {1, 9, -3, 4, 2, -7}), F32({}, {-kInf})},
                       kMax),
              Is({4, 9, -3}));
  // Rows: 1+4+9 = 14, 16+25+36 = 77.
  EXPECT_THAT(EvalRoot({"f32[2,3]", "f32[]"},
                       "f32[2] reduce(p0, p1), dimensions={1}, to_apply=sum_sq",
                       {Matrix23(), F32({}, {0})}, kSumSquares),
              Is({14, 77}));
  // Reducing the middle of three dimensions: [2,2,2] holding 1..8,
  // out[i][k] = in[i][0][k] + in[i][1][k].
  EXPECT_THAT(EvalRoot({"f32[2,2,2]", "f32[]"},
                       "f32[2,2] reduce(p0, p1), dimensions={1}, to_apply=add",
                       {F32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                        F32({}, {0})},
                       kAdd),
              Is({4, 6, 12, 14}));
}

TEST(EvaluatorStructureTest, CallTupleAndGetTupleElement) {
  const std::string text = absl::StrCat(
      "HloModule t\n\n", kAdd,
      "pair {\n  x = f32[2] parameter(0)\n  n = f32[2] negate(x)\n"
      "  ROOT t = (f32[2], f32[2]) tuple(x, n)\n}\n\n"
      "ENTRY e {\n  p = f32[2] parameter(0)\n"
      "  c = (f32[2], f32[2]) call(p), to_apply=pair\n"
      "  g = f32[2] get-tuple-element(c), index=1\n"
      "  a = f32[] constant(1)\n  b = f32[] constant(2)\n"
      "  s = f32[] call(a, b), to_apply=add\n"
      "  ROOT r = ((f32[2], f32[2]), f32[2], f32[]) tuple(c, g, s)\n}\n");
  std::vector<Literal> out = Evaluate(text, {F32({2}, {1, -3})});
  // Nested tuples come back flattened in order.
  ASSERT_EQ(out.size(), 4);
  EXPECT_THAT(Values(out[0]), Is({1, -3}));
  EXPECT_THAT(Values(out[1]), Is({-1, 3}));
  EXPECT_THAT(Values(out[2]), Is({-1, 3}));
  EXPECT_THAT(Values(out[3]), Is({3}));
}

TEST(EvaluatorStructureTest, ConstantsAndFusion) {
  const std::string text =
      "HloModule t\n\nfused {\n  a = f32[2,2] parameter(0)\n"
      "  b = f32[2,2] parameter(1)\n  ROOT m = f32[2,2] multiply(a, b)\n}\n\n"
      "ENTRY e {\n  c = f32[2,2] constant({ {1, 2}, {3, 4} })\n"
      "  p = f32[2,2] parameter(0)\n"
      "  ROOT f = f32[2,2] fusion(c, p), kind=kLoop, calls=fused\n}\n";
  std::vector<Literal> out = Evaluate(text, {F32({2, 2}, {2, 2, -1, 0.5})});
  ASSERT_EQ(out.size(), 1);
  EXPECT_THAT(Values(out[0]), Is({2, 4, -3, 2}));
}

TEST(EvaluatorErrorsTest, ArgumentsMustMatchTheEntry) {
  std::unique_ptr<HloModule> module = ParseOrDie(
      "HloModule t\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::vector<Literal>> none = EvaluateModule(*module, {});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<Literal> wrong;
  wrong.push_back(F32({3}, {1, 2, 3}));
  absl::StatusOr<std::vector<Literal>> bad = EvaluateModule(*module, wrong);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("f32[3]"));
}

TEST(EvaluatorErrorsTest, VariadicReduceIsUnimplemented) {
  std::unique_ptr<HloModule> module = ParseOrDie(
      "HloModule t\n\nr2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n"
      "  ROOT t = (f32[], f32[]) tuple(a, b)\n}\n\n"
      "ENTRY e {\n  p = f32[2] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = (f32[], f32[]) reduce(p, p, z, z), dimensions={0}, "
      "to_apply=r2\n}\n");
  ASSERT_NE(module, nullptr);
  std::vector<Literal> args;
  args.push_back(F32({2}, {1, 2}));
  absl::StatusOr<std::vector<Literal>> out = EvaluateModule(*module, args);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("variadic reduce"));
}

}  // namespace
}  // namespace xla_lite
