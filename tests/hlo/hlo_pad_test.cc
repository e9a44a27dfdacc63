// pad through parser, verifier and evaluator: the padding attribute's
// syntax and ranges, XLA's shape inference (negative edges, interior
// padding) and results computed by hand.

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/hlo/evaluator_test_util.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/hlo/hlo_verifier.h"

namespace xla_lite {
namespace {

absl::Status Verify(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return VerifyHloModule(**module);
}

TEST(HloPadTest, PaddingRoundTripsThroughText) {
  std::unique_ptr<HloModule> module = ParseOrDie(EntryModule(
      {"f32[2,3]", "f32[]"}, "f32[3,5] pad(p0, p1), padding=1_0x-1_-1_2"));
  ASSERT_NE(module, nullptr);
  const HloInstruction* pad = FindInstruction(*module, "r");
  ASSERT_EQ(pad->padding().size(), 2);
  EXPECT_EQ(pad->padding()[0].edge_low, 1);
  EXPECT_EQ(pad->padding()[0].edge_high, 0);
  EXPECT_EQ(pad->padding()[0].interior, 0);
  EXPECT_EQ(pad->padding()[1].edge_low, -1);
  EXPECT_EQ(pad->padding()[1].edge_high, -1);
  EXPECT_EQ(pad->padding()[1].interior, 2);
  EXPECT_TRUE(absl::StrContains(pad->ToString(), "padding=1_0x-1_-1_2"))
      << pad->ToString();
  EXPECT_TRUE(VerifyHloModule(*module).ok());
}

TEST(HloPadTest, MalformedPaddingIsAParseError) {
  for (const char* padding :
       {"1", "1_2_3_4", "1_x2_2", "a_b", "1_2x", "1_99999999999999999999"}) {
    SCOPED_TRACE(padding);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
        EntryModule({"f32[2,3]", "f32[]"},
                    absl::StrCat("f32[2,3] pad(p0, p1), padding=", padding)));
    EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument)
        << module.status();
  }
  absl::StatusOr<std::unique_ptr<HloModule>> missing = ParseHloModule(
      EntryModule({"f32[2]", "f32[]"}, "f32[2] pad(p0, p1)"));
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "padding="))
      << missing.status();
  absl::StatusOr<std::unique_ptr<HloModule>> huge = ParseHloModule(
      EntryModule({"f32[2]", "f32[]"}, "f32[2] pad(p0, p1), padding=0_2000000000000"));
  EXPECT_TRUE(absl::StrContains(huge.status().message(), "outside"))
      << huge.status();
}

TEST(HloPadTest, VerifierInfersXlaShapes) {
  // 5 + 1 + 2 + 4 * 1 = 12; 3 - 1 - 1 = 1.
  EXPECT_TRUE(Verify(EntryModule({"f32[5,3]", "f32[]"},
                                  "f32[12,1] pad(p0, p1), padding=1_2_1x-1_-1"))
                  .ok());
  absl::Status wrong = Verify(EntryModule(
      {"f32[5,3]", "f32[]"}, "f32[12,3] pad(p0, p1), padding=1_2_1x-1_-1"));
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument) << wrong;
  absl::Status interior = Verify(
      EntryModule({"f32[5]", "f32[]"}, "f32[1] pad(p0, p1), padding=0_0_-1"));
  EXPECT_TRUE(absl::StrContains(interior.message(), "interior padding >= 0"))
      << interior;
  absl::Status negative = Verify(
      EntryModule({"f32[3]", "f32[]"}, "f32[0] pad(p0, p1), padding=-2_-2"));
  EXPECT_TRUE(absl::StrContains(negative.message(), "negative size -1"))
      << negative;
  absl::Status rank = Verify(
      EntryModule({"f32[3,2]", "f32[]"}, "f32[5,2] pad(p0, p1), padding=1_1"));
  EXPECT_TRUE(absl::StrContains(rank.message(), "padding for 2 dimensions"))
      << rank;
  absl::Status value = Verify(
      EntryModule({"f32[3]", "s32[]"}, "f32[5] pad(p0, p1), padding=1_1"));
  EXPECT_EQ(value.code(), absl::StatusCode::kInvalidArgument) << value;
}

TEST(HloPadTest, EvaluatesEdgesAndInterior) {
  // [1 2 3] with 2 before, 1 after, 1 between: 9 9 1 9 2 9 3 9.
  EXPECT_THAT(EvalRoot({"f32[3]", "f32[]"},
                       "f32[8] pad(p0, p1), padding=2_1_1",
                       {F32({3}, {1, 2, 3}), F32({}, {9})}),
              Is({9, 9, 1, 9, 2, 9, 3, 9}));
  // Negative edges cut: [1 0 2 0 3] without its first and last two.
  EXPECT_THAT(EvalRoot({"f32[3]", "f32[]"},
                       "f32[2] pad(p0, p1), padding=-1_-2_1",
                       {F32({3}, {1, 2, 3}), F32({}, {0})}),
              Is({0, 2}));
  // Two dimensions: a row of -1 on top, a column cut on the left.
  EXPECT_THAT(EvalRoot({"s32[2,3]", "s32[]"},
                       "s32[3,2] pad(p0, p1), padding=1_0x-1_0",
                       {S32({2, 3}, {1, 2, 3, 4, 5, 6}), S32({}, {-1})}),
              Is({-1, -1, 2, 3, 5, 6}));
}

}  // namespace
}  // namespace xla_lite
