// SplitColumnReductions: which reduces it splits, into what, and that the
// split module computes what the original did.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_evaluator.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/service/reduction_splitter.h"

namespace xla_lite {
namespace {

constexpr char kReducers[] = R"(add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}

)";

// Values whose sums are exact in f32 in any order, so the split module
// must give the same bytes.
Literal SmallMultiples(PrimitiveType type, std::vector<int64_t> dims) {
  Literal literal(Shape::Array(type, std::move(dims)));
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetFromDouble(i, (i * 7 % 13) * 0.25 - 1.5);
  }
  return literal;
}

std::vector<std::vector<int64_t>> ReduceShapes(const HloModule& module) {
  std::vector<std::vector<int64_t>> shapes;
  for (HloInstruction* instruction :
       module.entry_computation()->MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kReduce) {
      shapes.push_back(instruction->shape().dimensions());
    }
  }
  return shapes;
}

// Splits `root` over a parameter of `shape` and checks the reduces the
// module then holds and that its result is unchanged.
void ExpectSplit(const std::string& shape, const std::string& root,
                 std::vector<int64_t> dims,
                 const std::vector<std::vector<int64_t>>& want_reduces) {
  SCOPED_TRACE(root);
  std::unique_ptr<HloModule> module =
      ParseOrDie(EntryModule({shape, "f32[]"}, root, kReducers));
  ASSERT_NE(module, nullptr);
  std::vector<Literal> args;
  args.push_back(SmallMultiples(PrimitiveType::F32, dims));
  args.push_back(Literal::CreateR0<float>(PrimitiveType::F32, 0.5f));
  absl::StatusOr<std::vector<Literal>> before = EvaluateModule(*module, args);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(SplitColumnReductions(module.get()).ok());
  absl::Status verified = VerifyHloModule(*module);
  ASSERT_TRUE(verified.ok()) << verified << "\n" << module->ToString();
  EXPECT_EQ(ReduceShapes(*module), want_reduces) << module->ToString();
  absl::StatusOr<std::vector<Literal>> after = EvaluateModule(*module, args);
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(after->size(), before->size());
  for (size_t i = 0; i < before->size(); ++i) {
    EXPECT_EQ((*after)[i].bytes(), (*before)[i].bytes())
        << (*after)[i].ToString() << " vs " << (*before)[i].ToString();
  }
}

TEST(ReductionSplitterTest, SplitIsADivisorNearTheWantedPartials) {
  // 16K partial outputs wanted: 64 x 256, 16 x 1024.
  EXPECT_EQ(ColumnReductionSplit(8192, 256), 64);
  EXPECT_EQ(ColumnReductionSplit(8192, 1024), 16);
  EXPECT_EQ(ColumnReductionSplit(6000, 100), 150);
  EXPECT_EQ(ColumnReductionSplit(8194, 256), 34);
  // Rows one kernel reads as fast (4096 and fewer), too many columns, or
  // no divisor leaving 16 rows a part.
  EXPECT_EQ(ColumnReductionSplit(4096, 256), std::nullopt);
  EXPECT_EQ(ColumnReductionSplit(2048, 1024), std::nullopt);
  EXPECT_EQ(ColumnReductionSplit(8192, 8192), std::nullopt);
  EXPECT_EQ(ColumnReductionSplit(8209, 16), std::nullopt);
}

TEST(ReductionSplitterTest, OuterReductionsSplitAndKeepTheirValues) {
  ExpectSplit("f32[8192,256]",
              "f32[256] reduce(p0, p1), dimensions={0}, to_apply=add",
              {8192, 256}, {{64, 256}, {256}});
  // Several leading dimensions, and a maximum.
  ExpectSplit("f32[64,128,96]",
              "f32[96] reduce(p0, p1), dimensions={1,0}, to_apply=max",
              {64, 128, 96}, {{128, 96}, {96}});
  // Several kept dimensions come back in their shape.
  ExpectSplit("f32[8192,8,32]",
              "f32[8,32] reduce(p0, p1), dimensions={0}, to_apply=add",
              {8192, 8, 32}, {{64, 256}, {256}});
}

TEST(ReductionSplitterTest, OtherReductionsStayWhole) {
  // Rows (reduced minor dimension), a middle dimension, too few rows.
  ExpectSplit("f32[2048,256]",
              "f32[2048] reduce(p0, p1), dimensions={1}, to_apply=add",
              {2048, 256}, {{2048}});
  ExpectSplit("f32[16,2048,8]",
              "f32[16,8] reduce(p0, p1), dimensions={1}, to_apply=add",
              {16, 2048, 8}, {{16, 8}});
  ExpectSplit("f32[128,256]",
              "f32[256] reduce(p0, p1), dimensions={0}, to_apply=add",
              {128, 256}, {{256}});
  ExpectSplit("f32[16,128,256]",
              "f32[256] reduce(p0, p1), dimensions={0,1}, to_apply=add",
              {16, 128, 256}, {{256}});
}

}  // namespace
}  // namespace xla_lite
