// RewriteDynamicSlices against the reference evaluator: each module gives
// the same values before and after the rewrite (start indices in range,
// past either end, and of another integer type), and no dynamic slice is
// left. The scan export, whose loop body slices its micro-batches,
// evaluates to exactly what it did before.

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "tests/hlo/jax_reference_util.h"
#include "xla_lite/hlo/hlo_evaluator.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/service/dynamic_slice_rewriter.h"

namespace xla_lite {
namespace {

// Evaluates `module` on `args`, rewrites it, checks that it verifies and
// holds no dynamic slice, and evaluates it again: both results must be
// equal, byte for byte.
void ExpectSameAfterRewrite(HloModule* module,
                            const std::vector<Literal>& args) {
  absl::StatusOr<std::vector<Literal>> before = EvaluateModule(*module, args);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(RewriteDynamicSlices(module).ok());
  absl::Status verified = VerifyHloModule(*module);
  ASSERT_TRUE(verified.ok()) << verified << "\n" << module->ToString();
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kDynamicSlice), 0);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kDynamicUpdateSlice), 0);
  absl::StatusOr<std::vector<Literal>> after = EvaluateModule(*module, args);
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(after->size(), before->size());
  for (size_t i = 0; i < before->size(); ++i) {
    EXPECT_EQ((*after)[i].bytes(), (*before)[i].bytes())
        << "output " << i << ": " << (*after)[i].ToString() << " vs "
        << (*before)[i].ToString();
  }
}

Literal Iota(PrimitiveType type, std::vector<int64_t> dims) {
  Literal literal(Shape::Array(type, std::move(dims)));
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetFromDouble(i, i);
  }
  return literal;
}

TEST(DynamicSliceRewriterTest, SliceMatchesForStartsInAndOutOfRange) {
  for (int32_t row : {0, 2, 3, 9, -4}) {
    for (int32_t column : {0, 1, 5}) {
      std::unique_ptr<HloModule> module = ParseOrDie(EntryModule(
          {"f32[5,3]", "s32[]", "s32[]"},
          "f32[2,2] dynamic-slice(p0, p1, p2), dynamic_slice_sizes={2,2}"));
      ASSERT_NE(module, nullptr);
      SCOPED_TRACE(absl::StrCat("row ", row, " column ", column));
      ExpectSameAfterRewrite(
          module.get(),
          {Iota(PrimitiveType::F32, {5, 3}),
           Literal::CreateR0<int32_t>(PrimitiveType::S32, row),
           Literal::CreateR0<int32_t>(PrimitiveType::S32, column)});
    }
  }
}

TEST(DynamicSliceRewriterTest, UpdateMatchesForStartsInAndOutOfRange) {
  for (int32_t start : {0, 1, 3, 7, -2}) {
    std::unique_ptr<HloModule> module = ParseOrDie(EntryModule(
        {"f32[4,3]", "f32[2,3]", "s32[]", "s32[]"},
        "f32[4,3] dynamic-update-slice(p0, p1, p2, p3)"));
    ASSERT_NE(module, nullptr);
    SCOPED_TRACE(absl::StrCat("start ", start));
    Literal update(Shape::Array(PrimitiveType::F32, {2, 3}));
    for (int64_t i = 0; i < 6; ++i) update.SetFromDouble(i, 100 + i);
    ExpectSameAfterRewrite(
        module.get(),
        {Iota(PrimitiveType::F32, {4, 3}), update,
         Literal::CreateR0<int32_t>(PrimitiveType::S32, start),
         Literal::CreateR0<int32_t>(PrimitiveType::S32, start)});
  }
}

TEST(DynamicSliceRewriterTest, OtherIndexTypesAndRankOne) {
  // u8 indices are converted to s32 before the clamp; 250 clamps to 6.
  std::unique_ptr<HloModule> module = ParseOrDie(EntryModule(
      {"s32[8]", "u8[]"},
      "s32[2] dynamic-slice(p0, p1), dynamic_slice_sizes={2}"));
  ASSERT_NE(module, nullptr);
  ExpectSameAfterRewrite(
      module.get(), {Iota(PrimitiveType::S32, {8}),
                     Literal::CreateR0<uint8_t>(PrimitiveType::U8, 250)});
}

TEST(DynamicSliceRewriterTest, ScanExportEvaluatesTheSame) {
  std::unique_ptr<HloModule> module = LoadVerified("scan_grad_accum");
  ASSERT_NE(module, nullptr);
  ASSERT_EQ(CountOpcode(*module, HloOpcode::kDynamicSlice), 2);
  std::vector<Literal> inputs =
      AsShapes(ReadArrays(ModelDir("scan_grad_accum") + "/input_"),
               module->entry_computation_layout().parameter_shapes);
  ExpectSameAfterRewrite(module.get(), inputs);
}

}  // namespace
}  // namespace xla_lite
