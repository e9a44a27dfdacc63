#include "xla_lite/hlo/literal.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/host_memory.h"
#include "glog/logging.h"
#include "xla_lite/float16.h"

namespace xla_lite {
namespace {

// Calls f(T()) with the C++ type elements of the PRED or integral `type`
// are stored as.
template <typename F>
auto WithStorageType(PrimitiveType type, F&& f) {
  switch (type) {
    case PrimitiveType::S8:
      return f(int8_t());
    case PrimitiveType::S16:
      return f(int16_t());
    case PrimitiveType::S32:
      return f(int32_t());
    case PrimitiveType::S64:
      return f(int64_t());
    case PrimitiveType::U16:
      return f(uint16_t());
    case PrimitiveType::U32:
      return f(uint32_t());
    case PrimitiveType::U64:
      return f(uint64_t());
    case PrimitiveType::PRED:
    case PrimitiveType::U8:
      return f(uint8_t());
    default:
      LOG(FATAL) << "not an integral type: "
                 << primitive_util::LowercasePrimitiveTypeName(type);
  }
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
// significant digits always do for f32 (and so for f16 and bf16),
// seventeen for f64.
std::string FormatFloat(double value, PrimitiveType type) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  Literal original(Shape::Array(type, {}));
  original.SetFromDouble(0, value);
  Literal reread(Shape::Array(type, {}));
  for (int precision = 1; precision < 17; ++precision) {
    std::string text = absl::StrFormat("%.*g", precision, value);
    reread.SetFromDouble(0, std::strtod(text.c_str(), nullptr));
    if (reread.bytes() == original.bytes()) return text;
  }
  return absl::StrFormat("%.17g", value);
}

}  // namespace

Literal::Literal(Shape shape) : shape_(std::move(shape)) {
  shape_.SetDefaultLayout();
  bytes_.assign(shape_.ByteSize(), 0);
}

absl::StatusOr<Literal> Literal::Create(Shape shape) {
  absl::StatusOr<int64_t> bytes = shape.CheckedByteSize();
  if (!bytes.ok()) return bytes.status();
  absl::Status memory =
      base::CheckHostAllocation(*bytes,
                                absl::StrCat("an array of ", shape.ToString()));
  if (!memory.ok()) return memory;
  return Literal(std::move(shape));
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
    case PrimitiveType::F16:
      return F16ToF32(data<uint16_t>()[i]);
    case PrimitiveType::BF16:
      return BF16ToF32(data<uint16_t>()[i]);
    case PrimitiveType::F32:
      return data<float>()[i];
    case PrimitiveType::F64:
      return data<double>()[i];
    default:
      return WithStorageType(shape_.element_type(), [&](auto zero) {
        return static_cast<double>(data<decltype(zero)>()[i]);
      });
  }
}

void Literal::SetFromDouble(int64_t i, double value) {
  CHECK(i >= 0 && i < element_count()) << i << " out of " << shape_.ToString();
  switch (shape_.element_type()) {
    case PrimitiveType::PRED:
      mutable_data<uint8_t>()[i] = value != 0 ? 1 : 0;
      return;
    case PrimitiveType::F16:
      mutable_data<uint16_t>()[i] = F32ToF16(static_cast<float>(value));
      return;
    case PrimitiveType::BF16:
      mutable_data<uint16_t>()[i] = F32ToBF16(static_cast<float>(value));
      return;
    case PrimitiveType::F32:
      mutable_data<float>()[i] = static_cast<float>(value);
      return;
    case PrimitiveType::F64:
      mutable_data<double>()[i] = value;
      return;
    default:
      WithStorageType(shape_.element_type(), [&](auto zero) {
        using T = decltype(zero);
        mutable_data<T>()[i] = SaturatingCast<T>(value);
        return 0;
      });
  }
}

int64_t Literal::GetAsInt64(int64_t i) const {
  CHECK(i >= 0 && i < element_count()) << i << " out of " << shape_.ToString();
  const PrimitiveType type = shape_.element_type();
  if (primitive_util::IsFloatingPointType(type)) {
    return SaturatingCast<int64_t>(GetAsDouble(i));
  }
  return WithStorageType(type, [&](auto zero) {
    return static_cast<int64_t>(data<decltype(zero)>()[i]);
  });
}

void Literal::SetFromInt64(int64_t i, int64_t value) {
  CHECK(i >= 0 && i < element_count()) << i << " out of " << shape_.ToString();
  const PrimitiveType type = shape_.element_type();
  if (type == PrimitiveType::PRED) {
    mutable_data<uint8_t>()[i] = value != 0 ? 1 : 0;
  } else if (primitive_util::IsFloatingPointType(type)) {
    SetFromDouble(i, static_cast<double>(value));
  } else {
    WithStorageType(type, [&](auto zero) {
      using T = decltype(zero);
      mutable_data<T>()[i] = static_cast<T>(value);
      return 0;
    });
  }
}

namespace {

std::string ElementToString(const Literal& literal, int64_t i) {
  PrimitiveType type = literal.shape().element_type();
  if (type == PrimitiveType::PRED) {
    return literal.GetAsInt64(i) != 0 ? "true" : "false";
  }
  if (type == PrimitiveType::U64) {
    return absl::StrCat(static_cast<uint64_t>(literal.GetAsInt64(i)));
  }
  if (primitive_util::IsIntegralType(type)) {
    return absl::StrCat(literal.GetAsInt64(i));
  }
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

}  // namespace xla_lite
