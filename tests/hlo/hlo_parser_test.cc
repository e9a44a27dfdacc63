#include "xla_lite/hlo/hlo_parser.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {
namespace {

// A module whose entry has parameters `params` (shapes, numbered in order)
// named p0, p1, ... and the instruction `root` (named r) as its root.
std::string EntryText(const std::vector<std::string>& params,
                      const std::string& root,
                      const std::string& extra_computations = "") {
  std::string text = absl::StrCat("HloModule test\n\n", extra_computations,
                                  "ENTRY main {\n");
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StrAppend(&text, "  p", i, " = ", params[i], " parameter(", i,
                    ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = ", root, "\n}\n");
  return text;
}

const char kAddComputation[] =
    "add_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(a, b)\n}\n\n";

// Parses and returns the entry root (the module stays alive in `module`).
const HloInstruction* ParseRoot(const std::string& text,
                                std::unique_ptr<HloModule>* module) {
  *module = ParseOrDie(text);
  if (*module == nullptr) return nullptr;
  return (*module)->entry_computation()->root_instruction();
}

TEST(HloParserTest, ElementwiseUnaryOps) {
  const std::vector<std::pair<std::string, HloOpcode>> ops = {
      {"abs", HloOpcode::kAbs},
      {"ceil", HloOpcode::kCeil},
      {"copy", HloOpcode::kCopy},
      {"cosine", HloOpcode::kCos},
      {"exponential", HloOpcode::kExp},
      {"exponential-minus-one", HloOpcode::kExpm1},
      {"floor", HloOpcode::kFloor},
      {"log", HloOpcode::kLog},
      {"log-plus-one", HloOpcode::kLog1p},
      {"logistic", HloOpcode::kLogistic},
      {"negate", HloOpcode::kNegate},
      {"rsqrt", HloOpcode::kRsqrt},
      {"sign", HloOpcode::kSign},
      {"sine", HloOpcode::kSin},
      {"sqrt", HloOpcode::kSqrt},
      {"tanh", HloOpcode::kTanh},
  };
  for (const auto& [spelling, opcode] : ops) {
    std::unique_ptr<HloModule> module;
    const HloInstruction* root = ParseRoot(
        EntryText({"f32[2,3]{1,0}"}, absl::StrCat("f32[2,3]{1,0} ", spelling,
                                                  "(p0)")),
        &module);
    ASSERT_NE(root, nullptr) << spelling;
    EXPECT_EQ(root->opcode(), opcode) << spelling;
    ASSERT_EQ(root->operand_count(), 1);
    EXPECT_EQ(root->operand(0)->name(), "p0");
    EXPECT_EQ(root->shape(), Shape::Array(PrimitiveType::F32, {2, 3}));
  }
}

TEST(HloParserTest, PredicateAndLogicalOps) {
  std::unique_ptr<HloModule> module;
  const HloInstruction* root = ParseRoot(
      EntryText({"f32[4]"}, "pred[4] is-finite(p0)"), &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kIsFinite);
  EXPECT_EQ(root->shape().element_type(), PrimitiveType::PRED);
  for (const auto& [spelling, opcode] :
       std::vector<std::pair<std::string, HloOpcode>>{
           {"and", HloOpcode::kAnd},
           {"or", HloOpcode::kOr},
           {"xor", HloOpcode::kXor}}) {
    root = ParseRoot(EntryText({"pred[4]", "pred[4]"},
                               absl::StrCat("pred[4] ", spelling, "(p0, p1)")),
                     &module);
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->opcode(), opcode);
    EXPECT_EQ(root->operand(1)->name(), "p1");
  }
  root = ParseRoot(EntryText({"s32[4]"}, "s32[4] not(p0)"), &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kNot);
}

TEST(HloParserTest, ElementwiseBinaryOps) {
  const std::vector<std::pair<std::string, HloOpcode>> ops = {
      {"add", HloOpcode::kAdd},           {"subtract", HloOpcode::kSubtract},
      {"multiply", HloOpcode::kMultiply}, {"divide", HloOpcode::kDivide},
      {"maximum", HloOpcode::kMaximum},   {"minimum", HloOpcode::kMinimum},
      {"power", HloOpcode::kPower},       {"remainder", HloOpcode::kRemainder},
  };
  for (const auto& [spelling, opcode] : ops) {
    std::unique_ptr<HloModule> module;
    // Operands written with their shapes and '%', as XLA prints them.
    const HloInstruction* root = ParseRoot(
        EntryText({"f32[3]{0}", "f32[3]{0}"},
                  absl::StrCat("f32[3]{0} ", spelling,
                               "(f32[3]{0} %p1, f32[3]{0} %p0)")),
        &module);
    ASSERT_NE(root, nullptr) << spelling;
    EXPECT_EQ(root->opcode(), opcode) << spelling;
    EXPECT_EQ(root->operand(0)->name(), "p1");
    EXPECT_EQ(root->operand(1)->name(), "p0");
  }
}

TEST(HloParserTest, CompareDirections) {
  const std::vector<std::pair<std::string, ComparisonDirection>> directions = {
      {"EQ", ComparisonDirection::kEq}, {"NE", ComparisonDirection::kNe},
      {"LT", ComparisonDirection::kLt}, {"LE", ComparisonDirection::kLe},
      {"GT", ComparisonDirection::kGt}, {"GE", ComparisonDirection::kGe},
  };
  for (const auto& [text, direction] : directions) {
    std::unique_ptr<HloModule> module;
    const HloInstruction* root = ParseRoot(
        EntryText({"f32[2]", "f32[2]"},
                  absl::StrCat("pred[2]{0} compare(p0, p1), direction=", text,
                               ", type=TOTALORDER")),
        &module);
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->opcode(), HloOpcode::kCompare);
    EXPECT_EQ(root->comparison_direction(), direction) << text;
  }
}

TEST(HloParserTest, SelectClampConvert) {
  std::unique_ptr<HloModule> module;
  const HloInstruction* root = ParseRoot(
      EntryText({"pred[2]", "f32[2]", "f32[2]"}, "f32[2] select(p0, p1, p2)"),
      &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kSelect);
  EXPECT_EQ(root->operand(2)->name(), "p2");

  root = ParseRoot(
      EntryText({"f32[]", "f32[2]", "f32[]"}, "f32[2] clamp(p0, p1, p2)"),
      &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kClamp);

  root = ParseRoot(EntryText({"f32[2]"}, "s32[2] convert(p0)"), &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kConvert);
  EXPECT_EQ(root->shape().element_type(), PrimitiveType::S32);
}

TEST(HloParserTest, ShapeOps) {
  std::unique_ptr<HloModule> module;
  const HloInstruction* root = ParseRoot(
      EntryText({"f32[3]"}, "f32[2,3]{1,0} broadcast(p0), dimensions={1}"),
      &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(root->dimensions(), std::vector<int64_t>({1}));

  root = ParseRoot(EntryText({"f32[2,3]"}, "f32[3,2]{0,1} transpose(p0), "
                                           "dimensions={1,0}"),
                   &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(root->dimensions(), std::vector<int64_t>({1, 0}));
  EXPECT_EQ(root->shape().minor_to_major(), std::vector<int64_t>({0, 1}));

  root = ParseRoot(EntryText({"f32[2,3]"}, "f32[6] reshape(p0)"), &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kReshape);

  root = ParseRoot(EntryText({"f32[2,3]{1,0}"}, "f32[3,2]{0,1} bitcast(p0)"),
                   &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kBitcast);

  root = ParseRoot(EntryText({"f32[4,6]"},
                             "f32[2,3] slice(p0), slice={[0:2], [1:6:2]}"),
                   &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kSlice);
  ASSERT_EQ(root->slice_dimensions().size(), 2);
  EXPECT_EQ(root->slice_dimensions()[0].start, 0);
  EXPECT_EQ(root->slice_dimensions()[0].limit, 2);
  EXPECT_EQ(root->slice_dimensions()[0].stride, 1);
  EXPECT_EQ(root->slice_dimensions()[1].start, 1);
  EXPECT_EQ(root->slice_dimensions()[1].limit, 6);
  EXPECT_EQ(root->slice_dimensions()[1].stride, 2);

  root = ParseRoot(EntryText({"f32[2,3]", "f32[2,1]"},
                             "f32[2,4] concatenate(p0, p1), dimensions={1}"),
                   &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kConcatenate);
  EXPECT_EQ(root->dimensions(), std::vector<int64_t>({1}));

  root = ParseRoot(EntryText({"f32[2,3]"},
                             "f32[2,3] reverse(p0), dimensions={0,1}"),
                   &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kReverse);
  EXPECT_EQ(root->dimensions(), std::vector<int64_t>({0, 1}));

  root = ParseRoot(EntryText({}, "s32[2,3] iota(), iota_dimension=1"), &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kIota);
  EXPECT_EQ(root->iota_dimension(), 1);
}

TEST(HloParserTest, DotAttributes) {
  std::unique_ptr<HloModule> module;
  const HloInstruction* root = ParseRoot(
      EntryText({"f32[4,2,3]", "f32[4,3,5]"},
                "f32[4,2,5] dot(p0, p1), lhs_batch_dims={0}, "
                "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                "rhs_contracting_dims={1}, operand_precision={highest,default}"),
      &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kDot);
  const DotDimensionNumbers& d = root->dot_dimension_numbers();
  EXPECT_EQ(d.lhs_batch_dimensions, std::vector<int64_t>({0}));
  EXPECT_EQ(d.rhs_batch_dimensions, std::vector<int64_t>({0}));
  EXPECT_EQ(d.lhs_contracting_dimensions, std::vector<int64_t>({2}));
  EXPECT_EQ(d.rhs_contracting_dimensions, std::vector<int64_t>({1}));
  EXPECT_EQ(root->operand_precision(),
            std::vector<PrecisionConfig>(
                {PrecisionConfig::kHighest, PrecisionConfig::kDefault}));
}

TEST(HloParserTest, ReduceCallTupleAndGetTupleElement) {
  std::unique_ptr<HloModule> module;
  const HloInstruction* root = ParseRoot(
      EntryText({"f32[2,3]", "f32[]"},
                "f32[2] reduce(p0, p1), dimensions={1}, to_apply=add_f32",
                kAddComputation),
      &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(root->dimensions(), std::vector<int64_t>({1}));
  ASSERT_NE(root->to_apply(), nullptr);
  EXPECT_EQ(root->to_apply()->name(), "add_f32");
  EXPECT_EQ(module->computations().size(), 2);

  root = ParseRoot(EntryText({"f32[]", "f32[]"},
                             "f32[] call(p0, p1), to_apply=%add_f32",
                             kAddComputation),
                   &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kCall);
  EXPECT_EQ(root->to_apply(), module->GetComputation("add_f32"));

  const std::string text =
      "HloModule t\n\nENTRY main {\n"
      "  p0 = f32[2] parameter(0)\n  p1 = s32[] parameter(1)\n"
      "  t = (f32[2], s32[]) tuple(p0, p1)\n"
      "  ROOT g = s32[] get-tuple-element(t), index=1\n}\n";
  root = ParseRoot(text, &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(root->tuple_index(), 1);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kTuple);
  EXPECT_TRUE(root->operand(0)->shape().IsTuple());
  EXPECT_EQ(root->operand(0)->shape().tuple_shapes_size(), 2);
}

TEST(HloParserTest, Constants) {
  std::unique_ptr<HloModule> module;
  const HloInstruction* root =
      ParseRoot(EntryText({}, "f32[2,2]{1,0} constant({ {1, 2}, {3, 4.5} })"),
                &module);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(root->literal().GetAsDouble(0), 1);
  EXPECT_EQ(root->literal().GetAsDouble(1), 2);
  EXPECT_EQ(root->literal().GetAsDouble(2), 3);
  EXPECT_EQ(root->literal().GetAsDouble(3), 4.5);

  struct Scalar {
    std::string text;
    double value;
  };
  for (const Scalar& s : std::vector<Scalar>{{"f32[] constant(-inf)", -INFINITY},
                                             {"f32[] constant(inf)", INFINITY},
                                             {"f32[] constant(1e-05)", 1e-05f},
                                             {"f32[] constant(-0.03125)", -0.03125},
                                             {"pred[] constant(true)", 1},
                                             {"pred[] constant(false)", 0},
                                             {"s32[] constant(-7)", -7}}) {
    root = ParseRoot(EntryText({}, s.text), &module);
    ASSERT_NE(root, nullptr) << s.text;
    EXPECT_EQ(root->literal().GetAsDouble(0), s.value) << s.text;
  }
  root = ParseRoot(EntryText({}, "f32[] constant(nan)"), &module);
  ASSERT_NE(root, nullptr);
  EXPECT_TRUE(std::isnan(root->literal().GetAsDouble(0)));
  root = ParseRoot(EntryText({}, "s64[2] constant({9007199254740993, -1})"),
                   &module);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->literal().GetAsInt64(0), 9007199254740993);
}

// Every element type's extremes print as HLO text and parse back to the
// same bits.
TEST(HloParserTest, ConstantsOfEveryElementTypeRoundTrip) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pred[2]", "{true, false}"},
      {"s8[2]", "{-128, 127}"},
      {"s16[2]", "{-32768, 32767}"},
      {"s32[2]", "{-2147483648, 2147483647}"},
      {"s64[2]", "{-9223372036854775808, 9223372036854775807}"},
      {"u8[2]", "{0, 255}"},
      {"u16[2]", "{0, 65535}"},
      {"u32[2]", "{0, 4294967295}"},
      {"u64[2]", "{0, 18446744073709551615}"},
      {"f16[3]", "{65504, 5.96e-08, -inf}"},
      {"bf16[3]", "{3.39e+38, -0.00781, nan}"},
      {"f32[2]", "{3.40282347e+38, 1e-45}"},
      {"f64[3]", "{0.1, 1.7976931348623157e+308, 5e-324}"},
  };
  for (const auto& [shape, values] : cases) {
    SCOPED_TRACE(shape);
    std::unique_ptr<HloModule> module;
    const HloInstruction* root = ParseRoot(
        EntryText({}, absl::StrCat(shape, " constant(", values, ")")), &module);
    ASSERT_NE(root, nullptr);
    const Literal& literal = root->literal();
    std::unique_ptr<HloModule> again;
    const HloInstruction* reparsed =
        ParseRoot(EntryText({}, absl::StrCat(shape, " constant(",
                                             literal.ValuesToString(), ")")),
                  &again);
    ASSERT_NE(reparsed, nullptr) << literal.ValuesToString();
    EXPECT_EQ(reparsed->literal().bytes(), literal.bytes())
        << literal.ValuesToString();
  }
  std::unique_ptr<HloModule> module;
  const HloInstruction* u64 =
      ParseRoot(EntryText({}, "u64[] constant(18446744073709551615)"), &module);
  ASSERT_NE(u64, nullptr);
  EXPECT_EQ(u64->literal().ValuesToString(), "18446744073709551615");
  EXPECT_EQ(u64->literal().data<uint64_t>()[0], ~uint64_t{0});
}

TEST(HloParserTest, HeaderAliasesAndLayout) {
  const std::string text =
      "HloModule m, is_scheduled=true, input_output_alias={ {0}: (1, {}, "
      "may-alias), {1}: (0, {}, must-alias) }, entry_computation_layout="
      "{(f32[2,3]{0,1}, /*index=1*/f32[3]{0})->(f32[3]{0}, f32[2,3]{1,0})}, "
      "frontend_attributes={a=\"b\"}\n\n"
      "ENTRY e {\n  a = f32[2,3]{0,1} parameter(0)\n"
      "  b = f32[3]{0} parameter(1), metadata={op_name=\"x\" source_line=3}\n"
      "  ROOT t = (f32[3]{0}, f32[2,3]{1,0}) tuple(b, a)\n}\n";
  std::unique_ptr<HloModule> module = ParseOrDie(text);
  ASSERT_NE(module, nullptr);
  ASSERT_EQ(module->input_output_aliases().size(), 2);
  const HloInputOutputAlias& first = module->input_output_aliases()[0];
  EXPECT_EQ(first.output_index, std::vector<int64_t>({0}));
  EXPECT_EQ(first.parameter_number, 1);
  EXPECT_TRUE(first.parameter_index.empty());
  EXPECT_FALSE(first.must_alias);
  EXPECT_TRUE(module->input_output_aliases()[1].must_alias);
  const ComputationLayout& layout = module->entry_computation_layout();
  ASSERT_EQ(layout.parameter_shapes.size(), 2);
  EXPECT_EQ(layout.parameter_shapes[0].minor_to_major(),
            std::vector<int64_t>({0, 1}));
  EXPECT_TRUE(layout.result_shape.IsTuple());
  EXPECT_EQ(layout.result_shape.tuple_shapes_size(), 2);
}

TEST(HloParserTest, LayoutDerivedFromEntryWhenHeaderHasNone) {
  std::unique_ptr<HloModule> module = ParseOrDie(
      EntryText({"f32[2,3]{0,1}", "s32[]"}, "f32[2,3]{0,1} copy(p0)"));
  ASSERT_NE(module, nullptr);
  const ComputationLayout& layout = module->entry_computation_layout();
  ASSERT_EQ(layout.parameter_shapes.size(), 2);
  EXPECT_EQ(layout.parameter_shapes[0],
            Shape::Array(PrimitiveType::F32, {2, 3}, {0, 1}));
  EXPECT_EQ(layout.parameter_shapes[1], Shape::Array(PrimitiveType::S32, {}));
  EXPECT_EQ(layout.result_shape,
            Shape::Array(PrimitiveType::F32, {2, 3}, {0, 1}));
}

TEST(HloParserTest, EntryIsTheLastComputationWithoutEntryKeyword) {
  std::unique_ptr<HloModule> module = ParseOrDie(
      "HloModule m\n\nfirst {\n  ROOT a = f32[] parameter(0)\n}\n\n"
      "second {\n  ROOT b = s32[] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "second");
}

TEST(HloParserTest, RootDefaultsToLastInstruction) {
  std::unique_ptr<HloModule> module = ParseOrDie(
      "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n"
      "  b = f32[] negate(a)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "b");
}

// Malformed text: the error names the source, line and column.
struct ErrorCase {
  std::string name;
  std::string text;
  std::string expected;
};

class HloParserErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(HloParserErrorTest, ReportsWhereAndWhat) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(GetParam().text, "case.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(module.status().message(), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, HloParserErrorTest,
    ::testing::Values(
        ErrorCase{"BadShape",
                  "HloModule m\n\nENTRY e {\n  p = f32[2,3 parameter(0)\n}\n",
                  "case.hlo:4:15: expected ',' or ']' in shape, got "
                  "'parameter'"},
        ErrorCase{"UnknownElementType",
                  "HloModule m\nENTRY e {\n  p = c64[2] parameter(0)\n}\n",
                  "case.hlo:3:7: expected element type (pred, s8 to s64, u8 "
                  "to u64, f16, bf16, f32, f64), got 'c64'"},
        ErrorCase{"MissingEquals",
                  "HloModule m\nENTRY e {\n  p f32[2] parameter(0)\n}\n",
                  "case.hlo:3:5: expected '=', got 'f32'"},
        ErrorCase{"UnknownOpcode",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT c = f32[2] cholesky(p), lower=true\n}\n",
                  "case.hlo:4:19: unknown opcode 'cholesky'"},
        ErrorCase{"UnknownOperand",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT n = f32[2] add(p, q)\n}\n",
                  "case.hlo:4:26: unknown operand 'q' (operands must be "
                  "defined before use)"},
        ErrorCase{"DuplicateName",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  p = f32[2] negate(p)\n}\n",
                  "case.hlo:4:3: duplicate instruction name 'p'"},
        ErrorCase{"UnterminatedComputation",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n",
                  "case.hlo:4:1: expected instruction or '}' closing "
                  "computation 'e', got '<eof>'"},
        ErrorCase{"BadDirection",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT c = pred[2] compare(p, p), direction=XY\n}\n",
                  "case.hlo:4:45: expected comparison direction (EQ, NE, LT, "
                  "LE, GT, GE), got 'XY'"},
        ErrorCase{"BadDimensionsValue",
                  "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n"
                  "  ROOT b = f32[2] broadcast(p), dimensions=0\n}\n",
                  "case.hlo:4:44: expected '{', got '0'"},
        ErrorCase{"UnknownComputation",
                  "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n"
                  "  ROOT c = f32[] call(p), to_apply=later\n}\n",
                  "case.hlo:4:36: unknown computation 'later' (computations "
                  "must be defined before use)"},
        ErrorCase{"TooManyConstantElements",
                  "HloModule m\nENTRY e {\n"
                  "  ROOT c = f32[2] constant({1, 2, 3})\n}\n",
                  "case.hlo:3:35: expected '}' after 2 elements of dimension "
                  "0, got '3'"},
        ErrorCase{"DuplicateParameterNumber",
                  "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n"
                  "  b = f32[] parameter(0)\n}\n",
                  "case.hlo:4:23: parameter 0 already defined by 'a'"},
        ErrorCase{"MissingHeader", "ENTRY e {\n}\n",
                  "case.hlo:1:1: expected 'HloModule', got 'ENTRY'"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) {
      return info.param.name;
    });

// Text that names something impossible or leaves out what an op needs is
// refused at the place that says so, not read as a default or wrapped.
INSTANTIATE_TEST_SUITE_P(
    Hostile, HloParserErrorTest,
    ::testing::Values(
        ErrorCase{"CompareWithoutDirection",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT c = pred[2] compare(p, p)\n}\n",
                  "case.hlo:4:8: compare 'c' lacks its attribute direction="},
        ErrorCase{"GatherWithoutIndexVectorDim",
                  "HloModule m\nENTRY e {\n  p = f32[4,3] parameter(0)\n"
                  "  i = s32[2] parameter(1)\n"
                  "  ROOT g = f32[2,3] gather(p, i), offset_dims={1}, "
                  "collapsed_slice_dims={0}, start_index_map={0}, "
                  "slice_sizes={1,3}\n}\n",
                  "case.hlo:5:8: gather 'g' lacks its attribute "
                  "index_vector_dim="},
        ErrorCase{"ScatterWithoutCombiner",
                  "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
                  "  i = s32[2] parameter(1)\n  u = f32[2] parameter(2)\n"
                  "  ROOT s = f32[4] scatter(p, i, u), update_window_dims={}, "
                  "inserted_window_dims={0}, "
                  "scatter_dims_to_operand_dims={0}, index_vector_dim=1\n}\n",
                  "case.hlo:6:8: scatter 's' lacks its attribute to_apply="},
        ErrorCase{"IotaWithoutDimension",
                  "HloModule m\nENTRY e {\n  ROOT i = s32[4] iota()\n}\n",
                  "case.hlo:3:8: iota 'i' lacks its attribute "
                  "iota_dimension="},
        ErrorCase{"AttributeGivenTwice",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT c = pred[2] compare(p, p), direction=LT, "
                  "direction=GT\n}\n",
                  "case.hlo:4:49: attribute 'direction' given twice"},
        ErrorCase{"S32ConstantOutOfRange",
                  "HloModule m\nENTRY e {\n"
                  "  ROOT c = s32[] constant(99999999999)\n}\n",
                  "case.hlo:3:27: expected s32 constant value in "
                  "[-2147483648, 2147483647], got '99999999999'"},
        ErrorCase{"U8ConstantNegative",
                  "HloModule m\nENTRY e {\n"
                  "  ROOT c = u8[2] constant({1, -1})\n}\n",
                  "case.hlo:3:31: expected u8 constant value in [0, 255], "
                  "got '-1'"},
        ErrorCase{"S64ConstantOutOfRange",
                  "HloModule m\nENTRY e {\n"
                  "  ROOT c = s64[] constant(9223372036854775808)\n}\n",
                  "case.hlo:3:27: expected s64 constant value in "
                  "[-9223372036854775808, 9223372036854775807], got "
                  "'9223372036854775808'"},
        ErrorCase{"F32ConstantOutOfRange",
                  "HloModule m\nENTRY e {\n"
                  "  ROOT c = f32[] constant(1e39)\n}\n",
                  "case.hlo:3:27: expected f32 constant value within the "
                  "type's range, got '1e39'"},
        ErrorCase{"BadComparisonType",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT c = pred[2] compare(p, p), direction=LT, "
                  "type=FOO\n}\n",
                  "case.hlo:4:54: expected comparison type (FLOAT, "
                  "TOTALORDER, SIGNED, UNSIGNED), got 'FOO'"},
        ErrorCase{"GatherIndexVectorDimNotAnInteger",
                  "HloModule m\nENTRY e {\n  p = f32[4,3] parameter(0)\n"
                  "  i = s32[2] parameter(1)\n"
                  "  ROOT g = f32[2,3] gather(p, i), index_vector_dim={1}\n"
                  "}\n",
                  "case.hlo:5:52: expected index vector dimension, got '{'"},
        ErrorCase{"BadBoolean",
                  "HloModule m\nENTRY e {\n  p = f32[4,3] parameter(0)\n"
                  "  i = s32[2] parameter(1)\n"
                  "  ROOT g = f32[2,3] gather(p, i), indices_are_sorted=1\n"
                  "}\n",
                  "case.hlo:5:54: expected true or false, got '1'"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace xla_lite
