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
  return EntryModule(params, root, extra);
}

// An embedding lookup of f32[4,3] rows by s32[2,2] tokens, attributes
// replaced or added by `changes` ("key=value, ..." appended; a key given
// there is left out of the defaults).
std::string IndexingAttributes(
    const std::vector<std::pair<std::string, std::string>>& defaults,
    const std::string& changes) {
  std::string attrs;
  for (const auto& [key, value] : defaults) {
    if (changes.find(key + "=") != std::string::npos) continue;
    absl::StrAppend(&attrs, ", ", key, "=", value);
  }
  if (!changes.empty()) absl::StrAppend(&attrs, ", ", changes);
  return attrs;
}

std::string Gather(const std::string& result, const std::string& changes) {
  return absl::StrCat(result, " gather(p0, p1)",
                      IndexingAttributes({{"offset_dims", "{2}"},
                                          {"collapsed_slice_dims", "{0}"},
                                          {"start_index_map", "{0}"},
                                          {"index_vector_dim", "2"},
                                          {"slice_sizes", "{1,3}"}},
                                         changes));
}

// An embedding gradient: rows of f32[4,2] updated at s32[5] indices.
std::string Scatter(const std::string& result, const std::string& changes) {
  return absl::StrCat(
      result, " scatter(p0, p1, p2)",
      IndexingAttributes({{"update_window_dims", "{1}"},
                          {"inserted_window_dims", "{0}"},
                          {"scatter_dims_to_operand_dims", "{0}"},
                          {"index_vector_dim", "1"},
                          {"to_apply", "add"}},
                         changes));
}

absl::Status Verify(const std::string& text) {
  std::unique_ptr<HloModule> module = ParseOrDie(text);
  if (module == nullptr) return absl::InternalError("did not parse");
  return VerifyHloModule(*module);
}

TEST(HloVerifierTest, AcceptsWellFormedOps) {
  const std::vector<std::string> good = {
      Entry({"f32[2,3]", "f32[2,3]"}, "f32[2,3] add(p0, p1)"),
      Entry({"f32[2,3]", "f32[2,3]"},
            "pred[2,3] compare(p0, p1), direction=LT"),
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
      Entry({"s32[2]", "s32[2]"},
            "pred[2] compare(p0, p1), direction=GE, type=SIGNED"),
      Entry({"f32[4,3]", "s32[2,2]"}, Gather("f32[2,2,3]", "")),
      Entry({"f32[4,16,64]", "s32[4,16,1,1]"},
            "f32[4,16,1] gather(p0, p1), offset_dims={}, "
            "collapsed_slice_dims={2}, start_index_map={2}, "
            "operand_batching_dims={0,1}, start_indices_batching_dims={0,1}, "
            "index_vector_dim=3, slice_sizes={1,1,1}, indices_are_sorted=true"),
      Entry({"f32[4,2]", "s32[5]", "f32[5,2]"}, Scatter("f32[4,2]", ""), kAdd),
      Entry({"f32[4,16,64]", "s32[4,16,1,1]", "f32[4,16,1]"},
            "f32[4,16,64] scatter(p0, p1, p2), update_window_dims={}, "
            "inserted_window_dims={2}, scatter_dims_to_operand_dims={2}, "
            "input_batching_dims={0,1}, scatter_indices_batching_dims={0,1}, "
            "index_vector_dim=3, to_apply=add",
            kAdd),
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

const std::vector<std::string> kGatherParams = {"f32[4,3]", "s32[2,2]"};
const std::vector<std::string> kScatterParams = {"f32[4,2]", "s32[5]",
                                                 "f32[5,2]"};

// Every attribute of gather and scatter range-checked, each error naming
// the line of the text (the root is line 6 of a gather's module, 13 of a
// scatter's, after its combiner).
INSTANTIATE_TEST_SUITE_P(
    Indexing, HloVerifierRejectTest,
    ::testing::Values(
        BadCase{
            "GatherIndexVectorDimOutOfRange",
            Entry(kGatherParams, Gather("f32[2,2,3]", "index_vector_dim=3")),
            {"<hlo text>:6: instruction 'r' (gather)",
             "expected index_vector_dim in [0, 2]", "got 3"}},
        BadCase{"GatherSliceLargerThanOperand",
                Entry(kGatherParams, Gather("f32[2,2,4]", "slice_sizes={1,4}")),
                {"<hlo text>:6:",
                 "slice_sizes {1,4} within the operand "
                 "f32[4,3], got 4 in dimension 1"}},
        BadCase{"GatherSliceSizesCount",
                Entry(kGatherParams, Gather("f32[2,2,3]", "slice_sizes={3}")),
                {"expected 2 slice_sizes", "got {3}"}},
        BadCase{"GatherRepeatedCollapsedDims",
                Entry(kGatherParams,
                      Gather("f32[2,2,3]", "collapsed_slice_dims={0,0}")),
                {"collapsed_slice_dims {0,0} to be distinct dimensions in "
                 "[0, 2)"}},
        BadCase{"GatherCollapsedDimOutOfRange",
                Entry(kGatherParams,
                      Gather("f32[2,2,3]", "collapsed_slice_dims={2}")),
                {"collapsed_slice_dims {2} to be distinct dimensions in "
                 "[0, 2)"}},
        BadCase{"GatherCollapsedSliceOfTwo",
                Entry(kGatherParams, Gather("f32[2,2,3]", "slice_sizes={2,3}")),
                {"slice size at most 1 in collapsed or batching dimension 0"}},
        BadCase{"GatherOffsetDimsDescending",
                Entry({"f32[4,3]", "s32[2,1]"},
                      Gather("f32[2,1,3]",
                             "offset_dims={2,1}, collapsed_slice_dims={}, "
                             "index_vector_dim=1")),
                {"offset_dims {2,1} in ascending order"}},
        BadCase{"GatherOffsetDimsCount",
                Entry(kGatherParams, Gather("f32[2,2,3]", "offset_dims={}")),
                {"expected 1 offset_dims", "got {}"}},
        BadCase{
            "GatherStartIndexMapSize",
            Entry(kGatherParams, Gather("f32[2,2,3]", "start_index_map={0,1}")),
            {"start_index_map {0,1} to have one entry per index vector "
             "element (1"}},
        BadCase{"GatherStartIndexMapRepeated",
                Entry({"f32[4,3]", "s32[2,2]"},
                      Gather("f32[2]",
                             "offset_dims={}, collapsed_slice_dims={0,1}, "
                             "start_index_map={0,0}, index_vector_dim=1, "
                             "slice_sizes={1,1}")),
                {"start_index_map {0,0} to be distinct dimensions"}},
        BadCase{"GatherBatchingSizesDiffer",
                Entry({"f32[3,4]", "s32[2]"},
                      Gather("f32[2]",
                             "offset_dims={}, collapsed_slice_dims={1}, "
                             "start_index_map={1}, operand_batching_dims={0}, "
                             "start_indices_batching_dims={0}, "
                             "index_vector_dim=1, slice_sizes={1,1}")),
                {"operand batching dimension 0 and indices batching dimension "
                 "0 to have one size",
                 "f32[3,4] and s32[2]"}},
        BadCase{"GatherBatchingCountsDiffer",
                Entry({"f32[2,4]", "s32[2]"},
                      Gather("f32[2]",
                             "offset_dims={}, collapsed_slice_dims={1}, "
                             "start_index_map={1}, operand_batching_dims={0}, "
                             "index_vector_dim=1, slice_sizes={1,1}")),
                {"expected as many start_indices_batching_dims {} as "
                 "operand_batching_dims {0}"}},
        BadCase{"GatherBatchingOnIndexVectorDim",
                Entry({"f32[2,4]", "s32[2,1]"},
                      Gather("f32[2]",
                             "offset_dims={}, collapsed_slice_dims={1}, "
                             "start_index_map={1}, operand_batching_dims={0}, "
                             "start_indices_batching_dims={1}, "
                             "index_vector_dim=1, slice_sizes={1,1}")),
                {"start_indices_batching_dims {1} not to contain "
                 "index_vector_dim 1"}},
        BadCase{"GatherBatchingAlsoCollapsed",
                Entry({"f32[2,4]", "s32[2]"},
                      Gather("f32[2]",
                             "offset_dims={}, collapsed_slice_dims={0,1}, "
                             "start_index_map={1}, operand_batching_dims={0}, "
                             "start_indices_batching_dims={0}, "
                             "index_vector_dim=1, slice_sizes={1,1}")),
                {"collapsed_slice_dims {0,1} and operand_batching_dims {0} to "
                 "have no dimension in common"}},
        BadCase{"GatherFloatIndices",
                Entry({"f32[4,3]", "f32[2,2]"}, Gather("f32[2,2,3]", "")),
                {"expected integer indices, got f32[2,2]"}},
        BadCase{"GatherResultShape",
                Entry(kGatherParams, Gather("f32[2,3,2]", "")),
                {"expected result shape f32[2,2,3], got f32[2,3,2]"}},
        BadCase{"ScatterWindowLargerThanOperand",
                Entry({"f32[4,2]", "s32[5]", "f32[5,3]"},
                      Scatter("f32[4,2]", ""), kAdd),
                {"<hlo text>:13: instruction 'r' (scatter)",
                 "at most f32[5,2]), got f32[5,3]"}},
        BadCase{"ScatterDimensionsDifferFromIndices",
                Entry({"f32[4,2]", "s32[5]", "f32[4,2]"},
                      Scatter("f32[4,2]", ""), kAdd),
                {"scatter dimensions as the indices'", "got f32[4,2]"}},
        BadCase{"ScatterUpdatesRank",
                Entry({"f32[4,2]", "s32[5]", "f32[5,1,1,1,2]"},
                      Scatter("f32[4,2]", "update_window_dims={4}"), kAdd),
                {"expected updates of rank 2 (1 window and 1 scatter "
                 "dimensions), got f32[5,1,1,1,2]"}},
        BadCase{"ScatterInsertedDimOutOfRange",
                Entry(kScatterParams,
                      Scatter("f32[4,2]", "inserted_window_dims={2}"), kAdd),
                {"inserted_window_dims {2} to be distinct dimensions in "
                 "[0, 2)"}},
        BadCase{"ScatterUpdateWindowDimsDescending",
                Entry({"f32[4,2]", "s32[1]", "f32[1,4,2]"},
                      Scatter("f32[4,2]",
                              "update_window_dims={2,1}, "
                              "inserted_window_dims={}"),
                      kAdd),
                {"update_window_dims {2,1} in ascending order"}},
        BadCase{"ScatterBatchingCountsDiffer",
                Entry(kScatterParams,
                      Scatter("f32[4,2]", "input_batching_dims={1}"), kAdd),
                {"as many scatter_indices_batching_dims {} as "
                 "input_batching_dims {1}"}},
        BadCase{"ScatterMapsABatchingDimension",
                Entry(kScatterParams,
                      Scatter("f32[4,2]",
                              "update_window_dims={}, inserted_window_dims={}, "
                              "input_batching_dims={0}, "
                              "scatter_indices_batching_dims={0}"),
                      kAdd),
                {"scatter_dims_to_operand_dims {0} and input_batching_dims {0} "
                 "to have no dimension in common"}},
        BadCase{"ScatterCombinerSignature",
                Entry(kScatterParams, Scatter("f32[4,2]", "to_apply=add_s32"),
                      "add_s32 {\n  a = s32[] parameter(0)\n"
                      "  b = s32[] parameter(1)\n"
                      "  ROOT s = s32[] add(a, b)\n}\n\n"),
                {"to_apply 'add_s32' to be (f32[], f32[]) -> f32[]"}},
        BadCase{"ScatterUpdatesType",
                Entry({"f32[4,2]", "s32[5]", "s32[5,2]"},
                      Scatter("f32[4,2]", ""), kAdd),
                {"expected updates of the operand's type f32[4,2], got "
                 "s32[5,2]"}},
        BadCase{"ScatterResultShape",
                Entry(kScatterParams, Scatter("f32[2,4]", ""), kAdd),
                {"expected result shape f32[4,2], got f32[2,4]"}},
        BadCase{"CompareTypeForOperands",
                Entry({"s32[2]", "s32[2]"},
                      "pred[2] compare(p0, p1), direction=LT, type=FLOAT"),
                {"'r' (compare)",
                 "comparison type for s32 operands, got "
                 "FLOAT"}},
        BadCase{"ConcatenateDimensionOutOfRange",
                Entry({"f32[2,3]", "f32[2,1]"},
                      "f32[2,4] concatenate(p0, p1), dimensions={2}"),
                {"'r' (concatenate)", "one dimension in [0, 2), got {2}"}},
        BadCase{"ConcatenateRanksDiffer",
                Entry({"f32[2,3]", "f32[2]"},
                      "f32[2,4] concatenate(p0, p1), dimensions={1}"),
                {"'r' (concatenate)", "concatenated operand", "got f32[2]"}},
        BadCase{"IotaDimensionNegative",
                Entry({}, "s32[4] iota(), iota_dimension=-1"),
                {"'r' (iota)", "iota_dimension in [0, 1), got -1"}},
        BadCase{"DotBatchDimensionsRepeated",
                Entry({"f32[2,2,3]", "f32[2,3,5]"},
                      "f32[2,2,5] dot(p0, p1), lhs_batch_dims={0,0}, "
                      "lhs_contracting_dims={2}, rhs_batch_dims={0,0}, "
                      "rhs_contracting_dims={1}"),
                {"'r' (dot)",
                 "lhs batch and contracting dimensions {0,0,2} "
                 "to be distinct"}},
        BadCase{"ReduceDimensionsRepeated",
                Entry({"f32[2,3]", "f32[]"},
                      "f32[3] reduce(p0, p1), dimensions={0,0}, to_apply=add",
                      kAdd),
                {"'r' (reduce)", "reduce dimensions {0,0} to be distinct"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      return info.param.name;
    });

TEST(HloVerifierTest, VariadicReduceIsUnimplemented) {
  absl::Status status = Verify(Entry(
      {"f32[2]", "f32[]"},
      "(f32[], f32[]) reduce(p0, p0, p1, p1), dimensions={0}, to_apply=r2",
      "r2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n"
      "  ROOT t = (f32[], f32[]) tuple(a, b)\n}\n\n"));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
  EXPECT_THAT(status.message(), HasSubstr("<hlo text>:14: instruction 'r'"));
  EXPECT_THAT(status.message(), HasSubstr("variadic reduce"));
}

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
