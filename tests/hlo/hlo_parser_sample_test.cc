// The parser on whole modules: the JAX samples and a transformer export,
// damaged text, and printing then parsing back.
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/hlo/hlo_verifier.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

TEST(HloParserSampleTest, JaxTrainStepParses) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(JaxSamplePath());
  ASSERT_TRUE(module.ok()) << module.status();
  const HloModule& m = **module;
  EXPECT_EQ(m.name(), "jit_train_step");
  EXPECT_EQ(m.entry_computation()->name(), "main.16");
  EXPECT_EQ(m.entry_computation()->num_parameters(), 8);
  EXPECT_EQ(m.input_output_aliases().size(), 6);
  EXPECT_EQ(m.entry_computation_layout().parameter_shapes.size(), 8);
  EXPECT_EQ(m.entry_computation_layout().result_shape.tuple_shapes_size(), 7);
  const HloInstruction* transpose = FindInstruction(m, "transpose.5");
  ASSERT_NE(transpose, nullptr);
  EXPECT_EQ(transpose->shape().minor_to_major(), std::vector<int64_t>({0, 1}));
  const HloInstruction* reduce = FindInstruction(m, "reduce_max.7");
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->to_apply()->name(), "region_0.2");
}

TEST(HloParserSampleTest, XlaOptimizedModuleParses) {
  // Fusions, computation signatures, debug-info tables, backend configs.
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(TestDataPath("jax_mlp_train_step.xla_optimized.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* fusion = FindInstruction(**module, "fusion.22");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(fusion->fused_computation()->name(), "fused_computation.12");
}

TEST(HloParserSampleTest, MissingFileIsNotFound) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile("/nonexistent/x.hlo");
  EXPECT_EQ(module.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(module.status().message(), HasSubstr("/nonexistent/x.hlo"));
}

TEST(HloParserSampleTest, FolderIsInvalidArgument) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(::testing::TempDir());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(module.status().message(), HasSubstr("not a regular file"));
}

// Damaged text is refused with INVALID_ARGUMENT and a position, never a
// crash: every prefix ending at a line end, and the text with one character
// dropped at many places.
TEST(HloParserSampleTest, DamagedTextFailsCleanly) {
  std::ifstream file(JaxSamplePath());
  std::stringstream contents;
  contents << file.rdbuf();
  const std::string text = contents.str();
  ASSERT_FALSE(text.empty());
  std::vector<std::string> damaged;
  for (size_t pos = text.find('\n'); pos != std::string::npos;
       pos = text.find('\n', pos + 1)) {
    damaged.push_back(text.substr(0, pos));
  }
  for (size_t pos = 0; pos < text.size(); pos += 37) {
    damaged.push_back(text.substr(0, pos) + text.substr(pos + 1));
  }
  int failures = 0;
  for (const std::string& variant : damaged) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(variant, "d.hlo");
    if (module.ok()) {
      // Whatever parsed, the verifier judges without crashing.
      VerifyHloModule(**module).IgnoreError();
      continue;
    }
    ++failures;
    EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(module.status().message(), HasSubstr("d.hlo:"));
  }
  EXPECT_GT(failures, damaged.size() / 2);
}

// Printing then parsing gives the same text: everything printed is read.
TEST(HloParserRoundTripTest, JaxSample) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(JaxSamplePath());
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string text = (*module)->ToString();
  std::unique_ptr<HloModule> reparsed = ParseOrDie(text);
  ASSERT_NE(reparsed, nullptr);
  EXPECT_EQ(reparsed->ToString(), text);
}

TEST(HloParserRoundTripTest, EveryAttribute) {
  const std::string text =
      "HloModule m, input_output_alias={ {1}: (0, {}, must-alias) }\n\n"
      "max_s32 {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT m = s32[] maximum(a, b)\n}\n\n"
      "ENTRY e {\n  p = s32[4,6]{0,1} parameter(0)\n"
      "  i = s32[4,6] iota(), iota_dimension=1\n"
      "  s = s32[2,3] slice(p), slice={[0:4:2], [1:4]}\n"
      "  c = s32[4,12] concatenate(p, i), dimensions={1}\n"
      "  v = s32[4,12] reverse(c), dimensions={0}\n"
      "  k = s32[] constant(-3)\n"
      "  r = s32[12] reduce(v, k), dimensions={0}, to_apply=max_s32\n"
      "  d = s32[2,2] dot(s, s), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={1}, operand_precision={highest,default}\n"
      "  f = f32[2,2] constant({ {0.1, -inf}, {nan, 1e-05} })\n"
      "  g = pred[2,2] compare(f, f), direction=LE\n"
      "  ROOT t = (pred[2,2], s32[4,6]{0,1}, s32[12], s32[2,2]) tuple(g, p, r, d)\n"
      "}\n";
  std::unique_ptr<HloModule> module = ParseOrDie(text);
  ASSERT_NE(module, nullptr);
  const std::string printed = module->ToString();
  std::unique_ptr<HloModule> reparsed = ParseOrDie(printed);
  ASSERT_NE(reparsed, nullptr);
  EXPECT_EQ(reparsed->ToString(), printed);
  EXPECT_THAT(printed, HasSubstr("slice={[0:4:2], [1:4]}"));
  EXPECT_THAT(printed, HasSubstr("constant({{0.1, -inf}, {nan, 1e-05}})"));
  EXPECT_THAT(printed, HasSubstr("operand_precision={highest,default}"));
  EXPECT_THAT(printed, HasSubstr("{1}: (0, {}, must-alias)"));
}

TEST(HloParserTest, GatherScatterAndCompareAttributes) {
  const std::string text =
      "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n"
      "ENTRY e {\n  x = f32[4,16,64] parameter(0)\n"
      "  i = s32[4,16,1,1] parameter(1)\n"
      "  g = f32[4,16,1] gather(x, i), offset_dims={}, "
      "collapsed_slice_dims={2}, start_index_map={2}, "
      "operand_batching_dims={0,1}, start_indices_batching_dims={0,1}, "
      "index_vector_dim=3, slice_sizes={1,1,1}, indices_are_sorted=true\n"
      "  sc = f32[4,16,64] scatter(x, i, g), update_window_dims={}, "
      "inserted_window_dims={2}, scatter_dims_to_operand_dims={2}, "
      "input_batching_dims={0,1}, scatter_indices_batching_dims={0,1}, "
      "index_vector_dim=3, to_apply=add, unique_indices=true\n"
      "  c = pred[4,16,64] compare(sc, x), direction=GE, type=TOTALORDER\n"
      "  ROOT t = (pred[4,16,64], f32[4,16,1]) tuple(c, g)\n}\n";
  std::unique_ptr<HloModule> module = ParseOrDie(text);
  ASSERT_NE(module, nullptr);
  const HloInstruction* gather = FindInstruction(*module, "g");
  ASSERT_NE(gather, nullptr);
  const GatherDimensionNumbers& g = gather->gather_dimension_numbers();
  EXPECT_TRUE(g.offset_dims.empty());
  EXPECT_EQ(g.collapsed_slice_dims, std::vector<int64_t>({2}));
  EXPECT_EQ(g.start_index_map, std::vector<int64_t>({2}));
  EXPECT_EQ(g.operand_batching_dims, std::vector<int64_t>({0, 1}));
  EXPECT_EQ(g.start_indices_batching_dims, std::vector<int64_t>({0, 1}));
  EXPECT_EQ(g.index_vector_dim, 3);
  EXPECT_EQ(gather->gather_slice_sizes(), std::vector<int64_t>({1, 1, 1}));
  EXPECT_TRUE(gather->indices_are_sorted());
  const HloInstruction* scatter = FindInstruction(*module, "sc");
  ASSERT_NE(scatter, nullptr);
  const ScatterDimensionNumbers& d = scatter->scatter_dimension_numbers();
  EXPECT_TRUE(d.update_window_dims.empty());
  EXPECT_EQ(d.inserted_window_dims, std::vector<int64_t>({2}));
  EXPECT_EQ(d.scatter_dims_to_operand_dims, std::vector<int64_t>({2}));
  EXPECT_EQ(d.input_batching_dims, std::vector<int64_t>({0, 1}));
  EXPECT_EQ(d.scatter_indices_batching_dims, std::vector<int64_t>({0, 1}));
  EXPECT_EQ(d.index_vector_dim, 3);
  EXPECT_EQ(scatter->to_apply()->name(), "add");
  EXPECT_TRUE(scatter->unique_indices());
  EXPECT_FALSE(scatter->indices_are_sorted());
  const HloInstruction* compare = FindInstruction(*module, "c");
  ASSERT_NE(compare, nullptr);
  EXPECT_EQ(compare->comparison_direction(), ComparisonDirection::kGe);
  EXPECT_EQ(compare->comparison_type(), ComparisonType::kTotalOrder);
  // The line each instruction came from, for errors found later.
  EXPECT_EQ(gather->SourceLocation(), "<hlo text>:12");
  EXPECT_EQ(compare->SourceLocation(), "<hlo text>:14");
  // Printed, everything reads back the same.
  const std::string printed = module->ToString();
  std::unique_ptr<HloModule> reparsed = ParseOrDie(printed);
  ASSERT_NE(reparsed, nullptr);
  EXPECT_EQ(reparsed->ToString(), printed);
  EXPECT_THAT(printed, HasSubstr("operand_batching_dims={0,1}, "
                                 "start_indices_batching_dims={0,1}, "
                                 "index_vector_dim=3, slice_sizes={1,1,1}"));
  EXPECT_THAT(printed, HasSubstr("indices_are_sorted=true"));
  EXPECT_THAT(printed, HasSubstr("input_batching_dims={0,1}, "
                                 "scatter_indices_batching_dims={0,1}"));
  EXPECT_THAT(printed, HasSubstr("unique_indices=true"));
  EXPECT_THAT(printed, HasSubstr("direction=GE, type=TOTALORDER"));
}

// The transformer exports print and read back as they were.
TEST(HloParserRoundTripTest, TransformerTiny) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(
      RunfilePath("configs/models/transformer_tiny/train_step.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string text = (*module)->ToString();
  std::unique_ptr<HloModule> reparsed = ParseOrDie(text);
  ASSERT_NE(reparsed, nullptr);
  EXPECT_EQ(reparsed->ToString(), text);
}

}  // namespace
}  // namespace xla_lite
