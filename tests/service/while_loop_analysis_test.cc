// KnownTripCount over the loop forms JAX emits and the near misses that
// must not count: a bound from the state or an input, another step, another
// comparison, a counter that does not start from a constant.

#include "xla_lite/service/while_loop_analysis.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/hlo_parser.h"

namespace xla_lite {
namespace {

// A counted loop in the form lax.fori_loop(START, LIMIT, ...) lowers to.
constexpr char kLoop[] = R"(
HloModule loop
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(LIMIT)
  ROOT keep_going = pred[] compare(COMPARE), direction=DIRECTION
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  step = s32[] constant(STEP)
  next = s32[] add(i, step)
  y = f32[2] add(x, x)
  ROOT t = (s32[], f32[2]) tuple(next, y)
}
ENTRY main {
  x = f32[2] parameter(0)
  n = s32[] parameter(1)
  start = s32[] START
  t = (s32[], f32[2]) tuple(start, x)
  w = (s32[], f32[2]) while(t), condition=cond, body=body
  ROOT r = f32[2] get-tuple-element(w), index=1
})";

struct Form {
  std::string limit = "16";
  std::string compare = "i, limit";
  std::string direction = "LT";
  std::string step = "1";
  std::string start = "constant(0)";
};

std::optional<int64_t> TripCount(const Form& form) {
  const std::string hlo = absl::StrReplaceAll(
      kLoop, {{"LIMIT", form.limit},
              {"COMPARE", form.compare},
              {"DIRECTION", form.direction},
              {"STEP", form.step},
              {"START", form.start}});
  auto module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return std::nullopt;
  const HloInstruction* loop =
      (*module)->entry_computation()->root_instruction()->operand(0);
  EXPECT_EQ(loop->opcode(), HloOpcode::kWhile);
  return KnownTripCount(*loop);
}

TEST(WhileLoopAnalysisTest, CountedLoops) {
  EXPECT_EQ(TripCount({}), 16);
  Form from_two;
  from_two.start = "constant(2)";
  EXPECT_EQ(TripCount(from_two), 14);
  Form swapped;
  swapped.compare = "limit, i";
  swapped.direction = "GT";
  EXPECT_EQ(TripCount(swapped), 16);
  Form past_the_limit;
  past_the_limit.start = "constant(20)";
  EXPECT_EQ(TripCount(past_the_limit), 0);
}

TEST(WhileLoopAnalysisTest, LoopsThatDoNotSayTheirCount) {
  Form from_input;
  from_input.start = "subtract(n, n)";
  EXPECT_EQ(TripCount(from_input), std::nullopt);
  Form by_two;
  by_two.step = "2";
  EXPECT_EQ(TripCount(by_two), std::nullopt);
  Form inclusive;
  inclusive.direction = "LE";
  EXPECT_EQ(TripCount(inclusive), std::nullopt);
  Form reversed;
  reversed.compare = "limit, i";  // limit < i: another loop entirely
  EXPECT_EQ(TripCount(reversed), std::nullopt);
}

}  // namespace
}  // namespace xla_lite
