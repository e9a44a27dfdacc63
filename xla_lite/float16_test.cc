// bf16 and f16 conversions against references written another way: the
// value of every bit pattern from its fields with ldexp in double, and
// rounding as "the nearest representable value, ties to the even pattern"
// found by search, over every 16-bit pattern and every kind of rounding
// case. Then the device text: the very file the host compiles.

#include "xla_lite/float16.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace xla_lite {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

float Pow2(int e) { return std::ldexp(1.0f, e); }

// The value of a binary16-like pattern with `exponent_bits` and
// `mantissa_bits`, from its fields.
double DecodeReference(uint32_t bits, int exponent_bits, int mantissa_bits) {
  const uint32_t mantissa = bits & ((1u << mantissa_bits) - 1);
  const uint32_t exponent = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1);
  const bool negative = (bits >> (mantissa_bits + exponent_bits)) & 1;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  double magnitude;
  if (exponent == (1u << exponent_bits) - 1) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa),
                           1 - bias - mantissa_bits);
  } else {
    magnitude = std::ldexp(1.0 + std::ldexp(mantissa, -mantissa_bits),
                           static_cast<int>(exponent) - bias);
  }
  return negative ? -magnitude : magnitude;
}

// Rounds to the nearest of the non-negative patterns 0..max_finite, and
// one more standing for infinity at the value the exponent range would
// give next (so values from half an ulp past the largest finite one round
// to infinity, as IEEE says); ties go to the even pattern.
class RoundingReference {
 public:
  RoundingReference(int exponent_bits, int mantissa_bits)
      : sign_bit_(1u << (exponent_bits + mantissa_bits)) {
    const uint32_t infinity = ((1u << exponent_bits) - 1) << mantissa_bits;
    for (uint32_t bits = 0; bits < infinity; ++bits) {
      values_.push_back(DecodeReference(bits, exponent_bits, mantissa_bits));
    }
    const double last = values_.back();
    const double ulp = last - values_[values_.size() - 2];
    values_.push_back(last + ulp);  // The pattern `infinity`.
  }

  uint32_t Round(float x) const {
    const uint32_t sign = std::signbit(x) ? sign_bit_ : 0;
    const double magnitude = std::fabs(static_cast<double>(x));
    if (std::isinf(x) || magnitude >= values_.back()) {
      return sign | static_cast<uint32_t>(values_.size() - 1);
    }
    auto above = std::lower_bound(values_.begin(), values_.end(), magnitude);
    uint32_t hi = above - values_.begin();
    if (values_[hi] == magnitude || hi == 0) return sign | hi;
    uint32_t lo = hi - 1;
    double below = magnitude - values_[lo], over = values_[hi] - magnitude;
    if (below < over) return sign | lo;
    if (over < below) return sign | hi;
    return sign | ((lo & 1) == 0 ? lo : hi);
  }

  // The midpoints between neighbouring patterns, and infinity's.
  std::vector<double> Midpoints() const {
    std::vector<double> midpoints;
    for (size_t i = 0; i + 1 < values_.size(); ++i) {
      midpoints.push_back((values_[i] + values_[i + 1]) / 2);
    }
    return midpoints;
  }

 private:
  uint32_t sign_bit_;
  std::vector<double> values_;
};

// f32 inputs that reach every exponent and every way a low part can round:
// each upper half with low halves 0, 1, just below, at and just above
// half, all ones, and a random one; then each midpoint of `reference`
// and its f32 neighbours, with both signs.
std::vector<float> RoundingInputs(const RoundingReference& reference) {
  std::mt19937 rng(7);
  std::vector<float> inputs;
  for (uint32_t high = 0; high < 0x10000; ++high) {
    for (uint32_t low : {0u, 1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu,
                         static_cast<uint32_t>(rng() & 0xffff)}) {
      float f = FromBits(high << 16 | low);
      if (!std::isnan(f)) inputs.push_back(f);
    }
  }
  for (double midpoint : reference.Midpoints()) {
    float f = static_cast<float>(midpoint);
    EXPECT_EQ(static_cast<double>(f), midpoint) << "midpoints are exact in f32";
    for (float g : {f, std::nextafter(f, 0.0f), std::nextafter(f, INFINITY)}) {
      inputs.push_back(g);
      inputs.push_back(-g);
    }
  }
  return inputs;
}

TEST(Float16Test, EveryF16PatternDecodes) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double expected = DecodeReference(bits, 5, 10);
    float actual = F16ToF32(bits);
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(actual)) << std::hex << bits;
      ASSERT_EQ(std::signbit(actual), (bits & 0x8000) != 0) << std::hex << bits;
    } else {
      ASSERT_EQ(static_cast<double>(actual), expected) << std::hex << bits;
      ASSERT_EQ(std::signbit(actual), (bits & 0x8000) != 0) << std::hex << bits;
    }
  }
}

TEST(Float16Test, EveryBF16PatternDecodes) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double expected = DecodeReference(bits, 8, 7);
    float actual = BF16ToF32(bits);
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(actual)) << std::hex << bits;
    } else {
      ASSERT_EQ(static_cast<double>(actual), expected) << std::hex << bits;
    }
    ASSERT_EQ(Bits(actual), bits << 16) << std::hex << bits;
  }
}

TEST(Float16Test, F32ToF16RoundsToNearestEven) {
  RoundingReference reference(5, 10);
  std::vector<float> inputs = RoundingInputs(reference);
  EXPECT_GT(inputs.size(), 400000);
  for (float x : inputs) {
    ASSERT_EQ(F32ToF16(x), reference.Round(x))
        << x << " (0x" << std::hex << Bits(x) << ")";
  }
}

TEST(Float16Test, F32ToBF16RoundsToNearestEven) {
  RoundingReference reference(8, 7);
  std::vector<float> inputs = RoundingInputs(reference);
  for (float x : inputs) {
    ASSERT_EQ(F32ToBF16(x), reference.Round(x))
        << x << " (0x" << std::hex << Bits(x) << ")";
  }
}

TEST(Float16Test, NaNsStayQuietNaNsWithTheirSign) {
  for (uint32_t payload : {1u, 0x1fffu, 0x2000u, 0x400000u, 0x7fffffu}) {
    for (uint32_t sign : {0u, 0x80000000u}) {
      float nan = FromBits(sign | 0x7f800000u | payload);
      ASSERT_TRUE(std::isnan(nan));
      uint16_t h = F32ToF16(nan);
      EXPECT_EQ(h, (sign >> 16) | 0x7e00) << std::hex << payload;
      uint16_t b = F32ToBF16(nan);
      EXPECT_TRUE(std::isnan(BF16ToF32(b))) << std::hex << payload;
      EXPECT_EQ(b & 0x8040, (sign >> 16) | 0x40) << "sign kept, quiet bit set";
    }
  }
}

TEST(Float16Test, KnownValues) {
  EXPECT_EQ(F32ToF16(1.0f), 0x3c00);
  EXPECT_EQ(F32ToF16(-2.0f), 0xc000);
  EXPECT_EQ(F32ToF16(65504.0f), 0x7bff);       // largest half
  EXPECT_EQ(F32ToF16(65520.0f), 0x7c00);       // rounds up to inf
  EXPECT_EQ(F32ToF16(Pow2(-24)), 0x0001);      // smallest subnormal
  EXPECT_EQ(F32ToF16(Pow2(-25)), 0x0000);      // tie goes to even 0
  EXPECT_EQ(F32ToF16(3 * Pow2(-26)), 0x0001);  // 0.75 units rounds up
  EXPECT_EQ(F32ToF16(-0.0f), 0x8000);
  EXPECT_EQ(F32ToF16(1 + Pow2(-11)), 0x3c00);  // tie to even
  EXPECT_EQ(F32ToF16(1 + 3 * Pow2(-11)), 0x3c02);
  // 0x3555: exponent 13 -> 2^-2, mantissa 341/1024.
  EXPECT_EQ(F16ToF32(0x3555), 0.25f * (1 + 341.0f / 1024));
  EXPECT_EQ(F16ToF32(0x0001), Pow2(-24));
  EXPECT_TRUE(std::isinf(F16ToF32(0xfc00)));

  EXPECT_EQ(F32ToBF16(1.0f), 0x3f80);
  EXPECT_EQ(F32ToBF16(1 + Pow2(-8)), 0x3f80);      // tie to even
  EXPECT_EQ(F32ToBF16(1 + 3 * Pow2(-8)), 0x3f82);  // tie to even, up
  EXPECT_EQ(F32ToBF16(1 + Pow2(-8) + Pow2(-20)), 0x3f81);
  EXPECT_EQ(F32ToBF16(FromBits(0x7f7fffffu)), 0x7f80);  // max f32 -> inf
}

TEST(Float16Test, EveryPatternSurvivesTheTripThroughF32) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float half = F16ToF32(bits);
    if (!std::isnan(half)) ASSERT_EQ(F32ToF16(half), bits) << std::hex << bits;
    float bf = BF16ToF32(bits);
    if (!std::isnan(bf)) ASSERT_EQ(F32ToBF16(bf), bits) << std::hex << bits;
  }
}

TEST(Float16Test, RoundingIsTheTripThroughTheStorageType) {
  std::mt19937 rng(11);
  for (int i = 0; i < 100000; ++i) {
    float x = FromBits(rng());
    if (std::isnan(x)) continue;
    ASSERT_EQ(Bits(RoundToBF16(x)), Bits(BF16ToF32(F32ToBF16(x))));
    ASSERT_EQ(Bits(RoundToF16(x)), Bits(F16ToF32(F32ToF16(x))));
  }
}

std::string ReadSourceFile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  std::string full = srcdir != nullptr && workspace != nullptr
                         ? absl::StrCat(srcdir, "/", workspace, "/", path)
                         : path;
  std::ifstream file(full);
  EXPECT_TRUE(file.good()) << "cannot read " << full;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The device has no other definition to drift from: its text is the file
// compiled into this test.
TEST(Float16Test, DeviceSourceIsTheHostSource) {
  std::string shared = ReadSourceFile("xla_lite/float16_conversions.inc");
  ASSERT_GT(shared.size(), 1000);
  std::string device = kFloat16DeviceSource;
  EXPECT_TRUE(absl::StrContains(device, shared));
  EXPECT_TRUE(absl::StartsWith(
      absl::StripLeadingAsciiWhitespace(device),
      ReadSourceFile("xla_lite/float16_device_prologue.inc")));
  EXPECT_TRUE(absl::StrContains(device, "__float_as_uint"));
  EXPECT_FALSE(absl::StrContains(device, "#include"));
}

}  // namespace
}  // namespace xla_lite
