// while and conditional through the compiler, on every platform, against
// the HloEvaluator: trip counts from an input (zero included), nested
// loops, loop state whose leaves trade places, conditionals in the pred and
// the indexed form (an index out of range runs the last branch), both
// branches taken across the steps of a training loop, and the runtime's
// loop bound. The counters say how many iterations and branches ran, and
// that command buffers inside loop bodies are recorded once.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/while_thunk.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite::testing {
namespace {

struct StepsRun {
  std::vector<Literal> results;
  gpu::ExecutionCounters after_step2;
  gpu::ExecutionCounters after_last;
};

class ControlFlowTest : public CompilerTest {
 protected:
  // Compiles `hlo` and runs `steps` steps (aliased results fed back), with
  // the counters after step 2 and after the last.
  absl::StatusOr<StepsRun> RunSteps(const std::string& hlo,
                                    const std::vector<Literal>& arguments,
                                    const DebugOptions& options,
                                    int64_t steps) {
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, Parse(hlo));
    ComputationLayout layout = module->entry_computation_layout();
    ASSIGN_OR_RETURN(executable_,
                     xla_lite::Compile(std::move(module), executor_,
                                       WithFullPrecisionDots(options)));
    ASSIGN_OR_RETURN(std::unique_ptr<TrainingLoop> loop,
                     TrainingLoop::Create(executable_.get(), layout, executor_,
                                          BatchMode::kFixed));
    RETURN_IF_ERROR(loop->SetArguments(arguments));
    StepsRun run;
    for (int64_t step = 0; step < steps; ++step) {
      RETURN_IF_ERROR(loop->Step().status());
      if (step == 1) run.after_step2 = loop->stats().Snapshot();
    }
    run.after_last = loop->stats().Snapshot();
    ASSIGN_OR_RETURN(run.results, loop->Results());
    return run;
  }

  // Runs `hlo` op by op and with command buffers; both must match the
  // evaluator. Returns the op-by-op run.
  StepsRun ExpectMatches(const std::string& hlo,
                         const std::vector<Literal>& arguments,
                         int64_t steps = 1) {
    auto expected = Evaluate(hlo, arguments, steps);
    EXPECT_TRUE(expected.ok()) << expected.status();
    StepsRun first;
    for (bool graphs : {false, true}) {
      SCOPED_TRACE(graphs ? "command buffers" : "op by op");
      auto run =
          RunSteps(hlo, arguments,
                   graphs ? DefaultDebugOptions() : OpByOpOptions(), steps);
      EXPECT_TRUE(run.ok()) << run.status();
      if (!run.ok() || !expected.ok()) return first;
      EXPECT_EQ(run->results.size(), expected->size());
      for (int i = 0; i < expected->size() && i < run->results.size(); ++i) {
        absl::Status same = CompareLiterals(run->results[i], (*expected)[i]);
        EXPECT_TRUE(same.ok()) << "result " << i << ": " << same;
      }
      if (!graphs) first = *std::move(run);
    }
    return first;
  }

  // The executable's top-level WhileThunks.
  std::vector<const gpu::WhileThunk*> Loops() const {
    std::vector<const gpu::WhileThunk*> loops;
    for (const gpu::Thunk* thunk : FlatThunks(*executable_)) {
      if (thunk->kind() == gpu::Thunk::Kind::kWhile) {
        loops.push_back(static_cast<const gpu::WhileThunk*>(thunk));
      }
    }
    return loops;
  }

  std::unique_ptr<gpu::GpuExecutable> executable_;
};

Literal S32(int32_t value) {
  Literal literal(Shape::Array(PrimitiveType::S32, {}));
  literal.SetFromInt64(0, value);
  return literal;
}

Literal F32(std::vector<int64_t> dims, float first) {
  Literal literal(Shape::Array(PrimitiveType::F32, std::move(dims)));
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetFromDouble(i, first + 0.25 * i);
  }
  return literal;
}

int64_t CountKind(const gpu::SequentialThunk& sequence, gpu::Thunk::Kind kind) {
  int64_t count = 0;
  for (const auto& thunk : sequence.thunks()) count += thunk->kind() == kind;
  return count;
}

// x <- 0.5 x + c, n times; the counter starts from a value a kernel
// computes (n - n), so the loop state takes over its buffer.
constexpr char kCounted[] = R"(
HloModule counted
cond {
  s = (s32[], s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  x = f32[4] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  half = f32[] constant(0.5)
  h = f32[4] broadcast(half), dimensions={}
  y = f32[4] multiply(x, h)
  c = f32[4] constant({1, 2, 3, 4})
  z = f32[4] add(y, c)
  ROOT t = (s32[], s32[], f32[4]) tuple(i1, n, z)
}
ENTRY main {
  n = s32[] parameter(0)
  x = f32[4] parameter(1)
  zero = s32[] subtract(n, n)
  t = (s32[], s32[], f32[4]) tuple(zero, n, x)
  w = (s32[], s32[], f32[4]) while(t), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=2
})";

TEST_P(ControlFlowTest, TripCountFromAnInputZeroIncluded) {
  for (int32_t n : {0, 1, 6}) {
    SCOPED_TRACE(absl::StrCat("n = ", n));
    StepsRun run = ExpectMatches(kCounted, {S32(n), F32({4}, -1)});
    EXPECT_EQ(run.after_last.loop_iterations, n);
  }
}

TEST_P(ControlFlowTest, BodyUpdatesTheStateInPlace) {
  ExpectMatches(kCounted, {S32(3), F32({4}, 2)});
  std::vector<const gpu::WhileThunk*> loops = Loops();
  ASSERT_EQ(loops.size(), 1);
  // Every leaf is written where it lives: no copy per iteration.
  EXPECT_EQ(CountKind(loops[0]->body(), gpu::Thunk::Kind::kMemcpy), 0);
  // x and n, parameters the caller keeps, are copied into the state once;
  // the counter's initial value is a temp only the loop reads, whose slot
  // the state takes over.
  int64_t copies_in = 0;
  for (const gpu::Thunk* thunk : FlatThunks(*executable_)) {
    copies_in += absl::StrContains(thunk->name(), ".init.");
  }
  EXPECT_EQ(copies_in, 2);
}

// kCounted with the bound in the condition and the counter starting from
// a constant, as lax.fori_loop(2, 7, ...) lowers: 5 trips the HLO states.
constexpr char kFixedTrips[] = R"(
HloModule fixed_trips
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  seven = s32[] constant(7)
  ROOT lt = pred[] compare(i, seven), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(one, i)
  half = f32[] constant(0.5)
  h = f32[4] broadcast(half), dimensions={}
  y = f32[4] multiply(x, h)
  c = f32[4] constant({1, 2, 3, 4})
  z = f32[4] add(y, c)
  ROOT t = (s32[], f32[4]) tuple(i1, z)
}
ENTRY main {
  x = f32[4] parameter(0)
  two = s32[] constant(2)
  t = (s32[], f32[4]) tuple(two, x)
  w = (s32[], f32[4]) while(t), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
})";

// xla_gpu_command_buffer_unroll_loops: a loop whose trip count the HLO
// states becomes its body's thunks once per trip (no loop, no iteration
// the host sees); one whose count comes from an input stays a loop.
TEST_P(ControlFlowTest, CountedLoopsUnrollWhenAsked) {
  DebugOptions unroll = DefaultDebugOptions();
  unroll.set_xla_gpu_command_buffer_unroll_loops(true);
  const std::vector<Literal> x = {F32({4}, -1)};
  auto expected = Evaluate(kFixedTrips, x, 3);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto run = RunSteps(kFixedTrips, x, unroll, 3);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->results.size(), 1);
  absl::Status same = CompareLiterals(run->results[0], (*expected)[0]);
  EXPECT_TRUE(same.ok()) << same;
  EXPECT_TRUE(Loops().empty());
  EXPECT_EQ(run->after_last.loop_iterations, 0);
  EXPECT_EQ(run->after_last.command_buffer_launches -
                run->after_step2.command_buffer_launches,
            1)
      << "step 3 is one graph launch";

  auto as_loop = RunSteps(kFixedTrips, x, DefaultDebugOptions(), 1);
  ASSERT_TRUE(as_loop.ok()) << as_loop.status();
  EXPECT_EQ(Loops().size(), 1) << "off by default";
  EXPECT_EQ(as_loop->after_last.loop_iterations, 5) << "host-driven warm-up";

  auto from_input = RunSteps(kCounted, {S32(3), F32({4}, 2)}, unroll, 1);
  ASSERT_TRUE(from_input.ok()) << from_input.status();
  EXPECT_EQ(Loops().size(), 1);
}

// A loop whose body holds a thunk that may not be recorded (a library gemm
// with the CUBLAS command type turned off) is never a loop node: it runs
// from the host, counted trip by trip, its recordable runs in command
// buffers of their own; with the type on, it becomes a node wherever the
// platform has conditional nodes.
TEST_P(ControlFlowTest, BodyThatCannotBeRecordedRunsFromTheHost) {
  const std::string hlo = R"(
HloModule gemm_loop
cond {
  s = (s32[], f32[2,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2,2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  y = f32[2,2] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h = f32[] constant(0.5)
  hb = f32[2,2] broadcast(h), dimensions={}
  z = f32[2,2] multiply(y, hb)
  ROOT t = (s32[], f32[2,2]) tuple(i1, z)
}
ENTRY main {
  x = f32[2,2] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[2,2]) tuple(zero, x)
  w = (s32[], f32[2,2]) while(t), condition=cond, body=body
  ROOT r = f32[2,2] get-tuple-element(w), index=1
})";
  const std::vector<Literal> x = {F32({2, 2}, 0.5)};
  auto expected = Evaluate(hlo, x, 1);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (bool cublas : {false, true}) {
    SCOPED_TRACE(cublas ? "CUBLAS on" : "CUBLAS off");
    DebugOptions options = DefaultDebugOptions();
    options.set_xla_gpu_emitted_gemm_max_size(0);  // a library gemm
    const auto types = options.xla_gpu_enable_command_buffer();
    options.clear_xla_gpu_enable_command_buffer();
    for (int type : types) {
      if (type == DebugOptions::CUBLAS && !cublas) continue;
      options.add_xla_gpu_enable_command_buffer(
          static_cast<DebugOptions::CommandBufferCmdType>(type));
    }
    // The state is fed back each step; compare the first against the
    // evaluator, then count the steady steps.
    auto first = RunSteps(hlo, x, options, 1);
    ASSERT_TRUE(first.ok()) << first.status();
    absl::Status same = CompareLiterals(first->results[0], (*expected)[0]);
    EXPECT_TRUE(same.ok()) << same;
    auto run = RunSteps(hlo, x, options, 4);
    ASSERT_TRUE(run.ok()) << run.status();
    const int64_t steady =
        run->after_last.loop_iterations - run->after_step2.loop_iterations;
    const bool node = cublas && executor_->SupportsConditionalCommands();
    EXPECT_EQ(steady, node ? 0 : 2 * 3);
    ASSERT_EQ(Loops().size(), 1);
    EXPECT_EQ(Loops()[0]->IsRecordable(), node);
  }
}

// The body returns (i + 1, y, x): leaves that trade places are staged, so
// neither overwrites the other before it is read.
TEST_P(ControlFlowTest, StateLeavesThatTradePlaces) {
  const std::string hlo = R"(
HloModule swap
cond {
  s = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
body {
  s = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[3] get-tuple-element(s), index=1
  y = f32[3] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x2 = f32[3] add(x, x)
  ROOT t = (s32[], f32[3], f32[3]) tuple(i1, y, x2)
}
ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  zero = s32[] constant(0)
  t = (s32[], f32[3], f32[3]) tuple(zero, x, y)
  w = (s32[], f32[3], f32[3]) while(t), condition=cond, body=body
  a = f32[3] get-tuple-element(w), index=1
  b = f32[3] get-tuple-element(w), index=2
  ROOT r = (f32[3], f32[3]) tuple(a, b)
})";
  StepsRun run = ExpectMatches(hlo, {F32({3}, 1), F32({3}, -2)});
  EXPECT_EQ(run.after_last.loop_iterations, 3);
}

TEST_P(ControlFlowTest, NestedLoops) {
  const std::string hlo = R"(
HloModule nested
inner_cond {
  s = (s32[], s32[], f32[2,3]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  m = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(j, m), direction=LT
}
inner_body {
  s = (s32[], s32[], f32[2,3]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  m = s32[] get-tuple-element(s), index=1
  x = f32[2,3] get-tuple-element(s), index=2
  one = s32[] constant(1)
  j1 = s32[] add(j, one)
  jf = f32[] convert(j1)
  b = f32[2,3] broadcast(jf), dimensions={}
  y = f32[2,3] add(x, b)
  ROOT t = (s32[], s32[], f32[2,3]) tuple(j1, m, y)
}
outer_cond {
  s = (s32[], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}
outer_body {
  s = (s32[], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2,3] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  t0 = (s32[], s32[], f32[2,3]) tuple(zero, i, x)
  w = (s32[], s32[], f32[2,3]) while(t0), condition=inner_cond, body=inner_body
  y = f32[2,3] get-tuple-element(w), index=2
  tenth = f32[] constant(0.1)
  tb = f32[2,3] broadcast(tenth), dimensions={}
  z = f32[2,3] multiply(y, tb)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[2,3]) tuple(i1, z)
}
ENTRY main {
  x = f32[2,3] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[2,3]) tuple(zero, x)
  w = (s32[], f32[2,3]) while(t), condition=outer_cond, body=outer_body
  ROOT r = f32[2,3] get-tuple-element(w), index=1
})";
  StepsRun run = ExpectMatches(hlo, {F32({2, 3}, 0.5)});
  // 4 outer iterations, and 0 + 1 + 2 + 3 inner ones.
  EXPECT_EQ(run.after_last.loop_iterations, 4 + 6);
}

TEST_P(ControlFlowTest, IndexedBranchesAndAnIndexOutOfRange) {
  const std::string hlo = R"(
HloModule switch
twice {
  p = f32[4] parameter(0)
  ROOT r = f32[4] add(p, p)
}
negate {
  p = f32[4] parameter(0)
  ROOT r = f32[4] negate(p)
}
same {
  ROOT p = f32[4] parameter(0)
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[4] parameter(1)
  ROOT c = f32[4] conditional(i, a, a, a), branch_computations={twice, negate, same}
})";
  for (int32_t index : {0, 1, 2, 7, -3}) {
    SCOPED_TRACE(absl::StrCat("index ", index));
    StepsRun run = ExpectMatches(hlo, {S32(index), F32({4}, -0.5)});
    EXPECT_EQ(run.after_last.conditional_branches, 1);
  }
}

TEST_P(ControlFlowTest, PredBranchesWithTupleOperandsAndResults) {
  const std::string hlo = R"(
HloModule pred
scaled {
  p = (f32[4], f32[]) parameter(0)
  x = f32[4] get-tuple-element(p), index=0
  s = f32[] get-tuple-element(p), index=1
  b = f32[4] broadcast(s), dimensions={}
  m = f32[4] multiply(x, b)
  ROOT t = (f32[4], f32[]) tuple(m, s)
}
kept {
  p = f32[4] parameter(0)
  c = f32[] constant(-1)
  ROOT t = (f32[4], f32[]) tuple(p, c)
}
ENTRY main {
  q = pred[] parameter(0)
  a = f32[4] parameter(1)
  s = f32[] parameter(2)
  operand = (f32[4], f32[]) tuple(a, s)
  c = (f32[4], f32[]) conditional(q, operand, a), true_computation=scaled, false_computation=kept
  x = f32[4] get-tuple-element(c), index=0
  y = f32[] get-tuple-element(c), index=1
  ROOT r = (f32[4], f32[]) tuple(x, y)
})";
  for (bool q : {true, false}) {
    SCOPED_TRACE(q ? "true" : "false");
    Literal pred(Shape::Array(PrimitiveType::PRED, {}));
    pred.SetFromInt64(0, q);
    ExpectMatches(hlo, {std::move(pred), F32({4}, 1), F32({}, 3)});
  }
}

// A step that halves x while its sum is above 1 and adds 1.5 otherwise:
// both branches run across the steps, the loop state is donated, and the
// command buffers inside the branches record once.
TEST_P(ControlFlowTest, BothBranchesAcrossStepsWithStableCommandBuffers) {
  const std::string hlo = R"(
HloModule step, input_output_alias={ {}: (0, {}, may-alias) }
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
halve {
  p = f32[8] parameter(0)
  h = f32[] constant(0.5)
  b = f32[8] broadcast(h), dimensions={}
  ROOT r = f32[8] multiply(p, b)
}
grow {
  p = f32[8] parameter(0)
  h = f32[] constant(1.5)
  b = f32[8] broadcast(h), dimensions={}
  ROOT r = f32[8] add(p, b)
}
ENTRY main {
  x = f32[8] parameter(0)
  zero = f32[] constant(0)
  sum = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  one = f32[] constant(1)
  big = pred[] compare(sum, one), direction=GT
  ROOT c = f32[8] conditional(big, x, x), true_computation=halve, false_computation=grow
})";
  const int64_t steps = 7;
  StepsRun op_by_op = ExpectMatches(hlo, {F32({8}, 0.125)}, steps);
  EXPECT_EQ(op_by_op.after_last.conditional_branches, steps);
  auto graphs = RunSteps(hlo, {F32({8}, 0.125)}, DefaultDebugOptions(), steps);
  ASSERT_TRUE(graphs.ok()) << graphs.status();
  gpu::ExecutionCounters steady = graphs->after_last - graphs->after_step2;
  EXPECT_EQ(steady.command_buffer_updates, 0);
  EXPECT_EQ(steady.command_buffer_traces, 0);
  // A branch first taken after step 2 warms up and records then; once
  // each branch has run twice, nothing records again.
  EXPECT_LE(steady.command_buffer_records, 2);
}

TEST_P(ControlFlowTest, LoopBoundStopsATripCountFromAnInput) {
  DebugOptions options = OpByOpOptions();
  options.set_xla_gpu_max_loop_iterations(10);
  auto run = RunSteps(kCounted, {S32(1000000), F32({4}, 0)}, options, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kResourceExhausted)
      << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "while loop w"))
      << run.status();
  // Within the bound the same executable's program runs.
  auto within = RunSteps(kCounted, {S32(10), F32({4}, 0)}, options, 1);
  EXPECT_TRUE(within.ok()) << within.status();
}

// A call in a loop body whose callee holds a conditional: inlined, then
// compiled with the body.
TEST_P(ControlFlowTest, CallInALoopBodyBringsAConditional) {
  const std::string hlo = R"(
HloModule call_in_body
up {
  p = f32[3] parameter(0)
  one = f32[] constant(1)
  b = f32[3] broadcast(one), dimensions={}
  ROOT r = f32[3] add(p, b)
}
down {
  p = f32[3] parameter(0)
  ROOT r = f32[3] negate(p)
}
step {
  i = s32[] parameter(0)
  x = f32[3] parameter(1)
  two = s32[] constant(2)
  odd = s32[] remainder(i, two)
  ROOT c = f32[3] conditional(odd, x, x), branch_computations={up, down}
}
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(i, five), direction=LT
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[3] get-tuple-element(s), index=1
  y = f32[3] call(i, x), to_apply=step
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[3]) tuple(i1, y)
}
ENTRY main {
  x = f32[3] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[3]) tuple(zero, x)
  w = (s32[], f32[3]) while(t), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
})";
  StepsRun run = ExpectMatches(hlo, {F32({3}, 0.5)});
  EXPECT_EQ(run.after_last.loop_iterations, 5);
  EXPECT_EQ(run.after_last.conditional_branches, 5);
}

// The entry returns the while itself: its elements are the results.
TEST_P(ControlFlowTest, WhileAsTheEntryRoot) {
  const std::string hlo = R"(
HloModule root_while
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  y = f32[2] exponential(x)
  ROOT t = (s32[], f32[2]) tuple(i1, y)
}
ENTRY main {
  i = s32[] parameter(0)
  x = f32[2] parameter(1)
  t = (s32[], f32[2]) tuple(i, x)
  ROOT w = (s32[], f32[2]) while(t), condition=cond, body=body
})";
  StepsRun run = ExpectMatches(hlo, {S32(-1), F32({2}, -0.5)});
  EXPECT_EQ(run.after_last.loop_iterations, 3);
}

// A body whose result is not the loop state's shape is refused with a
// clear error, before anything runs.
TEST_P(ControlFlowTest, BodyOfTheWrongShapeIsRefused) {
  auto executable = Compile(R"(
HloModule bad_body
cond {
  s = (s32[], f32[3]) parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT t = (s32[]) tuple(i)
}
ENTRY main {
  x = f32[3] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[3]) tuple(zero, x)
  w = (s32[], f32[3]) while(t), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
})");
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kInvalidArgument)
      << executable.status();
  EXPECT_TRUE(absl::StrContains(executable.status().message(), "body"))
      << executable.status();
}

// Level k's body runs level k-1's body in two loops: planned once per
// loop, 2^16 bodies of ~100 instructions would be millions of instructions
// to plan. The planning budget stops it with a clear error, quickly.
TEST_P(ControlFlowTest, LoopsSharingBodiesCannotBlowUpCompilation) {
  constexpr char kState[] = "(s32[], f32[4])";
  std::string hlo = absl::StrCat(
      "HloModule shared_bodies\n\ncond {\n  s = ", kState,
      " parameter(0)\n  ROOT f = pred[] constant(false)\n}\n");
  constexpr int kLevels = 16;
  for (int level = 0; level <= kLevels; ++level) {
    absl::StrAppend(&hlo, "\nbody", level, " {\n  s = ", kState,
                    " parameter(0)\n  i = s32[] get-tuple-element(s), "
                    "index=0\n  x0 = f32[4] get-tuple-element(s), index=1\n");
    for (int k = 1; k <= 100; ++k) {
      absl::StrAppend(&hlo, "  x", k, " = f32[4] negate(x", k - 1, ")\n");
    }
    if (level == 0) {
      absl::StrAppend(&hlo, "  ROOT t = ", kState, " tuple(i, x100)\n}\n");
      continue;
    }
    absl::StrAppend(&hlo, "  t = ", kState, " tuple(i, x100)\n  w = ", kState,
                    " while(t), condition=cond, body=body", level - 1,
                    "\n  ROOT r = ", kState,
                    " while(w), condition=cond, body=body", level - 1, "\n}\n");
  }
  absl::StrAppend(&hlo, "\nENTRY main {\n  i = s32[] parameter(0)\n"
                        "  x = f32[4] parameter(1)\n  t = ", kState,
                  " tuple(i, x)\n  w = ", kState,
                  " while(t), condition=cond, body=body", kLevels,
                  "\n  ROOT r = f32[4] get-tuple-element(w), index=1\n}\n");
  auto executable = Compile(hlo);
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kInvalidArgument)
      << executable.status();
  EXPECT_TRUE(absl::StrContains(executable.status().message(),
                                "plan more than"))
      << executable.status();
}

INSTANTIATE_FOR_ALL_PLATFORMS(ControlFlowTest);

}  // namespace
}  // namespace xla_lite::testing
