// What the compiler refuses, and how it says so: UNIMPLEMENTED naming the
// op and the instruction, before anything runs.

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"

namespace xla_lite::testing {
namespace {

using UnsupportedTest = CompilerTest;

void ExpectRefused(const absl::Status& status, absl::StatusCode code,
                   const std::string& instruction, const std::string& what) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), instruction)) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), what)) << status;
}

TEST_P(UnsupportedTest, UnsupportedOpNamesOpAndInstruction) {
  auto executable = Compile(R"(
HloModule concat

ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[2,5] parameter(1)
  ROOT joined = f32[2,8] concatenate(a, b), dimensions={1}
})");
  ExpectRefused(executable.status(), absl::StatusCode::kUnimplemented,
                "joined", "concatenate");
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

INSTANTIATE_FOR_ALL_PLATFORMS(UnsupportedTest);

}  // namespace
}  // namespace xla_lite::testing
