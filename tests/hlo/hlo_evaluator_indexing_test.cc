// gather and scatter in the forms JAX emits, on inputs small enough that
// every expected value is worked out by hand in the comments.
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/evaluator_test_util.h"
#include "xla_lite/hlo/hlo_verifier.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

// emb[i][j] = 10 i + j: {{0,1,2}, {10,11,12}, {20,21,22}, {30,31,32}}.
Literal Embedding() {
  return F32({4, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32});
}

// The verifier accepts the module too: these are well-formed uses.
std::vector<double> VerifiedEvalRoot(const std::vector<std::string>& params,
                                     const std::string& root,
                                     const std::vector<Literal>& args,
                                     const std::string& extra = "") {
  std::unique_ptr<HloModule> module =
      ParseOrDie(EntryModule(params, root, extra));
  if (module == nullptr) return {};
  absl::Status verified = VerifyHloModule(*module);
  EXPECT_TRUE(verified.ok()) << verified;
  return EvalRoot(params, root, args, extra);
}

TEST(EvaluatorGatherTest, EmbeddingLookup) {
  // emb[tokens] with tokens {{3, 0}, {1, 3}}: one row per token.
  EXPECT_THAT(VerifiedEvalRoot({"f32[4,3]", "s32[2,2]"},
                               "f32[2,2,3] gather(p0, p1), offset_dims={2}, "
                               "collapsed_slice_dims={0}, start_index_map={0}, "
                               "index_vector_dim=2, slice_sizes={1,3}",
                               {Embedding(), S32({2, 2}, {3, 0, 1, 3})}),
              Is({30, 31, 32, 0, 1, 2, 10, 11, 12, 30, 31, 32}));
}

TEST(EvaluatorGatherTest, OutOfRangeStartsAreClamped) {
  // index_vector_dim = rank: each index is a vector of one. Rows -1 and 4,
  // 7 lie outside [0, 3]: clamped to 0, 3 and 3.
  EXPECT_THAT(VerifiedEvalRoot({"f32[4,3]", "s32[4]"},
                               "f32[4,3] gather(p0, p1), offset_dims={1}, "
                               "collapsed_slice_dims={0}, start_index_map={0}, "
                               "index_vector_dim=1, slice_sizes={1,3}",
                               {Embedding(), S32({4}, {-1, 4, 7, 2})}),
              Is({0, 1, 2, 30, 31, 32, 30, 31, 32, 20, 21, 22}));
  // Slices of 3 from {0,1,2,3,4}: a start is clamped to [0, 5 - 3], so the
  // whole slice stays inside: -2 -> 0, 1 stays, 4 -> 2.
  EXPECT_THAT(
      VerifiedEvalRoot({"f32[5]", "s32[3,1]"},
                       "f32[3,3] gather(p0, p1), offset_dims={1}, "
                       "collapsed_slice_dims={}, start_index_map={0}, "
                       "index_vector_dim=1, slice_sizes={3}",
                       {F32({5}, {0, 1, 2, 3, 4}), S32({3, 1}, {-2, 1, 4})}),
      Is({0, 1, 2, 1, 2, 3, 2, 3, 4}));
}

TEST(EvaluatorGatherTest, TakeAlongAxisWithBatchingDimensions) {
  // The form of jnp.take_along_axis(x, idx[..., None], axis=-1):
  // x[a][b][k] = 100 a + 10 b + k, idx = {{2, 0}, {1, 5}}. Batch (a, b)
  // reads x[a][b][idx[a][b]]; 5 is clamped to 2.
  std::vector<double> x;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      for (int k = 0; k < 3; ++k) x.push_back(100 * a + 10 * b + k);
    }
  }
  EXPECT_THAT(
      VerifiedEvalRoot(
          {"f32[2,2,3]", "s32[2,2,1,1]"},
          "f32[2,2,1] gather(p0, p1), offset_dims={}, "
          "collapsed_slice_dims={2}, start_index_map={2}, "
          "operand_batching_dims={0,1}, start_indices_batching_dims={0,1}, "
          "index_vector_dim=3, slice_sizes={1,1,1}",
          {F32({2, 2, 3}, x), S32({2, 2, 1, 1}, {2, 0, 1, 5})}),
      Is({2, 10, 101, 112}));
  // A batching dimension that is not the operand's first: x[k][b] =
  // 10 k + b, idx = {2, 1}: out[b] = x[idx[b]][b] = {20, 11}.
  EXPECT_THAT(
      VerifiedEvalRoot({"f32[3,2]", "s32[2]"},
                       "f32[2] gather(p0, p1), offset_dims={}, "
                       "collapsed_slice_dims={0}, start_index_map={0}, "
                       "operand_batching_dims={1}, "
                       "start_indices_batching_dims={0}, "
                       "index_vector_dim=1, slice_sizes={1,1}",
                       {F32({3, 2}, {0, 1, 10, 11, 20, 21}), S32({2}, {2, 1})}),
      Is({20, 11}));
}

TEST(EvaluatorGatherTest, IndexVectorsMapOntoOperandDimensions) {
  // x[i][j] = 10 i + j for a [3,4] operand; index vectors {1,2} and {3,0}.
  const Literal x = F32({3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  const Literal idx = S32({2, 2}, {1, 2, 3, 0});
  // start_index_map={1,0}: a vector's first entry indexes dimension 1:
  // x[2][1] = 21 and x[0][3] = 3.
  EXPECT_THAT(VerifiedEvalRoot({"f32[3,4]", "s32[2,2]"},
                               "f32[2] gather(p0, p1), offset_dims={}, "
                               "collapsed_slice_dims={0,1}, "
                               "start_index_map={1,0}, index_vector_dim=1, "
                               "slice_sizes={1,1}",
                               {x, idx}),
              Is({21, 3}));
  // index_vector_dim=0: the vectors are the columns {1,3} and {2,0}:
  // x[1][3] = 13 and x[2][0] = 20.
  EXPECT_THAT(VerifiedEvalRoot({"f32[3,4]", "s32[2,2]"},
                               "f32[2] gather(p0, p1), offset_dims={}, "
                               "collapsed_slice_dims={0,1}, "
                               "start_index_map={0,1}, index_vector_dim=0, "
                               "slice_sizes={1,1}",
                               {x, idx}),
              Is({13, 20}));
}

const char kAdd[] =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(a, b)\n}\n\n";

TEST(EvaluatorScatterTest, AddWithRepeatedAndOutOfRangeIndices) {
  // The gradient of an embedding lookup: rows 1, 3, 1, -1, 4 of a [4,2]
  // operand of 100s receive {1,2}, {3,4}, {5,6}, {7,8}, {9,10}. Row 1 sums
  // two updates; -1 and 4 are outside and dropped.
  EXPECT_THAT(VerifiedEvalRoot({"f32[4,2]", "s32[5]", "f32[5,2]"},
                               "f32[4,2] scatter(p0, p1, p2), "
                               "update_window_dims={1}, "
                               "inserted_window_dims={0}, "
                               "scatter_dims_to_operand_dims={0}, "
                               "index_vector_dim=1, to_apply=add",
                               {F32({4, 2}, std::vector<double>(8, 100)),
                                S32({5}, {1, 3, 1, -1, 4}),
                                F32({5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})},
                               kAdd),
              Is({100, 100, 106, 108, 100, 100, 103, 104}));
}

TEST(EvaluatorScatterTest, WindowPartlyOutsideIsDroppedWhole) {
  // Windows of 2 into 5 elements: at 3 it covers 3 and 4; at 4 it would
  // reach 5, so all of it is dropped (a gather would clamp instead).
  EXPECT_THAT(VerifiedEvalRoot({"f32[5]", "s32[2,1]", "f32[2,2]"},
                               "f32[5] scatter(p0, p1, p2), "
                               "update_window_dims={1}, "
                               "inserted_window_dims={}, "
                               "scatter_dims_to_operand_dims={0}, "
                               "index_vector_dim=1, to_apply=add",
                               {F32({5}, {0, 0, 0, 0, 0}), S32({2, 1}, {3, 4}),
                                F32({2, 2}, {1, 2, 3, 4})},
                               kAdd),
              Is({0, 0, 0, 1, 2}));
}

TEST(EvaluatorScatterTest, AddWithBatchingDimensions) {
  // take_along_axis's gradient: row b of a [2,3] operand receives updates
  // u[b][j] at column idx[b][j]. idx = {{2, 2}, {0, 3}}, u = {{1, 2},
  // {3, 4}}: row 0 column 2 gets 1 + 2; row 1 column 0 gets 3, column 3
  // is outside and dropped.
  EXPECT_THAT(VerifiedEvalRoot(
                  {"f32[2,3]", "s32[2,2,1]", "f32[2,2]"},
                  "f32[2,3] scatter(p0, p1, p2), "
                  "update_window_dims={}, "
                  "inserted_window_dims={1}, "
                  "scatter_dims_to_operand_dims={1}, "
                  "input_batching_dims={0}, "
                  "scatter_indices_batching_dims={0}, "
                  "index_vector_dim=2, to_apply=add",
                  {F32({2, 3}, {0, 0, 0, 0, 0, 0}),
                   S32({2, 2, 1}, {2, 2, 0, 3}), F32({2, 2}, {1, 2, 3, 4})},
                  kAdd),
              Is({0, 0, 3, 3, 0, 0}));
}

TEST(EvaluatorScatterTest, CombinerComputationAppliedInIndexOrder) {
  // c(old, update) = 2 old + update: not one op, and not commutative, so
  // it shows the operand goes first and updates arrive in order. Element 0
  // starts at 1 and gets 1 then 10: 2 (2*1 + 1) + 10 = 16. Element 1: 5.
  const std::string combiner =
      "twice_plus {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  two = f32[] constant(2)\n  d = f32[] multiply(a, two)\n"
      "  ROOT s = f32[] add(d, b)\n}\n\n";
  EXPECT_THAT(VerifiedEvalRoot(
                  {"f32[2]", "s32[3]", "f32[3]"},
                  "f32[2] scatter(p0, p1, p2), "
                  "update_window_dims={}, "
                  "inserted_window_dims={0}, "
                  "scatter_dims_to_operand_dims={0}, "
                  "index_vector_dim=1, to_apply=twice_plus",
                  {F32({2}, {1, 0}), S32({3}, {0, 0, 1}), F32({3}, {1, 10, 5})},
                  combiner),
              Is({16, 5}));
}

TEST(EvaluatorScatterTest, IntegerOperandStaysIntegral) {
  // s32 adds exactly: 3 + 5 + 7 = 15 at index 2.
  const std::string add_s32 =
      "add_s32 {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT s = s32[] add(a, b)\n}\n\n";
  EXPECT_THAT(
      VerifiedEvalRoot(
          {"s32[3]", "s32[2]", "s32[2]"},
          "s32[3] scatter(p0, p1, p2), "
          "update_window_dims={}, "
          "inserted_window_dims={0}, "
          "scatter_dims_to_operand_dims={0}, "
          "index_vector_dim=1, to_apply=add_s32",
          {S32({3}, {1, 2, 3}), S32({2}, {2, 2}), S32({2}, {5, 7})}, add_s32),
      Is({1, 2, 15}));
}

TEST(EvaluatorScatterTest, VariadicScatterIsUnimplementedWithItsLine) {
  std::unique_ptr<HloModule> module = ParseOrDie(absl::StrCat(
      "HloModule t\n\npair {\n  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n  c = f32[] parameter(2)\n"
      "  d = f32[] parameter(3)\n  ROOT t = (f32[], f32[]) tuple(a, b)\n}\n\n"
      "ENTRY e {\n  x = f32[2] parameter(0)\n  i = s32[1] parameter(1)\n"
      "  u = f32[1] parameter(2)\n"
      "  ROOT r = (f32[2], f32[2]) scatter(x, x, i, u, u), "
      "update_window_dims={}, inserted_window_dims={0}, "
      "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=pair\n"
      "}\n"));
  ASSERT_NE(module, nullptr);
  absl::Status verified = VerifyHloModule(*module);
  EXPECT_EQ(verified.code(), absl::StatusCode::kUnimplemented) << verified;
  EXPECT_THAT(verified.message(), HasSubstr("<hlo text>:15:"));
  EXPECT_THAT(verified.message(), HasSubstr("'r' (scatter)"));
  EXPECT_THAT(verified.message(), HasSubstr("variadic scatter"));
  std::vector<Literal> args;
  args.push_back(F32({2}, {1, 2}));
  args.push_back(S32({1}, {0}));
  args.push_back(F32({1}, {1}));
  absl::StatusOr<std::vector<Literal>> out = EvaluateModule(*module, args);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("<hlo text>:15:"));
  EXPECT_THAT(out.status().message(), HasSubstr("variadic scatter"));
}

// Hostile attributes: every number after the operand list of these gathers
// and scatters replaced in turn by each of a few values. Whatever parses,
// the verifier either refuses with a message or accepts, and what it
// accepts evaluates (with indices in and out of range) without failing.
// Under ASan this also shows no access strays outside an array.
TEST(EvaluatorIndexingTest, MutatedAttributesAreRefusedOrEvaluated) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bases = {
      {{"f32[4,3]", "s32[2,2]"},
       "f32[2,2,3] gather(p0, p1), offset_dims={2}, collapsed_slice_dims={0}, "
       "start_index_map={0}, index_vector_dim=2, slice_sizes={1,3}"},
      {{"f32[2,2,3]", "s32[2,2,1,1]"},
       "f32[2,2,1] gather(p0, p1), offset_dims={}, collapsed_slice_dims={2}, "
       "start_index_map={2}, operand_batching_dims={0,1}, "
       "start_indices_batching_dims={0,1}, index_vector_dim=3, "
       "slice_sizes={1,1,1}"},
      {{"f32[4,2]", "s32[5]", "f32[5,2]"},
       "f32[4,2] scatter(p0, p1, p2), update_window_dims={1}, "
       "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
       "index_vector_dim=1, to_apply=add"},
      {{"f32[2,3]", "s32[2,2,1]", "f32[2,2]"},
       "f32[2,3] scatter(p0, p1, p2), update_window_dims={}, "
       "inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, "
       "input_batching_dims={0}, scatter_indices_batching_dims={0}, "
       "index_vector_dim=2, to_apply=add"},
  };
  int accepted = 0, refused = 0;
  for (const auto& [params, root] : bases) {
    const size_t attributes = root.find("), ");
    for (size_t pos = attributes; pos < root.size(); ++pos) {
      if (!std::isdigit(static_cast<unsigned char>(root[pos])) ||
          std::isdigit(static_cast<unsigned char>(root[pos - 1]))) {
        continue;
      }
      for (const char* value : {"-1", "0", "1", "2", "3", "7"}) {
        const std::string mutated =
            root.substr(0, pos) + value + root.substr(pos + 1);
        absl::StatusOr<std::unique_ptr<HloModule>> module =
            ParseHloModule(EntryModule(params, mutated, kAdd));
        if (!module.ok()) continue;
        absl::Status verified = VerifyHloModule(**module);
        if (!verified.ok()) {
          EXPECT_EQ(verified.code(), absl::StatusCode::kInvalidArgument)
              << mutated << ": " << verified;
          ++refused;
          continue;
        }
        ++accepted;
        std::vector<Literal> args;
        for (const HloInstruction* param :
             (*module)->entry_computation()->parameter_instructions()) {
          Literal arg(param->shape());
          for (int64_t i = 0; i < arg.element_count(); ++i) {
            arg.SetFromDouble(i, i % 7 - 2);
          }
          args.push_back(std::move(arg));
        }
        absl::StatusOr<std::vector<Literal>> out =
            EvaluateModule(**module, args);
        EXPECT_TRUE(out.ok()) << mutated << ": " << out.status();
      }
    }
  }
  // Most mutations break the op; some (a different index, an equivalent
  // index_vector_dim) keep it well-formed.
  EXPECT_GT(refused, accepted);
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace xla_lite
