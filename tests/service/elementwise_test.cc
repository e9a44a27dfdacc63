// Every elementwise op, compiled and run on every platform, against the
// HloEvaluator.

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"

namespace xla_lite::testing {
namespace {

std::string Unary(const std::string& op, const std::string& in,
                  const std::string& out) {
  return absl::StrFormat(R"(
HloModule unary_%s

ENTRY main {
  x = %s[7,33]{1,0} parameter(0)
  ROOT r = %s[7,33]{1,0} %s(x)
})",
                         op, in, out, op);
}

std::string Binary(const std::string& op, const std::string& type) {
  return absl::StrFormat(R"(
HloModule binary_%s

ENTRY main {
  a = %s[5,41]{1,0} parameter(0)
  b = %s[5,41]{1,0} parameter(1)
  ROOT r = %s[5,41]{1,0} %s(a, b)
})",
                         op, type, type, type, op);
}

using ElementwiseTest = CompilerTest;

TEST_P(ElementwiseTest, FloatUnary) {
  struct Case {
    const char* op;
    double lo, hi;
  };
  for (const Case& c : std::vector<Case>{{"abs", -2, 2},
                                         {"ceil", -3, 3},
                                         {"floor", -3, 3},
                                         {"cosine", -4, 4},
                                         {"sine", -4, 4},
                                         {"exponential", -5, 5},
                                         {"exponential-minus-one", -1, 1},
                                         {"log", 0.05, 4},
                                         {"log-plus-one", -0.5, 3},
                                         {"logistic", -6, 6},
                                         {"negate", -2, 2},
                                         {"rsqrt", 0.05, 4},
                                         {"sign", -2, 2},
                                         {"sqrt", 0, 4},
                                         {"tanh", -3, 3}}) {
    SCOPED_TRACE(c.op);
    ExpectMatchesEvaluator(Unary(c.op, "f32", "f32"), c.lo, c.hi);
  }
}

TEST_P(ElementwiseTest, IsFiniteAndNot) {
  ExpectMatchesEvaluator(Unary("is-finite", "f32", "pred"));
  ExpectMatchesEvaluator(Unary("not", "pred", "pred"));
  ExpectMatchesEvaluator(Unary("not", "s32", "s32"), -100, 100);
}

TEST_P(ElementwiseTest, IntegerUnary) {
  for (const char* op : {"abs", "negate", "sign"}) {
    SCOPED_TRACE(op);
    ExpectMatchesEvaluator(Unary(op, "s32", "s32"), -50, 50);
  }
}

TEST_P(ElementwiseTest, FloatBinary) {
  for (const char* op : {"add", "subtract", "multiply", "maximum", "minimum"}) {
    SCOPED_TRACE(op);
    ExpectMatchesEvaluator(Binary(op, "f32"), -2, 2);
  }
  // Positive operands keep divide, power and remainder away from poles.
  for (const char* op : {"divide", "power", "remainder"}) {
    SCOPED_TRACE(op);
    ExpectMatchesEvaluator(Binary(op, "f32"), 0.25, 3);
  }
}

TEST_P(ElementwiseTest, IntegerBinary) {
  for (const char* op : {"add", "subtract", "multiply", "maximum", "minimum",
                         "and", "or", "xor"}) {
    SCOPED_TRACE(op);
    ExpectMatchesEvaluator(Binary(op, "s32"), -1000, 1000);
  }
  for (const char* op : {"divide", "remainder", "power"}) {
    SCOPED_TRACE(op);
    ExpectMatchesEvaluator(Binary(op, "s32"), 1, 9);
  }
}

TEST_P(ElementwiseTest, PredBinary) {
  for (const char* op : {"and", "or", "xor"}) {
    SCOPED_TRACE(op);
    ExpectMatchesEvaluator(Binary(op, "pred"));
  }
}

TEST_P(ElementwiseTest, CompareEveryDirection) {
  for (const char* type : {"f32", "s32"}) {
    for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      SCOPED_TRACE(absl::StrCat(type, " ", direction));
      // Few distinct values, so equal pairs occur.
      std::string hlo = absl::StrFormat(R"(
HloModule compare

ENTRY main {
  a = %s[6,20]{1,0} parameter(0)
  b = %s[6,20]{1,0} parameter(1)
  ROOT r = pred[6,20]{1,0} compare(a, b), direction=%s
})",
                            type, type, direction);
      ExpectMatchesEvaluator(hlo, -3, 3);
    }
  }
}

TEST_P(ElementwiseTest, SmallIntegerValuedFloatsCompareEqual) {
  // Floats that are small integers, so EQ and NE see equal pairs.
  ExpectMatchesEvaluator(R"(
HloModule compare_floor

ENTRY main {
  a = f32[64]{0} parameter(0)
  b = f32[64]{0} parameter(1)
  fa = f32[64]{0} floor(a)
  fb = f32[64]{0} floor(b)
  eq = pred[64]{0} compare(fa, fb), direction=EQ
  ge = pred[64]{0} compare(fa, fb), direction=GE
  ROOT r = (pred[64]{0}, pred[64]{0}) tuple(eq, ge)
})",
                         -2, 2);
}

TEST_P(ElementwiseTest, SelectAndClamp) {
  ExpectMatchesEvaluator(R"(
HloModule select

ENTRY main {
  p = pred[9,13]{1,0} parameter(0)
  a = f32[9,13]{1,0} parameter(1)
  b = f32[9,13]{1,0} parameter(2)
  ROOT r = f32[9,13]{1,0} select(p, a, b)
})");
  ExpectMatchesEvaluator(R"(
HloModule clamp

ENTRY main {
  lo = f32[9,13]{1,0} parameter(0)
  x = f32[9,13]{1,0} parameter(1)
  c = f32[] constant(0.5)
  hi = f32[9,13]{1,0} broadcast(c), dimensions={}
  ROOT r = f32[9,13]{1,0} clamp(lo, x, hi)
})");
  ExpectMatchesEvaluator(R"(
HloModule clamp_s32

ENTRY main {
  lo = s32[40]{0} parameter(0)
  x = s32[40]{0} parameter(1)
  hi = s32[40]{0} parameter(2)
  ROOT r = s32[40]{0} clamp(lo, x, hi)
})",
                         -20, 20);
}

TEST_P(ElementwiseTest, Convert) {
  struct Case {
    const char* from;
    const char* to;
    double lo, hi;
  };
  for (const Case& c : std::vector<Case>{{"f32", "s32", -100, 100},
                                         {"s32", "f32", -100000, 100000},
                                         {"f32", "pred", -1, 1},
                                         {"pred", "f32", 0, 1},
                                         {"s32", "pred", -2, 2},
                                         {"pred", "s32", 0, 1},
                                         {"f32", "bf16", -10, 10},
                                         {"bf16", "f32", -10, 10},
                                         {"f32", "f16", -10, 10},
                                         {"f16", "f32", -10, 10}}) {
    SCOPED_TRACE(absl::StrCat(c.from, " -> ", c.to));
    ExpectMatchesEvaluator(Unary("convert", c.from, c.to), c.lo, c.hi);
  }
}

// The HLO's a * b, exp, + a chain on 16-bit floats, with the chain's
// arithmetic in `compute` (its operands and result converted when that is
// not `type`).
std::string HalfPrecisionChain(const std::string& type,
                               const std::string& compute) {
  const bool wide = type != compute;
  return absl::StrFormat(R"(
HloModule half

ENTRY main {
  a = %s[130]{0} parameter(0)
  b = %s[130]{0} parameter(1)
  ca = %s[130]{0} %s(a)
  cb = %s[130]{0} %s(b)
  m = %s[130]{0} multiply(ca, cb)
  e = %s[130]{0} exponential(m)
  s = %s[130]{0} add(e, ca)
  ROOT r = %s[130]{0} %s(s)
})",
                         type, type, compute, wide ? "convert" : "copy",
                         compute, wide ? "convert" : "copy", compute, compute,
                         compute, type, wide ? "convert" : "copy");
}

// Without excess precision every op rounds its result to its type, as the
// evaluator does.
TEST_P(ElementwiseTest, HalfPrecisionArithmeticRoundsEachOp) {
  DebugOptions options = OpByOpOptions();
  options.set_xla_allow_excess_precision(false);
  for (const char* type : {"bf16", "f16"}) {
    SCOPED_TRACE(type);
    ExpectMatchesEvaluator(HalfPrecisionChain(type, type), -2, 2, options);
  }
}

// With excess precision (the default) the chain is computed in f32 and
// rounded once, where it is stored: the evaluator's results for the same
// chain written in f32 between converts. Rounding after each op instead
// gives other values for some elements, so the bound below tells the two
// apart.
TEST_P(ElementwiseTest, HalfPrecisionArithmeticKeepsExcessPrecision) {
  for (const char* type : {"bf16", "f16"}) {
    SCOPED_TRACE(type);
    const std::string chain = HalfPrecisionChain(type, type);
    absl::StatusOr<std::unique_ptr<HloModule>> module = Parse(chain);
    ASSERT_TRUE(module.ok()) << module.status();
    std::mt19937 rng(1234);
    std::vector<Literal> arguments = RandomArguments(**module, rng, -2, 2);
    absl::StatusOr<std::vector<Literal>> actual =
        CompileAndRun(chain, arguments);
    ASSERT_TRUE(actual.ok()) << actual.status();
    absl::StatusOr<std::vector<Literal>> once =
        Evaluate(HalfPrecisionChain(type, "f32"), arguments);
    ASSERT_TRUE(once.ok()) << once.status();
    EXPECT_TRUE(CompareLiterals((*actual)[0], (*once)[0]).ok())
        << CompareLiterals((*actual)[0], (*once)[0]);
    absl::StatusOr<std::vector<Literal>> each_op = Evaluate(chain, arguments);
    ASSERT_TRUE(each_op.ok()) << each_op.status();
    EXPECT_FALSE(CompareLiterals((*actual)[0], (*each_op)[0]).ok());
  }
}

TEST_P(ElementwiseTest, PowerAndLogisticInAFusion) {
  ExpectMatchesEvaluator(R"(
HloModule pow_logistic

ENTRY main {
  a = f32[3,50]{1,0} parameter(0)
  b = f32[3,50]{1,0} parameter(1)
  s = f32[3,50]{1,0} logistic(a)
  p = f32[3,50]{1,0} power(s, b)
  ROOT r = f32[3,50]{1,0} multiply(p, a)
})",
                         -3, 3);
}

INSTANTIATE_FOR_ALL_PLATFORMS(ElementwiseTest);

}  // namespace
}  // namespace xla_lite::testing
