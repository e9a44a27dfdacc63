// Malformed HLO text: nesting and ranks beyond the limits, unterminated
// comments and strings, and errors that echo only a short, printable
// excerpt of the offending text.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla_lite/hlo/hlo_lexer.h"
#include "xla_lite/hlo/hlo_parser.h"

namespace xla_lite {
namespace {

absl::Status ParseError(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "t.hlo");
  if (module.ok()) return absl::InternalError("parsed");
  return module.status();
}

TEST(HloTextTest, DeeplyNestedTupleShapeIsAnErrorNotAStackOverflow) {
  const std::string shape =
      std::string(50000, '(') + "f32[]" + std::string(50000, ')');
  absl::Status status = ParseError(absl::StrCat(
      "HloModule m\nENTRY e {\n  ROOT p = ", shape, " parameter(0)\n}\n"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(status.message(), "nest more than 64 deep"))
      << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "t.hlo:3:")) << status;
}

TEST(HloTextTest, ModerateTupleNestingStillParses) {
  const std::string shape =
      std::string(10, '(') + "f32[]" + std::string(10, ')');
  EXPECT_TRUE(ParseHloModule(absl::StrCat("HloModule m\nENTRY e {\n  ROOT p = ",
                                          shape, " parameter(0)\n}\n"))
                  .ok());
}

TEST(HloTextTest, RankBeyondTheLimitIsAnError) {
  std::string dims = "1";
  for (int i = 0; i < 100000; ++i) absl::StrAppend(&dims, ",1");
  absl::Status status = ParseError(absl::StrCat(
      "HloModule m\nENTRY e {\n  ROOT c = f32[", dims, "] constant(0)\n}\n"));
  EXPECT_TRUE(absl::StrContains(status.message(), "more than 64 dimensions"))
      << status;
}

TEST(HloTextTest, UnterminatedCommentSaysSo) {
  absl::Status status = ParseError(
      "HloModule m\nENTRY e {\n /* here\n  ROOT c = f32[] constant(1)\n}\n");
  EXPECT_EQ(status.message(),
            "t.hlo:3:2: unterminated comment: '/*' without '*/'");
}

TEST(HloTextTest, UnterminatedStringSaysSoWithoutEchoingIt) {
  absl::Status status = ParseError(
      absl::StrCat("HloModule m, x=\"", std::string(7000, 'a'),
                   "\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n"));
  EXPECT_EQ(status.message(),
            "t.hlo:1:16: unterminated string: '\"' without a closing '\"'");
}

TEST(HloTextTest, ErrorsEchoAShortEscapedExcerpt) {
  // A 7 KB name where an opcode belongs, and a NUL where ')' belongs.
  absl::Status long_name =
      ParseError(absl::StrCat("HloModule m\nENTRY e {\n  ROOT c = f32[] ",
                              std::string(7000, 'x'), "(1)\n}\n"));
  EXPECT_LT(long_name.message().size(), 200) << long_name;
  EXPECT_TRUE(absl::StrContains(long_name.message(), "...")) << long_name;
  constexpr char kNul[] =
      "HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1\0)\n}\n";
  absl::Status nul = ParseError(std::string(kNul, sizeof(kNul) - 1));
  EXPECT_TRUE(absl::StrContains(nul.message(), "got '\\000'")) << nul;
  EXPECT_EQ(nul.message().find('\0'), std::string::npos);
}

TEST(HloTextTest, ExcerptLimitsAndEscapes) {
  EXPECT_EQ(Excerpt("abc"), "abc");
  EXPECT_EQ(Excerpt(std::string("a\0b", 3)), "a\\000b");
  EXPECT_EQ(Excerpt(std::string(100, 'z')),
            std::string(kMaxExcerpt, 'z') + "...");
}

}  // namespace
}  // namespace xla_lite
