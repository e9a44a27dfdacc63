// while, conditional (both forms), dynamic-slice and dynamic-update-slice
// through parser, verifier and reference evaluator, on modules small
// enough that every expected value is worked out by hand in the comments.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/evaluator_test_util.h"
#include "xla_lite/hlo/hlo_verifier.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

// for (i = 0; i < n; ++i) acc += i, with the state (i, n, acc): the trip
// count is the input n.
constexpr char kCountingLoop[] = R"(HloModule counting

cond {
  s = (s32[], s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  acc = f32[2] get-tuple-element(s), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  fi = f32[] convert(i)
  b = f32[2] broadcast(fi), dimensions={}
  sum = f32[2] add(acc, b)
  ROOT t = (s32[], s32[], f32[2]) tuple(next, n, sum)
}

ENTRY e {
  n = s32[] parameter(0)
  acc = f32[2] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], s32[], f32[2]) tuple(zero, n, acc)
  w = (s32[], s32[], f32[2]) while(init), condition=cond, body=body
  ROOT r = f32[2] get-tuple-element(w), index=2
}
)";

std::unique_ptr<HloModule> ParseAndVerify(const std::string& text) {
  std::unique_ptr<HloModule> module = ParseOrDie(text);
  if (module == nullptr) return nullptr;
  absl::Status verified = VerifyHloModule(*module);
  EXPECT_TRUE(verified.ok()) << verified;
  return verified.ok() ? std::move(module) : nullptr;
}

std::vector<double> EvalSingle(const HloModule& module,
                               const std::vector<Literal>& args) {
  absl::StatusOr<std::vector<Literal>> out = EvaluateModule(module, args);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->size() != 1) return {};
  return Values((*out)[0]);
}

TEST(ControlFlowTest, LoopTripCountFromAnInput) {
  std::unique_ptr<HloModule> module = ParseAndVerify(kCountingLoop);
  ASSERT_NE(module, nullptr);
  const Literal acc = F32({2}, {10, 20});
  // n = 4: acc + 0 + 1 + 2 + 3.
  EXPECT_THAT(EvalSingle(*module, {S32({}, {4}), acc}), Is({16, 26}));
  // n = 1: acc + 0.
  EXPECT_THAT(EvalSingle(*module, {S32({}, {1}), acc}), Is({10, 20}));
}

TEST(ControlFlowTest, ZeroTripLoopReturnsItsInitialState) {
  std::unique_ptr<HloModule> module = ParseAndVerify(kCountingLoop);
  ASSERT_NE(module, nullptr);
  // n = 0 and n < 0: the condition fails at once, the body never runs.
  EXPECT_THAT(EvalSingle(*module, {S32({}, {0}), F32({2}, {1, 2})}),
              Is({1, 2}));
  EXPECT_THAT(EvalSingle(*module, {S32({}, {-5}), F32({2}, {1, 2})}),
              Is({1, 2}));
}

TEST(ControlFlowTest, RunawayLoopIsStoppedAndNamed) {
  std::unique_ptr<HloModule> module = ParseAndVerify(kCountingLoop);
  ASSERT_NE(module, nullptr);
  EvaluatorOptions options;
  options.max_loop_iterations = 100;
  absl::StatusOr<std::vector<Literal>> out = EvaluateModule(
      *module, {S32({}, {2000000000}), F32({2}, {0, 0})}, options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(out.status().message(), HasSubstr("instruction 'w' (while)"));
  EXPECT_THAT(out.status().message(), HasSubstr("100 iterations"));
  // Within the limit the same loop runs: 0 + 1 + ... + 99 = 4950.
  out = EvaluateModule(*module, {S32({}, {100}), F32({2}, {0, 1})}, options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0]), Is({4950, 4951}));
}

TEST(ControlFlowTest, NestedLoops) {
  // for i in 0..3: for j in 0..i: acc += 1  ->  0 + 1 + 2 = 3 inner trips;
  // the outer state carries the inner loop's trip count i as its bound.
  const std::string text = R"(HloModule nested

inner_cond {
  s = (s32[], s32[], f32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(j, n), direction=LT
}

inner_body {
  s = (s32[], s32[], f32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  acc = f32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  fone = f32[] constant(1)
  next = s32[] add(j, one)
  sum = f32[] add(acc, fone)
  ROOT t = (s32[], s32[], f32[]) tuple(next, n, sum)
}

outer_cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

outer_body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  init = (s32[], s32[], f32[]) tuple(zero, i, acc)
  w = (s32[], s32[], f32[]) while(init), condition=inner_cond, body=inner_body
  inner_acc = f32[] get-tuple-element(w), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[]) tuple(next, inner_acc)
}

ENTRY e {
  acc = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, acc)
  ROOT w = (s32[], f32[]) while(init), condition=outer_cond, body=outer_body
}
)";
  std::unique_ptr<HloModule> module = ParseAndVerify(text);
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::vector<Literal>> out =
      EvaluateModule(*module, {F32({}, {0.5})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2);
  EXPECT_THAT(Values((*out)[0]), Is({3}));
  EXPECT_THAT(Values((*out)[1]), Is({3.5}));
}

// Branch 0 doubles, branch 1 negates, branch 2 adds one.
constexpr char kBranches[] = R"(
double {
  x = f32[2] parameter(0)
  ROOT y = f32[2] add(x, x)
}

negate {
  x = f32[2] parameter(0)
  ROOT y = f32[2] negate(x)
}

plus_one {
  x = f32[2] parameter(0)
  one = f32[] constant(1)
  b = f32[2] broadcast(one), dimensions={}
  ROOT y = f32[2] add(x, b)
}

)";

TEST(ControlFlowTest, PredConditionalTakesBothBranches) {
  // true -> true_computation (double), false -> false_computation (negate).
  const std::string text = EntryModule(
      {"pred[]", "f32[2]"},
      "f32[2] conditional(p0, p1, p1), true_computation=double, "
      "false_computation=negate",
      kBranches);
  std::unique_ptr<HloModule> module = ParseAndVerify(text);
  ASSERT_NE(module, nullptr);
  const Literal x = F32({2}, {1.5, -3});
  EXPECT_THAT(EvalSingle(*module, {Make(PrimitiveType::PRED, {}, {1}), x}),
              Is({3, -6}));
  EXPECT_THAT(EvalSingle(*module, {Make(PrimitiveType::PRED, {}, {0}), x}),
              Is({-1.5, 3}));
}

TEST(ControlFlowTest, IndexedConditionalRunsTheLastBranchOutOfRange) {
  const std::string text = EntryModule(
      {"s32[]", "f32[2]"},
      "f32[2] conditional(p0, p1, p1, p1), "
      "branch_computations={double, negate, plus_one}",
      kBranches);
  std::unique_ptr<HloModule> module = ParseAndVerify(text);
  ASSERT_NE(module, nullptr);
  const Literal x = F32({2}, {1, 2});
  EXPECT_THAT(EvalSingle(*module, {S32({}, {0}), x}), Is({2, 4}));
  EXPECT_THAT(EvalSingle(*module, {S32({}, {1}), x}), Is({-1, -2}));
  EXPECT_THAT(EvalSingle(*module, {S32({}, {2}), x}), Is({2, 3}));
  // XLA: an index outside [0, 3) selects the last branch.
  EXPECT_THAT(EvalSingle(*module, {S32({}, {3}), x}), Is({2, 3}));
  EXPECT_THAT(EvalSingle(*module, {S32({}, {-1}), x}), Is({2, 3}));
}

TEST(ControlFlowTest, TupleOperandsThroughCallsAndBranches) {
  // A call taking a tuple returns a tuple; the branches take it whole.
  const std::string text = R"(HloModule tuples

swap {
  t = (f32[], s32[]) parameter(0)
  a = f32[] get-tuple-element(t), index=0
  b = s32[] get-tuple-element(t), index=1
  ROOT r = (s32[], f32[]) tuple(b, a)
}

first {
  t = (s32[], f32[]) parameter(0)
  ROOT a = s32[] get-tuple-element(t), index=0
}

twice_first {
  t = (s32[], f32[]) parameter(0)
  a = s32[] get-tuple-element(t), index=0
  ROOT d = s32[] add(a, a)
}

ENTRY e {
  p0 = f32[] parameter(0)
  p1 = s32[] parameter(1)
  p2 = pred[] parameter(2)
  t = (f32[], s32[]) tuple(p0, p1)
  c = (s32[], f32[]) call(t), to_apply=swap
  ROOT r = s32[] conditional(p2, c, c), true_computation=first, false_computation=twice_first
}
)";
  std::unique_ptr<HloModule> module = ParseAndVerify(text);
  ASSERT_NE(module, nullptr);
  const Literal a = F32({}, {2.5}), b = S32({}, {7});
  EXPECT_THAT(EvalSingle(*module, {a, b, Make(PrimitiveType::PRED, {}, {1})}),
              Is({7}));
  EXPECT_THAT(EvalSingle(*module, {a, b, Make(PrimitiveType::PRED, {}, {0})}),
              Is({14}));
}

TEST(ControlFlowTest, DynamicSliceClampsItsStarts) {
  // {0, 1, 2, 3, 4}, windows of 2: start 1 -> {1, 2}; 4 and 9 clamp to
  // 5 - 2 = 3 -> {3, 4}; -1 clamps to 0 -> {0, 1}.
  const std::vector<std::string> params = {"f32[5]", "s32[]"};
  const std::string root = "f32[2] dynamic-slice(p0, p1), dynamic_slice_sizes={2}";
  const Literal x = F32({5}, {0, 1, 2, 3, 4});
  std::unique_ptr<HloModule> module =
      ParseAndVerify(EntryModule(params, root));
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(EvalSingle(*module, {x, S32({}, {1})}), Is({1, 2}));
  EXPECT_THAT(EvalSingle(*module, {x, S32({}, {4})}), Is({3, 4}));
  EXPECT_THAT(EvalSingle(*module, {x, S32({}, {9})}), Is({3, 4}));
  EXPECT_THAT(EvalSingle(*module, {x, S32({}, {-1})}), Is({0, 1}));
}

TEST(ControlFlowTest, DynamicSliceOfARowAsScanReadsIt) {
  // x[i] of a [3, 2] stack, as lax.scan reads its xs: row 2 is {4, 5}.
  EXPECT_THAT(
      EvalRoot({"f32[3,2]", "s32[]", "s32[]"},
               "f32[1,2] dynamic-slice(p0, p1, p2), dynamic_slice_sizes={1,2}",
               {F32({3, 2}, {0, 1, 2, 3, 4, 5}), S32({}, {2}), S32({}, {1})}),
      Is({4, 5}));
}

TEST(ControlFlowTest, DynamicUpdateSliceClampsItsStarts) {
  // {0, 0, 0, 0} with {7, 8} at 1 -> {0, 7, 8, 0}; at 3 (clamped to 2)
  // -> {0, 0, 7, 8}; at -2 (clamped to 0) -> {7, 8, 0, 0}.
  const std::vector<std::string> params = {"f32[4]", "f32[2]", "s32[]"};
  const std::string root = "f32[4] dynamic-update-slice(p0, p1, p2)";
  std::unique_ptr<HloModule> module =
      ParseAndVerify(EntryModule(params, root));
  ASSERT_NE(module, nullptr);
  const Literal zeros = F32({4}, {0, 0, 0, 0}), update = F32({2}, {7, 8});
  EXPECT_THAT(EvalSingle(*module, {zeros, update, S32({}, {1})}),
              Is({0, 7, 8, 0}));
  EXPECT_THAT(EvalSingle(*module, {zeros, update, S32({}, {3})}),
              Is({0, 0, 7, 8}));
  EXPECT_THAT(EvalSingle(*module, {zeros, update, S32({}, {-2})}),
              Is({7, 8, 0, 0}));
}

TEST(ControlFlowTest, ScanStacksItsOutputsWithDynamicUpdateSlice) {
  // ys[i] = 10 * i + x[i] for i < 3, written into the carried stack.
  const std::string text = R"(HloModule scan

cond {
  s = (s32[], f32[3,2], f32[3,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  s = (s32[], f32[3,2], f32[3,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  xs = f32[3,2] get-tuple-element(s), index=1
  ys = f32[3,2] get-tuple-element(s), index=2
  zero = s32[] constant(0)
  x = f32[1,2] dynamic-slice(xs, i, zero), dynamic_slice_sizes={1,2}
  ten = f32[] constant(10)
  fi = f32[] convert(i)
  tens = f32[] multiply(fi, ten)
  b = f32[1,2] broadcast(tens), dimensions={}
  y = f32[1,2] add(x, b)
  new_ys = f32[3,2] dynamic-update-slice(ys, y, i, zero)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[3,2], f32[3,2]) tuple(next, xs, new_ys)
}

ENTRY e {
  xs = f32[3,2] parameter(0)
  zero = s32[] constant(0)
  z = f32[] constant(0)
  ys = f32[3,2] broadcast(z), dimensions={}
  init = (s32[], f32[3,2], f32[3,2]) tuple(zero, xs, ys)
  w = (s32[], f32[3,2], f32[3,2]) while(init), condition=cond, body=body
  ROOT r = f32[3,2] get-tuple-element(w), index=2
}
)";
  std::unique_ptr<HloModule> module = ParseAndVerify(text);
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(EvalSingle(*module, {F32({3, 2}, {1, 2, 3, 4, 5, 6})}),
              Is({1, 2, 13, 14, 25, 26}));
}

TEST(ControlFlowTest, PrintedModulesParseBackTheSame) {
  const std::vector<std::string> texts = {
      kCountingLoop,
      EntryModule({"pred[]", "f32[2]"},
                  "f32[2] conditional(p0, p1, p1), "
                  "true_computation=double, false_computation=negate",
                  kBranches),
      EntryModule({"s32[]", "f32[2]"},
                  "f32[2] conditional(p0, p1, p1), "
                  "branch_computations={negate, plus_one}",
                  kBranches),
      EntryModule({"f32[5,3]", "s32[]", "s32[]"},
                  "f32[2,3] dynamic-slice(p0, p1, p2), "
                  "dynamic_slice_sizes={2,3}"),
  };
  for (const std::string& text : texts) {
    std::unique_ptr<HloModule> module = ParseAndVerify(text);
    ASSERT_NE(module, nullptr) << text;
    const std::string printed = module->ToString();
    std::unique_ptr<HloModule> reparsed = ParseAndVerify(printed);
    ASSERT_NE(reparsed, nullptr) << printed;
    EXPECT_EQ(reparsed->ToString(), printed);
  }
}

// The verifier's or the parser's error for `text`.
std::string ErrorOf(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, "m");
  if (!module.ok()) return std::string(module.status().message());
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_FALSE(verified.ok()) << text;
  return std::string(verified.message());
}

// kCountingLoop with `from` replaced by `to`.
std::string CountingLoopWith(const std::string& from, const std::string& to) {
  std::string text = kCountingLoop;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ControlFlowTest, MalformedLoopsAreClearErrors) {
  // A body whose result is not the loop state.
  EXPECT_THAT(
      ErrorOf(CountingLoopWith(
          "ROOT t = (s32[], s32[], f32[2]) tuple(next, n, sum)",
          "ROOT t = (s32[], f32[2]) tuple(next, sum)")),
      HasSubstr("m:28: instruction 'w' (while) in computation 'e': expected "
                "body 'body' to return (s32[], s32[], f32[2]), got "
                "(s32[], f32[2])"));
  // A condition that is not pred[].
  EXPECT_THAT(ErrorOf(CountingLoopWith(
                  "ROOT lt = pred[] compare(i, n), direction=LT",
                  "ROOT lt = s32[] add(i, n)")),
              HasSubstr("expected condition 'cond' to return pred[], got "
                        "s32[]"));
  // A condition taking another state.
  EXPECT_THAT(ErrorOf(CountingLoopWith(
                  "  s = (s32[], s32[], f32[2]) parameter(0)\n  i",
                  "  s = (s32[], s32[], f32[3]) parameter(0)\n  i")),
              HasSubstr("expected the parameter of condition 'cond' to be "
                        "(s32[], s32[], f32[2]), got (s32[], s32[], f32[3])"));
  // Missing attributes and unknown computations are parse errors.
  EXPECT_THAT(ErrorOf(CountingLoopWith(", body=body", "")),
              HasSubstr("while 'w' lacks its attribute body="));
  EXPECT_THAT(ErrorOf(CountingLoopWith("body=body", "body=nowhere")),
              HasSubstr("unknown computation 'nowhere'"));
}

TEST(ControlFlowTest, MalformedConditionalsAreClearErrors) {
  // A pred conditional needs both branches.
  EXPECT_THAT(ErrorOf(EntryModule({"pred[]", "f32[2]"},
                                  "f32[2] conditional(p0, p1, p1), "
                                  "true_computation=double",
                                  kBranches)),
              HasSubstr("needs either branch_computations= or both"));
  // A branch whose operand has another shape.
  EXPECT_THAT(ErrorOf(EntryModule({"s32[]", "f32[2]", "f32[3]"},
                                  "f32[2] conditional(p0, p1, p2), "
                                  "branch_computations={double, negate}",
                                  kBranches)),
              HasSubstr("expected the parameter of branch 1 'negate' to be "
                        "f32[3], got f32[2]"));
  // Branches that return another shape than the conditional.
  EXPECT_THAT(ErrorOf(EntryModule({"s32[]", "f32[2]"},
                                  "f32[3] conditional(p0, p1), "
                                  "branch_computations={double}",
                                  kBranches)),
              HasSubstr("expected branch 0 'double' to return f32[3]"));
  // An operand count that does not match the branches.
  EXPECT_THAT(ErrorOf(EntryModule({"s32[]", "f32[2]"},
                                  "f32[2] conditional(p0, p1), "
                                  "branch_computations={double, negate}",
                                  kBranches)),
              HasSubstr("expected 3 operands, got 2"));
  // A selector that is neither pred[] nor s32[].
  EXPECT_THAT(ErrorOf(EntryModule({"f32[]", "f32[2]"},
                                  "f32[2] conditional(p0, p1), "
                                  "branch_computations={double}",
                                  kBranches)),
              HasSubstr("expected a pred[] predicate or s32[] branch index, "
                        "got f32[]"));
}

TEST(ControlFlowTest, MalformedDynamicSlicesAreClearErrors) {
  EXPECT_THAT(ErrorOf(EntryModule({"f32[5,3]", "s32[]"},
                                  "f32[2,3] dynamic-slice(p0, p1), "
                                  "dynamic_slice_sizes={2,3}")),
              HasSubstr("expected 2 scalar start indices (one per "
                        "dimension), got 1"));
  EXPECT_THAT(ErrorOf(EntryModule({"f32[5]", "f32[]"},
                                  "f32[2] dynamic-slice(p0, p1), "
                                  "dynamic_slice_sizes={2}")),
              HasSubstr("to be an integer scalar"));
  EXPECT_THAT(ErrorOf(EntryModule({"f32[5]", "s32[]"},
                                  "f32[6] dynamic-slice(p0, p1), "
                                  "dynamic_slice_sizes={6}")),
              HasSubstr("expected dynamic_slice_sizes {6} within the operand"));
  EXPECT_THAT(ErrorOf(EntryModule({"f32[5]", "s32[]"},
                                  "f32[2] dynamic-slice(p0, p1)")),
              HasSubstr("lacks its attribute dynamic_slice_sizes="));
  EXPECT_THAT(ErrorOf(EntryModule({"f32[4]", "f32[5]", "s32[]"},
                                  "f32[4] dynamic-update-slice(p0, p1, p2)")),
              HasSubstr("expected the update f32[5] to fit in the operand "
                        "f32[4]"));
  EXPECT_THAT(ErrorOf(EntryModule({"f32[4]", "s32[2]", "s32[]"},
                                  "f32[4] dynamic-update-slice(p0, p1, p2)")),
              HasSubstr("expected an update of the operand's element type"));
}

}  // namespace
}  // namespace xla_lite
