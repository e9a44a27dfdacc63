#ifndef XLA_LITE_HLO_LITERAL_H_
#define XLA_LITE_HLO_LITERAL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_lite/shape.h"

namespace xla_lite {

// A host array: an array shape (default layout, row-major) and its bytes.
// Constants in HLO, arguments and results read from or written to .npy files.
// Elements of every PrimitiveType: f16 and bf16 stored as their 16-bit
// patterns (float16.h converts them), pred as one byte (0 or 1).
class Literal {
 public:
  Literal() = default;
  // Zero-filled. The shape's size must be valid (Shape::CheckedByteSize);
  // for a shape from outside, Create checks it and the memory first.
  explicit Literal(Shape shape);
  // Zero-filled; INVALID_ARGUMENT for a size past base::kMaxArrayBytes,
  // RESOURCE_EXHAUSTED past base::HostAllocationLimit().
  static absl::StatusOr<Literal> Create(Shape shape);
  Literal(Shape shape, std::vector<uint8_t> bytes);

  template <typename T>
  static Literal CreateR0(PrimitiveType type, T value);
  // Elements converted from double to the shape's element type.
  static Literal FromDoubles(Shape shape, absl::Span<const double> values);

  const Shape& shape() const { return shape_; }
  int64_t element_count() const { return shape_.ElementCount(); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t>& mutable_bytes() { return bytes_; }

  template <typename T>
  absl::Span<const T> data() const {
    return absl::MakeConstSpan(reinterpret_cast<const T*>(bytes_.data()),
                               bytes_.size() / sizeof(T));
  }
  template <typename T>
  absl::Span<T> mutable_data() {
    return absl::MakeSpan(reinterpret_cast<T*>(bytes_.data()),
                          bytes_.size() / sizeof(T));
  }

  // Element i (row-major) converted to or from double, whatever the type.
  // Into integer types the value truncates toward zero and saturates (NaN
  // gives 0), so no conversion is undefined.
  double GetAsDouble(int64_t i) const;
  void SetFromDouble(int64_t i, double value);
  // Integer element types, exactly (s64 beyond 2^53 included; u64 beyond
  // int64's range as the same 64 bits); other types go through double.
  // Values out of the type's range wrap as a C++ cast.
  int64_t GetAsInt64(int64_t i) const;
  void SetFromInt64(int64_t i, int64_t value);

  // Every element, exactly, as HLO constant text: "1.5" for a scalar,
  // "{{1, 2}, {3, 4}}" for an array. Never elided; parses back to the
  // same bits (NaN payloads aside).
  std::string ValuesToString() const;

  // "f32[2] {1, 2}"; long arrays are elided.
  std::string ToString() const;

 private:
  Shape shape_;
  std::vector<uint8_t> bytes_;
};

template <typename T>
Literal Literal::CreateR0(PrimitiveType type, T value) {
  Literal literal(Shape::Array(type, {}));
  literal.SetFromDouble(0, static_cast<double>(value));
  return literal;
}

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_LITERAL_H_
