#include "xla_lite/hlo/literal.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "glog/logging.h"

namespace xla_lite {
namespace {

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float BitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

bool IsIntegral(PrimitiveType type) {
  return type == PrimitiveType::kPred || type == PrimitiveType::kU8 ||
         type == PrimitiveType::kS32 || type == PrimitiveType::kS64;
}

// A float-to-integer cast that is defined for every input: NaN gives 0 and
// out-of-range values saturate, so evaluating odd programs never hits UB.
template <typename T>
T SaturatingCast(double value) {
  if (std::isnan(value)) return 0;
  if (value <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (value >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(value);
}

// The shortest decimal text that reads back as the same element: nine
// significant digits always do for a float (and so for f16 and bf16).
std::string FormatFloat(double value, PrimitiveType type) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  Literal original(Shape::Array(type, {}));
  original.SetFromDouble(0, value);
  Literal reread(Shape::Array(type, {}));
  for (int precision = 1; precision < 9; ++precision) {
    std::string text = absl::StrFormat("%.*g", precision, value);
    reread.SetFromDouble(0, std::strtod(text.c_str(), nullptr));
    if (reread.bytes() == original.bytes()) return text;
  }
  return absl::StrFormat("%.9g", value);
}

}  // namespace

Literal::Literal(Shape shape) : shape_(std::move(shape)) {
  shape_.SetDefaultLayout();
  bytes_.assign(shape_.ByteSize(), 0);
}

Literal::Literal(Shape shape, std::vector<uint8_t> bytes)
    : shape_(std::move(shape)), bytes_(std::move(bytes)) {
  shape_.SetDefaultLayout();
  CHECK_EQ(bytes_.size(), shape_.ByteSize())
      << "literal bytes do not match " << shape_.ToString();
}

Literal Literal::FromDoubles(Shape shape, absl::Span<const double> values) {
  Literal literal(std::move(shape));
  CHECK_EQ(values.size(), literal.element_count());
  for (size_t i = 0; i < values.size(); ++i) {
    literal.SetFromDouble(i, values[i]);
  }
  return literal;
}

double Literal::GetAsDouble(int64_t i) const {
  CHECK(i >= 0 && i < element_count()) << i << " out of " << shape_.ToString();
  switch (shape_.element_type()) {
    case PrimitiveType::kPred:
    case PrimitiveType::kU8:
      return data<uint8_t>()[i];
    case PrimitiveType::kS32:
      return data<int32_t>()[i];
    case PrimitiveType::kS64:
      return static_cast<double>(data<int64_t>()[i]);
    case PrimitiveType::kF16:
      return HalfToFloat(data<uint16_t>()[i]);
    case PrimitiveType::kBF16:
      return BF16ToFloat(data<uint16_t>()[i]);
    case PrimitiveType::kF32:
      return data<float>()[i];
  }
  return 0;
}

void Literal::SetFromDouble(int64_t i, double value) {
  CHECK(i >= 0 && i < element_count()) << i << " out of " << shape_.ToString();
  switch (shape_.element_type()) {
    case PrimitiveType::kPred:
      mutable_data<uint8_t>()[i] = value != 0 ? 1 : 0;
      return;
    case PrimitiveType::kU8:
      mutable_data<uint8_t>()[i] = SaturatingCast<uint8_t>(value);
      return;
    case PrimitiveType::kS32:
      mutable_data<int32_t>()[i] = SaturatingCast<int32_t>(value);
      return;
    case PrimitiveType::kS64:
      mutable_data<int64_t>()[i] = SaturatingCast<int64_t>(value);
      return;
    case PrimitiveType::kF16:
      mutable_data<uint16_t>()[i] = FloatToHalf(static_cast<float>(value));
      return;
    case PrimitiveType::kBF16:
      mutable_data<uint16_t>()[i] = FloatToBF16(static_cast<float>(value));
      return;
    case PrimitiveType::kF32:
      mutable_data<float>()[i] = static_cast<float>(value);
      return;
  }
}

int64_t Literal::GetAsInt64(int64_t i) const {
  CHECK(i >= 0 && i < element_count()) << i << " out of " << shape_.ToString();
  switch (shape_.element_type()) {
    case PrimitiveType::kS32:
      return data<int32_t>()[i];
    case PrimitiveType::kS64:
      return data<int64_t>()[i];
    case PrimitiveType::kPred:
    case PrimitiveType::kU8:
      return data<uint8_t>()[i];
    default:
      return SaturatingCast<int64_t>(GetAsDouble(i));
  }
}

void Literal::SetFromInt64(int64_t i, int64_t value) {
  CHECK(i >= 0 && i < element_count()) << i << " out of " << shape_.ToString();
  switch (shape_.element_type()) {
    case PrimitiveType::kPred:
      mutable_data<uint8_t>()[i] = value != 0 ? 1 : 0;
      return;
    case PrimitiveType::kU8:
      mutable_data<uint8_t>()[i] = static_cast<uint8_t>(value);
      return;
    case PrimitiveType::kS32:
      mutable_data<int32_t>()[i] = static_cast<int32_t>(value);
      return;
    case PrimitiveType::kS64:
      mutable_data<int64_t>()[i] = value;
      return;
    default:
      SetFromDouble(i, static_cast<double>(value));
  }
}

namespace {

std::string ElementToString(const Literal& literal, int64_t i) {
  PrimitiveType type = literal.shape().element_type();
  if (type == PrimitiveType::kPred) {
    return literal.GetAsInt64(i) != 0 ? "true" : "false";
  }
  if (IsIntegral(type)) return absl::StrCat(literal.GetAsInt64(i));
  return FormatFloat(literal.GetAsDouble(i), type);
}

// Appends the elements of dimension `dim` onwards starting at element
// `*next`, stopping (with "...") once `*budget` elements were printed.
void AppendNested(const Literal& literal, int64_t dim, int64_t* next,
                  int64_t* budget, std::string* out) {
  const Shape& shape = literal.shape();
  if (dim == shape.rank()) {
    if (*budget == 0) return;
    absl::StrAppend(out, ElementToString(literal, (*next)++));
    --*budget;
    return;
  }
  absl::StrAppend(out, "{");
  for (int64_t i = 0; i < shape.dimensions(dim); ++i) {
    if (*budget == 0) {
      absl::StrAppend(out, "...");
      break;
    }
    if (i > 0) absl::StrAppend(out, ", ");
    AppendNested(literal, dim + 1, next, budget, out);
  }
  absl::StrAppend(out, "}");
}

}  // namespace

std::string Literal::ValuesToString() const {
  std::string out;
  int64_t next = 0;
  int64_t budget = std::numeric_limits<int64_t>::max();
  AppendNested(*this, 0, &next, &budget, &out);
  return out;
}

std::string Literal::ToString() const {
  std::string out = absl::StrCat(shape_.ToString(), " ");
  int64_t next = 0;
  int64_t budget = 64;
  AppendNested(*this, 0, &next, &budget, &out);
  return out;
}

float HalfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) {
    return BitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  }
  return BitsToFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t FloatToHalf(float value) {
  uint32_t x = FloatBits(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) {  // inf, or NaN kept quiet
    return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);
  }
  int exponent = static_cast<int>(x >> 23) - 127;
  uint32_t mantissa = x & 0x7fffff;
  if (exponent > 15) return sign | 0x7c00;
  if (exponent >= -14) {
    uint32_t half = (static_cast<uint32_t>(exponent + 15) << 10) |
                    (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fff;
    // A carry out of the mantissa correctly bumps the exponent (to inf at
    // the top of the range).
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
    return sign | static_cast<uint16_t>(half);
  }
  if (exponent < -25) return sign;
  // Subnormal: count units of 2^-24.
  uint32_t significand = mantissa | 0x800000;
  int shift = -(exponent + 1);
  uint32_t half = significand >> shift;
  uint32_t rest = significand & ((1u << shift) - 1);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1))) ++half;
  return sign | static_cast<uint16_t>(half);
}

float BF16ToFloat(uint16_t bits) {
  return BitsToFloat(static_cast<uint32_t>(bits) << 16);
}

uint16_t FloatToBF16(float value) {
  uint32_t x = FloatBits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((x >> 16) | 0x0040);  // quiet NaN
  }
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

}  // namespace xla_lite
