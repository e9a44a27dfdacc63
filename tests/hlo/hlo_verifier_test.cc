#include "xla_lite/hlo/hlo_verifier.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

const char kAdd[] =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(a, b)\n}\n\n";

std::string Entry(const std::vector<std::string>& params,
                  const std::string& root, const std::string& extra = "") {
  std::string text = absl::StrCat("HloModule v\n\n", extra, "ENTRY e {\n");
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StrAppend(&text, "  p", i, " = ", params[i], " parameter(", i,
                    ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = ", root, "\n}\n");
  return text;
}

absl::Status Verify(const std::string& text) {
  std::unique_ptr<HloModule> module = ParseOrDie(text);
  if (module == nullptr) return absl::InternalError("did not parse");
  return VerifyHloModule(*module);
}

TEST(HloVerifierTest, AcceptsWellFormedOps) {
  const std::vector<std::string> good = {
      Entry({"f32[2,3]", "f32[2,3]"}, "f32[2,3] add(p0, p1)"),
      Entry({"f32[2,3]", "f32[2,3]"}, "pred[2,3] compare(p0, p1), direction=LT"),
      Entry({"pred[2]", "f32[2]", "f32[2]"}, "f32[2] select(p0, p1, p2)"),
      Entry({"f32[3]"}, "f32[2,3] broadcast(p0), dimensions={1}"),
      Entry({"f32[2,3]"}, "f32[3,2]{0,1} transpose(p0), dimensions={1,0}"),
      Entry({"f32[2,3]"}, "f32[6] reshape(p0)"),
      Entry({"f32[4,2,3]", "f32[4,3,5]"},
            "f32[4,2,5] dot(p0, p1), lhs_batch_dims={0}, "
            "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
            "rhs_contracting_dims={1}"),
      Entry({"f32[3,2]", "f32[3,5]"},
            "f32[2,5] dot(p0, p1), lhs_contracting_dims={0}, "
            "rhs_contracting_dims={0}"),
      Entry({"f32[2,3]", "f32[]"},
            "f32[3] reduce(p0, p1), dimensions={0}, to_apply=add", kAdd),
      Entry({"f32[2,3]"}, "s32[2,3] convert(p0)"),
      Entry({}, "s32[4] iota(), iota_dimension=0"),
      Entry({"f32[4,6]"}, "f32[2,3] slice(p0), slice={[0:4:2], [1:6:2]}"),
      Entry({"f32[2,3]", "f32[2,1]"},
            "f32[2,4] concatenate(p0, p1), dimensions={1}"),
      Entry({"f32[]", "f32[2]", "f32[]"}, "f32[2] clamp(p0, p1, p2)"),
  };
  for (const std::string& text : good) {
    absl::Status status = Verify(text);
    EXPECT_TRUE(status.ok()) << status << "\n" << text;
  }
}

struct BadCase {
  std::string name;
  std::string text;
  std::vector<std::string> expected;  // substrings of the error
};

class HloVerifierRejectTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(HloVerifierRejectTest, NamesTheProblem) {
  absl::Status status = Verify(GetParam().text);
  ASSERT_FALSE(status.ok()) << GetParam().text;
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  for (const std::string& part : GetParam().expected) {
    EXPECT_THAT(status.message(), HasSubstr(part));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, HloVerifierRejectTest,
    ::testing::Values(
        BadCase{"BinaryOperandMismatch",
                Entry({"f32[2,3]", "f32[3,2]"}, "f32[2,3] add(p0, p1)"),
                {"instruction 'r' (add)", "expected rhs", "f32[2,3]",
                 "got f32[3,2]"}},
        BadCase{"BinaryResultType",
                Entry({"f32[2]", "f32[2]"}, "s32[2] multiply(p0, p1)"),
                {"'r'", "expected result shape f32[2], got s32[2]"}},
        BadCase{"CompareResultNotPred",
                Entry({"f32[2]", "f32[2]"},
                      "f32[2] compare(p0, p1), direction=EQ"),
                {"'r' (compare)", "expected result shape pred[2]"}},
        BadCase{"SelectPredicateNotPred",
                Entry({"f32[2]", "f32[2]", "f32[2]"},
                      "f32[2] select(p0, p1, p2)"),
                {"'r' (select)", "expected a pred predicate"}},
        BadCase{"UnaryOnIntegers",
                Entry({"s32[2]"}, "s32[2] exponential(p0)"),
                {"'r' (exponential)", "floating-point operand"}},
        BadCase{"BroadcastDimensionSize",
                Entry({"f32[3]"}, "f32[2,3] broadcast(p0), dimensions={0}"),
                {"'r' (broadcast)", "output dimension 0",
                 "operand dimension 0's size 3"}},
        BadCase{"BroadcastDimensionCount",
                Entry({"f32[3]"}, "f32[2,3] broadcast(p0), dimensions={}"),
                {"'r' (broadcast)", "expected 1 broadcast dimensions"}},
        BadCase{"ReshapeElementCount",
                Entry({"f32[2,3]"}, "f32[5] reshape(p0)"),
                {"'r' (reshape)", "6 elements", "got f32[5]"}},
        BadCase{"TransposeNotPermutation",
                Entry({"f32[2,3]"}, "f32[2,3] transpose(p0), dimensions={0,0}"),
                {"'r' (transpose)", "permutation {0,0}"}},
        BadCase{"TransposeResult",
                Entry({"f32[2,3]"}, "f32[2,3] transpose(p0), dimensions={1,0}"),
                {"'r' (transpose)", "expected result shape f32[3,2]"}},
        BadCase{"DotResultDims",
                Entry({"f32[2,3]", "f32[3,5]"},
                      "f32[5,2] dot(p0, p1), lhs_contracting_dims={1}, "
                      "rhs_contracting_dims={0}"),
                {"'r' (dot)", "expected result shape f32[2,5]"}},
        BadCase{"DotContractingSizes",
                Entry({"f32[2,3]", "f32[4,5]"},
                      "f32[2,5] dot(p0, p1), lhs_contracting_dims={1}, "
                      "rhs_contracting_dims={0}"),
                {"'r' (dot)", "lhs dimension 1 and rhs dimension 0"}},
        BadCase{"ReduceResult",
                Entry({"f32[2,3]", "f32[]"},
                      "f32[2] reduce(p0, p1), dimensions={0}, to_apply=add",
                      kAdd),
                {"'r' (reduce)", "expected result shape f32[3]"}},
        BadCase{"ReduceInitNotScalar",
                Entry({"f32[2,3]", "f32[3]"},
                      "f32[3] reduce(p0, p1), dimensions={0}, to_apply=add",
                      kAdd),
                {"'r' (reduce)", "init value"}},
        BadCase{"ReduceSignature",
                Entry({"s32[2,3]", "s32[]"},
                      "s32[3] reduce(p0, p1), dimensions={0}, to_apply=add",
                      kAdd),
                {"'r' (reduce)", "to_apply 'add' to be (s32[], s32[]) -> s32[]"}},
        BadCase{"ConvertDims",
                Entry({"f32[2,3]"}, "s32[3,2] convert(p0)"),
                {"'r' (convert)", "expected result shape s32[2,3]"}},
        BadCase{"IotaDimension",
                Entry({}, "s32[4] iota(), iota_dimension=1"),
                {"'r' (iota)", "iota_dimension in [0, 1), got 1"}},
        BadCase{"SliceOutOfBounds",
                Entry({"f32[4]"}, "f32[2] slice(p0), slice={[3:5]}"),
                {"'r' (slice)", "limit <= 4"}},
        BadCase{"ConcatenateMismatch",
                Entry({"f32[2,3]", "f32[3,1]"},
                      "f32[2,4] concatenate(p0, p1), dimensions={1}"),
                {"'r' (concatenate)", "concatenated operand"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      return info.param.name;
    });

INSTANTIATE_TEST_SUITE_P(
    Structure, HloVerifierRejectTest,
    ::testing::Values(
        BadCase{"GetTupleElementIndex",
                "HloModule v\nENTRY e {\n  a = f32[2] parameter(0)\n"
                "  t = (f32[2]) tuple(a)\n"
                "  ROOT g = f32[2] get-tuple-element(t), index=1\n}\n",
                {"'g' (get-tuple-element)", "index in [0, 1), got 1"}},
        BadCase{"TupleShape",
                "HloModule v\nENTRY e {\n  a = f32[2] parameter(0)\n"
                "  ROOT t = (f32[3]) tuple(a)\n}\n",
                {"'t' (tuple)", "expected result shape (f32[2])"}},
        BadCase{"CallArguments",
                Entry({"f32[2]", "f32[]"}, "f32[] call(p0, p1), to_apply=add",
                      kAdd),
                {"'r' (call)", "argument for a", "f32[]", "got f32[2]"}},
        BadCase{"CallResult",
                Entry({"f32[]", "f32[]"}, "s32[] call(p0, p1), to_apply=add",
                      kAdd),
                {"'r' (call)", "expected result shape f32[]"}},
        BadCase{"ParameterGap",
                "HloModule v\nENTRY e {\n  a = f32[] parameter(0)\n"
                "  b = f32[] parameter(2)\n  ROOT s = f32[] add(a, b)\n}\n",
                {"computation 'e'", "parameter 1 is missing"}},
        BadCase{"EntryLayoutParameter",
                "HloModule v, entry_computation_layout={(f32[3]{0})->f32[2]{0}}"
                "\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n",
                {"entry_computation_layout", "parameter 0 to be f32[2]",
                 "got f32[3]"}},
        BadCase{"EntryLayoutCount",
                "HloModule v, entry_computation_layout={()->f32[2]{0}}"
                "\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n",
                {"entry_computation_layout", "expected 1 parameter shapes"}},
        BadCase{"AliasParameterOutOfRange",
                "HloModule v, input_output_alias={ {}: (1, {}, may-alias) }"
                "\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n",
                {"input_output_alias {}: (1, {})", "parameter number in [0, 1)"}},
        BadCase{"AliasOutputIndex",
                "HloModule v, input_output_alias={ {3}: (0, {}, may-alias) }"
                "\nENTRY e {\n  a = f32[2] parameter(0)\n"
                "  ROOT t = (f32[2]) tuple(a)\n}\n",
                {"input_output_alias {3}", "output index within (f32[2])"}},
        BadCase{"AliasShapes",
                "HloModule v, input_output_alias={ {0}: (0, {}, may-alias) }"
                "\nENTRY e {\n  a = f32[2] parameter(0)\n"
                "  c = f32[] constant(1)\n  b = f32[3] broadcast(c), dimensions={}\n"
                "  ROOT t = (f32[3]) tuple(b)\n}\n",
                {"input_output_alias {0}", "equal shapes", "output f32[3]",
                 "parameter f32[2]"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      return info.param.name;
    });

TEST(HloVerifierTest, JaxSampleVerifies) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(JaxSamplePath());
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status status = VerifyHloModule(**module);
  EXPECT_TRUE(status.ok()) << status;
}

TEST(HloVerifierTest, XlaOptimizedSampleVerifies) {
  // Fusions and layout-changing bitcasts pass the same checks.
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(TestDataPath("jax_mlp_train_step.xla_optimized.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status status = VerifyHloModule(**module);
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace xla_lite
