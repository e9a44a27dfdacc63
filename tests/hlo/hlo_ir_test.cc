// Shape, Literal, opcodes and the instruction/computation/module graph.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/float16.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/hlo_opcode.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/shape.h"

namespace xla_lite {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ShapeTest, PrintsAndCompares) {
  Shape row_major = Shape::Array(PrimitiveType::F32, {2, 3});
  Shape col_major = Shape::Array(PrimitiveType::F32, {2, 3}, {0, 1});
  EXPECT_EQ(row_major.ToString(), "f32[2,3]");
  EXPECT_EQ(row_major.ToString(true), "f32[2,3]{1,0}");
  EXPECT_EQ(col_major.ToString(true), "f32[2,3]{0,1}");
  EXPECT_EQ(Shape::Array(PrimitiveType::PRED, {}).ToString(true), "pred[]");
  EXPECT_TRUE(row_major.HasDefaultLayout());
  EXPECT_FALSE(col_major.HasDefaultLayout());
  EXPECT_TRUE(row_major.Compatible(col_major));
  EXPECT_NE(row_major, col_major);
  col_major.SetDefaultLayout();
  EXPECT_EQ(row_major, col_major);
  EXPECT_FALSE(row_major.Compatible(Shape::Array(PrimitiveType::S32, {2, 3})));
  EXPECT_EQ(row_major.ElementCount(), 6);
  EXPECT_EQ(row_major.ByteSize(), 24);
  EXPECT_EQ(Shape::Array(PrimitiveType::BF16, {5}).ByteSize(), 10);
  // The runtime's array shapes: the default layout.
  EXPECT_EQ(Shape(PrimitiveType::F32, {2, 3}), row_major);

  Shape tuple = Shape::Tuple({row_major, Shape::Array(PrimitiveType::S32, {})});
  EXPECT_EQ(tuple.ToString(true), "(f32[2,3]{1,0}, s32[])");
  EXPECT_TRUE(tuple.IsTuple());
  EXPECT_EQ(tuple.ByteSize(), 0);
  EXPECT_FALSE(tuple.Compatible(row_major));
}

TEST(ShapeTest, ParsesEveryElementTypeName) {
  for (PrimitiveType type : primitive_util::AllPrimitiveTypes()) {
    std::string text =
        absl::StrCat("HloModule m\n\nENTRY main {\n  ROOT p = ",
                     primitive_util::LowercasePrimitiveTypeName(type),
                     "[2] parameter(0)\n}\n");
    auto module = ParseHloModule(text, "types");
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_EQ((*module)->entry_computation()->root_instruction()->shape(),
              Shape(type, {2}));
  }
  auto unknown = ParseHloModule(
      "HloModule m\n\nENTRY main {\n  ROOT p = c64[2] parameter(0)\n}\n",
      "types");
  EXPECT_FALSE(unknown.ok());
}

// f16 and bf16 conversions: xla_lite/float16_test.cc.

TEST(LiteralTest, ElementAccessAndPrinting) {
  Literal l = Literal::FromDoubles(Shape::Array(PrimitiveType::F32, {2, 2}),
                                   {1, 2.5, -3, 0.1});
  EXPECT_EQ(l.ToString(), "f32[2,2] {{1, 2.5}, {-3, 0.1}}");
  EXPECT_EQ(l.ValuesToString(), "{{1, 2.5}, {-3, 0.1}}");
  EXPECT_EQ(l.data<float>()[3], 0.1f);
  // Constructors store values row-major with the default layout.
  Literal col(Shape::Array(PrimitiveType::S32, {2, 2}, {0, 1}));
  EXPECT_TRUE(col.shape().HasDefaultLayout());
  EXPECT_EQ(col.bytes().size(), 16);

  Literal big(Shape::Array(PrimitiveType::S64, {1}));
  big.SetFromInt64(0, (int64_t{1} << 53) + 1);
  EXPECT_EQ(big.GetAsInt64(0), (int64_t{1} << 53) + 1);
  Literal pred = Literal::CreateR0(PrimitiveType::PRED, true);
  EXPECT_EQ(pred.ValuesToString(), "true");
  Literal bf = Literal::CreateR0(PrimitiveType::BF16, 3.0f);
  EXPECT_EQ(bf.data<uint16_t>()[0], F32ToBF16(3.0f));

  Literal many(Shape::Array(PrimitiveType::U8, {100}));
  EXPECT_THAT(many.ToString(), HasSubstr("..."));
  EXPECT_THAT(many.ValuesToString(), ::testing::Not(HasSubstr("...")));
}

TEST(HloOpcodeTest, EverySpellingRoundTrips) {
#define XLA_LITE_CHECK_OPCODE(enum_name, text)                      \
  {                                                                 \
    EXPECT_EQ(HloOpcodeString(HloOpcode::enum_name), text);         \
    absl::StatusOr<HloOpcode> parsed = StringToHloOpcode(text);     \
    ASSERT_TRUE(parsed.ok()) << text;                               \
    EXPECT_EQ(*parsed, HloOpcode::enum_name);                       \
  }
  XLA_LITE_HLO_OPCODE_LIST(XLA_LITE_CHECK_OPCODE)
#undef XLA_LITE_CHECK_OPCODE
  absl::StatusOr<HloOpcode> unknown = StringToHloOpcode("cholesky");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("cholesky"));
}

TEST(HloOpcodeTest, ElementwiseClasses) {
  EXPECT_TRUE(IsElementwiseUnary(HloOpcode::kExp));
  EXPECT_TRUE(IsElementwiseUnary(HloOpcode::kIsFinite));
  EXPECT_FALSE(IsElementwiseUnary(HloOpcode::kConvert));
  EXPECT_TRUE(IsElementwiseBinary(HloOpcode::kMaximum));
  EXPECT_FALSE(IsElementwiseBinary(HloOpcode::kCompare));
  for (HloOpcode op : {HloOpcode::kCompare, HloOpcode::kSelect,
                       HloOpcode::kClamp, HloOpcode::kConvert,
                       HloOpcode::kAdd, HloOpcode::kTanh}) {
    EXPECT_TRUE(IsElementwise(op)) << HloOpcodeString(op);
  }
  for (HloOpcode op : {HloOpcode::kDot, HloOpcode::kBroadcast,
                       HloOpcode::kReduce, HloOpcode::kTuple}) {
    EXPECT_FALSE(IsElementwise(op)) << HloOpcodeString(op);
  }
}

// e(p0, p1) = (p0 + p1) * p0, plus a dead negate of p1.
struct Graph {
  std::unique_ptr<HloComputation> computation =
      std::make_unique<HloComputation>("e");
  HloInstruction* p0;
  HloInstruction* p1;
  HloInstruction* sum;
  HloInstruction* product;
  HloInstruction* dead;

  Graph() {
    p0 = Add(HloOpcode::kParameter, "p0", {}, 0);
    p1 = Add(HloOpcode::kParameter, "p1", {}, 1);
    sum = Add(HloOpcode::kAdd, "sum", {p0, p1});
    product = Add(HloOpcode::kMultiply, "product", {sum, p0});
    dead = Add(HloOpcode::kNegate, "dead", {p1});
    computation->set_root_instruction(product);
  }
  HloInstruction* Add(HloOpcode opcode, const std::string& name,
                      std::vector<HloInstruction*> operands,
                      int64_t parameter_number = -1) {
    auto instr = std::make_unique<HloInstruction>(
        opcode, Shape::Array(PrimitiveType::F32, {2}), name);
    instr->set_parameter_number(parameter_number);
    for (HloInstruction* operand : operands) instr->AppendOperand(operand);
    return computation->AddInstruction(std::move(instr));
  }
};

std::vector<std::string> Names(const std::vector<HloInstruction*>& instrs) {
  std::vector<std::string> names;
  for (const HloInstruction* instr : instrs) names.push_back(instr->name());
  return names;
}

TEST(HloComputationTest, UsersAndReplacement) {
  Graph g;
  EXPECT_THAT(Names(g.p0->users()), ElementsAre("sum", "product"));
  EXPECT_THAT(Names(g.p1->users()), ElementsAre("sum", "dead"));
  EXPECT_EQ(g.computation->num_parameters(), 2);
  EXPECT_EQ(g.computation->parameter_instruction(1), g.p1);
  EXPECT_TRUE(g.product->IsRoot());

  // Replace the root: users move, and so does the root.
  HloInstruction* neg = g.Add(HloOpcode::kNegate, "neg", {g.sum});
  g.product->ReplaceAllUsesWith(neg);
  EXPECT_EQ(g.computation->root_instruction(), neg);
  g.sum->ReplaceOperandWith(g.p1, g.p0);
  EXPECT_THAT(Names(g.p1->users()), ElementsAre("dead"));
  EXPECT_EQ(g.sum->operand(1), g.p0);
  EXPECT_THAT(Names(g.p0->users()), ElementsAre("sum", "product"));
}

TEST(HloComputationTest, RemovingInstructions) {
  Graph g;
  absl::Status in_use = g.computation->RemoveInstruction(g.sum);
  EXPECT_EQ(in_use.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(in_use.message(), HasSubstr("sum"));
  EXPECT_EQ(g.computation->RemoveInstruction(g.product).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(g.computation->RemoveInstruction(g.dead).ok());
  EXPECT_THAT(Names(g.p1->users()), ElementsAre("sum"));
  EXPECT_EQ(g.computation->instruction_count(), 4);
}

TEST(HloComputationTest, DeadCodeAndPostOrder) {
  Graph g;
  // The dead negate and an unused parameter-only chain go; parameters stay.
  g.Add(HloOpcode::kExp, "dead2", {g.dead});
  g.computation->RemoveDeadInstructions();
  EXPECT_THAT(Names(g.computation->instructions()),
              ElementsAre("p0", "p1", "sum", "product"));
  EXPECT_THAT(Names(g.p1->users()), ElementsAre("sum"));
  EXPECT_THAT(Names(g.computation->MakeInstructionPostOrder()),
              ElementsAre("p0", "p1", "sum", "product"));
}

TEST(HloComputationTest, PostOrderPutsUnusedParametersFirst) {
  Graph g;
  g.product->ReplaceOperandWith(g.sum, g.p0);  // p1 now unreachable
  std::vector<HloInstruction*> order =
      g.computation->MakeInstructionPostOrder();
  EXPECT_THAT(Names(order), ElementsAre("p1", "p0", "product"));
}

TEST(HloModuleTest, ProgrammaticModulePrintsParseableText) {
  Graph g;
  auto module = std::make_unique<HloModule>("built");
  HloComputation* entry = module->AddEntryComputation(std::move(g.computation));
  // The layout comes from the entry when none was set.
  ASSERT_EQ(module->entry_computation_layout().parameter_shapes.size(), 2);
  EXPECT_EQ(module->entry_computation_layout().result_shape,
            Shape::Array(PrimitiveType::F32, {2}));
  // An instruction added last but used by an earlier one still prints
  // before its user.
  auto constant = std::make_unique<HloInstruction>(
      HloOpcode::kConstant, Shape::Array(PrimitiveType::F32, {2}), "k");
  constant->set_literal(
      Literal::FromDoubles(Shape::Array(PrimitiveType::F32, {2}), {1.5, -2}));
  HloInstruction* k = entry->AddInstruction(std::move(constant));
  g.sum->ReplaceOperandWith(g.p1, k);
  const std::string text = module->ToString();
  std::unique_ptr<HloModule> reparsed = ParseOrDie(text);
  ASSERT_NE(reparsed, nullptr) << text;
  EXPECT_EQ(reparsed->ToString(), text);
  EXPECT_THAT(text, HasSubstr("%k = f32[2]{0} constant({1.5, -2})"));
}

TEST(HloModuleTest, RemoveUnusedComputations) {
  std::unique_ptr<HloModule> module = ParseOrDie(
      "HloModule m\n\nused {\n  ROOT a = f32[] parameter(0)\n}\n\n"
      "unused {\n  ROOT b = f32[] parameter(0)\n}\n\n"
      "ENTRY e {\n  p = f32[] parameter(0)\n"
      "  ROOT c = f32[] call(p), to_apply=used\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->computations().size(), 3);
  module->RemoveUnusedComputations();
  ASSERT_EQ(module->computations().size(), 2);
  EXPECT_NE(module->GetComputation("used"), nullptr);
  EXPECT_EQ(module->GetComputation("unused"), nullptr);
}

}  // namespace
}  // namespace xla_lite
