// What the compiler refuses, and how it says so: UNIMPLEMENTED naming the
// op and the instruction, before anything runs.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/hlo/hlo_opcode.h"
#include "xla_lite/service/elemental_ops.h"

namespace xla_lite::testing {
namespace {

using UnsupportedTest = CompilerTest;

void ExpectRefused(const absl::Status& status, absl::StatusCode code,
                   const std::string& instruction, const std::string& what) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), instruction)) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), what)) << status;
}

TEST_P(UnsupportedTest, UnsupportedFormNamesInstructionLineAndForm) {
  // Line 14 of the text: a scatter whose combiner is not one op.
  auto executable = Compile(R"(
HloModule odd_scatter

sum_of_squares {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  bb = f32[] multiply(b, b)
  ROOT c = f32[] add(a, bb)
}
ENTRY main {
  table = f32[8,4] parameter(0)
  ids = s32[3] parameter(1)
  rows = f32[3,4] parameter(2)
  ROOT squares = f32[8,4] scatter(table, ids, rows), update_window_dims={1},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
      index_vector_dim=1, to_apply=sum_of_squares
})");
  ExpectRefused(executable.status(), absl::StatusCode::kUnimplemented,
                "instruction squares (line 14): scatter of f32",
                "only scatters whose to_apply is one");
}

TEST_P(UnsupportedTest, WideStartIndicesAreNamed) {
  auto executable = Compile(R"(
HloModule wide_ids

ENTRY main {
  table = f32[8,4] parameter(0)
  ids = s64[3] parameter(1)
  ROOT rows = f32[3,4] gather(table, ids), offset_dims={1},
      collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1,
      slice_sizes={1,4}
})");
  ExpectRefused(executable.status(), absl::StatusCode::kUnimplemented,
                "instruction rows (line 7): gather of s64", "ids");
}

TEST_P(UnsupportedTest, UnsupportedElementTypeIsNamed) {
  auto executable = Compile(R"(
HloModule s64

ENTRY main {
  a = s64[4] parameter(0)
  ROOT sum = s64[4] add(a, a)
})");
  ExpectRefused(executable.status(), absl::StatusCode::kUnimplemented, "sum",
                "s64");
}

TEST_P(UnsupportedTest, ReducerThatIsNotOneBinaryOpIsNamed) {
  auto executable = Compile(R"(
HloModule odd_reduce

sum_of_squares {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  bb = f32[] multiply(b, b)
  ROOT c = f32[] add(a, bb)
}

ENTRY main {
  x = f32[4,6] parameter(0)
  z = f32[] constant(0)
  ROOT squares = f32[4] reduce(x, z), dimensions={1}, to_apply=sum_of_squares
})");
  ExpectRefused(executable.status(), absl::StatusCode::kUnimplemented,
                "squares", "reduce");
}

// Every opcode the parser knows.
std::vector<HloOpcode> AllOpcodes() {
  std::vector<HloOpcode> opcodes;
#define XLA_LITE_APPEND_OPCODE(enum_name, text) \
  opcodes.push_back(HloOpcode::enum_name);
  XLA_LITE_HLO_OPCODE_LIST(XLA_LITE_APPEND_OPCODE)
#undef XLA_LITE_APPEND_OPCODE
  return opcodes;
}

TEST_P(UnsupportedTest, IntegerTranscendentalIsNamed) {
  auto executable = Compile(R"(
HloModule int_exp

ENTRY main {
  a = s32[4] parameter(0)
  ROOT e = s32[4] exponential(a)
})");
  EXPECT_FALSE(executable.ok());
  EXPECT_TRUE(absl::StrContains(executable.status().message(), "e")) << executable.status();
}

TEST_P(UnsupportedTest, MalformedModuleFailsVerification) {
  auto executable = Compile(R"(
HloModule bad

ENTRY main {
  a = f32[4] parameter(0)
  ROOT wrong = f32[5] negate(a)
})");
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kInvalidArgument)
      << executable.status();
  EXPECT_TRUE(absl::StrContains(executable.status().message(), "wrong"))
      << executable.status();
}

// Every opcode the parser knows has a row in the op table, or a module
// here: one that compiles (the HLO passes rewrite it into supported ops,
// as dynamic slices become gathers and scatters, or it is control flow,
// which becomes thunks over its computations), or one the compiler refuses
// with UNIMPLEMENTED naming the instruction and the opcode. A new opcode in the parser fails this test
// until it is one or the other.
TEST_P(UnsupportedTest, EveryOpcodeWithoutARowIsRewrittenOrRefused) {
  struct Case {
    const char* module;
    bool rewritten;  // Compiles: rewritten by the HLO passes, or control flow.
    const char* type = "f32";  // The refused op's element type.
  };
  const std::map<HloOpcode, Case> cases = {
      {HloOpcode::kBitcast, {R"(
HloModule bitcast
ENTRY main {
  a = f32[2,3] parameter(0)
  ROOT op = f32[3,2] bitcast(a)
})", true}},
      {HloOpcode::kCall, {R"(
HloModule call
twice {
  x = f32[4] parameter(0)
  ROOT y = f32[4] add(x, x)
}
ENTRY main {
  a = f32[4] parameter(0)
  ROOT op = f32[4] call(a), to_apply=twice
})", true}},
      {HloOpcode::kFusion, {R"(
HloModule fusion
fused {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
ENTRY main {
  a = f32[4] parameter(0)
  ROOT op = f32[4] fusion(a), kind=kLoop, calls=fused
})", true}},
      {HloOpcode::kGetTupleElement, {R"(
HloModule gte
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  t = (f32[4], f32[4]) tuple(a, b)
  op = f32[4] get-tuple-element(t), index=1
  ROOT n = f32[4] negate(op)
})", true}},
      {HloOpcode::kWhile, {R"(
HloModule while
cond {
  x = f32[4] parameter(0)
  ROOT p = pred[] constant(false)
}
body {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
ENTRY main {
  a = f32[4] parameter(0)
  ROOT op = f32[4] while(a), condition=cond, body=body
})", true}},
      {HloOpcode::kConditional, {R"(
HloModule conditional
negate {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[4] parameter(1)
  ROOT op = f32[4] conditional(i, a), branch_computations={negate}
})", true}},
      {HloOpcode::kDynamicSlice, {R"(
HloModule dynamic_slice
ENTRY main {
  a = f32[8,4] parameter(0)
  i = s32[] parameter(1)
  ROOT op = f32[2,4] dynamic-slice(a, i, i), dynamic_slice_sizes={2,4}
})", true}},
      {HloOpcode::kDynamicUpdateSlice, {R"(
HloModule dynamic_update_slice
ENTRY main {
  a = f32[8,4] parameter(0)
  u = f32[2,4] parameter(1)
  i = s32[] parameter(2)
  ROOT op = f32[8,4] dynamic-update-slice(a, u, i, i)
})", true}},
      {HloOpcode::kCustomCall, {R"(
HloModule custom_call
ENTRY main {
  a = f32[4] parameter(0)
  ROOT op = f32[4] custom-call(a), custom_call_target="foo"
})", false}},
      {HloOpcode::kReplicaId, {R"(
HloModule replica_id
ENTRY main {
  ROOT op = u32[] replica-id()
})", false, "u32"}},
      {HloOpcode::kPartitionId, {R"(
HloModule partition_id
ENTRY main {
  ROOT op = u32[] partition-id()
})", false, "u32"}},
  };
  int refused = 0;
  for (HloOpcode opcode : AllOpcodes()) {
    if (gpu::FindElementalOp(opcode) != nullptr) continue;
    SCOPED_TRACE(HloOpcodeString(opcode));
    auto it = cases.find(opcode);
    ASSERT_NE(it, cases.end())
        << "no row in the op table and no case here";
    auto executable = Compile(it->second.module);
    if (it->second.rewritten) {
      EXPECT_TRUE(executable.ok()) << executable.status();
      continue;
    }
    ++refused;
    EXPECT_TRUE(absl::StrContains(executable.status().message(),
                                  "instruction op (line "))
        << executable.status();
    ExpectRefused(executable.status(), absl::StatusCode::kUnimplemented,
                  absl::StrCat("): ", HloOpcodeString(opcode), " of ",
                               it->second.type),
                  "is not supported by the xla_lite compiler");
  }
  RecordProperty("refused", refused);
}

INSTANTIATE_FOR_ALL_PLATFORMS(UnsupportedTest);

}  // namespace
}  // namespace xla_lite::testing
