// Sizes from outside (HLO shapes, parameter numbers, .npy headers) end in a
// clear error before anything is allocated or sliced: no CHECK, no
// std::length_error, no product that wraps to a small number.

#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/array_size.h"
#include "base/host_memory.h"
#include "gtest/gtest.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/hlo/npy.h"
#include "xla_lite/shape.h"

namespace xla_lite {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

TEST(CheckedArrayBytesTest, ExactBelowTheLimit) {
  EXPECT_EQ(*base::CheckedArrayBytes({2, 3}, 4, "x"), 24);
  EXPECT_EQ(*base::CheckedArrayBytes({}, 8, "x"), 8);
  EXPECT_EQ(*base::CheckedArrayBytes({int64_t{1} << 46}, 4, "x"),
            base::kMaxArrayBytes);
}

TEST(CheckedArrayBytesTest, EmptyArraysObeyTheLimitInTheirOtherDimensions) {
  EXPECT_EQ(*base::CheckedArrayBytes({int64_t{1} << 40, 0}, 4, "x"), 0);
  EXPECT_EQ(*base::CheckedArrayBytes({0, 0, 7}, 4, "x"), 0);
  // Element counts and strides multiply every dimension in turn: the
  // product of the others must fit before the zero is reached (a fuzzed
  // .npy header of shape (922, 37209223372036857, 0) overflowed there).
  EXPECT_FALSE(base::CheckedArrayBytes({kInt64Max, kInt64Max, 0}, 4, "x").ok());
  EXPECT_FALSE(
      base::CheckedArrayBytes({922, 37209223372036857, 0}, 4, "x").ok());
}

TEST(CheckedArrayBytesTest, OverflowAndLimitAreErrors) {
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{kInt64Max},
                                         {int64_t{1} << 61},  // * 4 wraps
                                         {4294967296, 4294967296},
                                         {65536, 65536, 65536, 65536},
                                         {(int64_t{1} << 46) + 1}}) {
    absl::StatusOr<int64_t> bytes = base::CheckedArrayBytes(dims, 4, "arr");
    ASSERT_FALSE(bytes.ok()) << dims.size();
    EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(bytes.status().message(), "arr: more than"))
        << bytes.status();
  }
  EXPECT_FALSE(base::CheckedArrayBytes({-1}, 4, "x").ok());
}

TEST(CheckedArithmeticTest, ReportsOverflow) {
  EXPECT_EQ(*base::CheckedMultiply(3, 5), 15);
  EXPECT_FALSE(base::CheckedMultiply(kInt64Max, 2).has_value());
  EXPECT_EQ(*base::CheckedAdd(3, 5), 8);
  EXPECT_FALSE(base::CheckedAdd(kInt64Max, 1).has_value());
}

TEST(ShapeSizeTest, CheckedByteSizeOfArraysAndTuples) {
  EXPECT_EQ(*Shape::Array(PrimitiveType::F32, {2, 3}).CheckedByteSize(), 24);
  Shape big = Shape::Array(PrimitiveType::F32, {65536, 65536, 65536, 65536});
  EXPECT_FALSE(big.CheckedByteSize().ok());
  EXPECT_FALSE(Shape::Tuple({Shape::Array(PrimitiveType::F32, {2}), big})
                   .CheckedByteSize()
                   .ok());
}

std::string OneParameter(const std::string& shape) {
  return absl::StrCat("HloModule m\nENTRY e {\n  p = ", shape,
                      " parameter(0)\n  ROOT n = ", shape, " negate(p)\n}\n");
}

void ExpectParseError(const std::string& text, const std::string& message) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "t.hlo");
  ASSERT_FALSE(module.ok()) << text.substr(0, 200);
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(module.status().message(), message))
      << module.status();
}

TEST(HloSizesTest, HugeAndWrappingShapesAreParseErrorsWithPosition) {
  for (const char* shape :
       {"f32[9223372036854775807]", "f32[2305843009213693952]",
        "f32[4294967296,4294967296]", "f32[65536,65536,65536,65536]",
        "(f32[2], f32[65536,65536,65536,65536])"}) {
    ExpectParseError(OneParameter(shape), "t.hlo:3:");
    ExpectParseError(OneParameter(shape), "the largest array supported");
  }
}

TEST(HloSizesTest, ConstantLargerThanItsTextIsRefusedBeforeAllocating) {
  ExpectParseError(
      "HloModule m\nENTRY e {\n  ROOT c = f32[1000000000] constant({1})\n}\n",
      "needs 1000000000 values");
  ExpectParseError(
      "HloModule m\nENTRY e {\n  ROOT c = f32[4294967296,4294967296] "
      "constant({{1}})\n}\n",
      "the largest array supported");
}

TEST(HloSizesTest, ParameterNumberBeyondTheTextIsAnError) {
  for (const char* number : {"1000000000", "9223372036854775807"}) {
    ExpectParseError(
        absl::StrCat("HloModule m\nENTRY e {\n  ROOT p = f32[2] "
                     "parameter(",
                     number, ")\n}\n"),
        absl::StrCat("parameter number ", number, " is out of range"));
  }
  // A real module's numbers stay accepted.
  EXPECT_TRUE(ParseHloModule("HloModule m\nENTRY e {\n  a = f32[] "
                             "parameter(1)\n  b = f32[] parameter(0)\n  ROOT "
                             "c = f32[] add(a, b)\n}\n")
                  .ok());
}

std::string Npy(const std::string& shape) {
  std::string header = absl::StrCat(
      "{'descr': '<f4', 'fortran_order': False, 'shape': ", shape, ", }");
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header;
}

TEST(NpySizesTest, HugeAndWrappingHeadersAreErrors) {
  for (const char* shape :
       {"(9223372036854775807,)", "(65536, 65536, 65536, 65536)",
        "(4294967296, 4294967296)"}) {
    absl::StatusOr<Literal> literal = ParseNpy(Npy(shape), "x.npy");
    ASSERT_FALSE(literal.ok()) << shape;
    EXPECT_TRUE(absl::StrContains(literal.status().message(),
                                  "x.npy: .npy header: f32["))
        << literal.status();
  }
  // The error for a real size mismatch names both sizes.
  absl::StatusOr<Literal> short_data = ParseNpy(Npy("(3,)"), "x.npy");
  ASSERT_FALSE(short_data.ok());
  EXPECT_TRUE(absl::StrContains(short_data.status().message(),
                                "needs 12 bytes, the file has 0"));
}

TEST(NpySizesTest, TooManyDimensionsIsAnError) {
  std::string shape = "(";
  for (int i = 0; i < 100; ++i) absl::StrAppend(&shape, "1, ");
  absl::StatusOr<Literal> literal = ParseNpy(Npy(shape + ")"), "x.npy");
  ASSERT_FALSE(literal.ok());
  EXPECT_TRUE(absl::StrContains(literal.status().message(), "more than 64"));
}

TEST(HostMemoryTest, LiteralCreateRefusesPastTheLimit) {
  base::SetHostAllocationLimit(1 << 20);
  absl::StatusOr<Literal> big =
      Literal::Create(Shape::Array(PrimitiveType::F32, {1 << 20}));
  absl::StatusOr<Literal> small =
      Literal::Create(Shape::Array(PrimitiveType::F32, {1024}));
  base::SetHostAllocationLimit(0);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(big.status().message(), "f32[1048576]"));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->bytes().size(), 4096);
  // Default: the machine's memory, so 2^47 bytes is refused, not thrown.
  absl::StatusOr<Literal> huge =
      Literal::Create(Shape::Array(PrimitiveType::F32, {int64_t{1} << 45}));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace xla_lite
