#ifndef XLA_LITE_RUNTIME_SHAPE_H_
#define XLA_LITE_RUNTIME_SHAPE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xla_lite::gpu {

// Element types the runtime moves around. The HLO compiler's Shape converts
// to this one; the runtime only needs sizes and names.
enum class PrimitiveType { kPred, kU8, kS32, kS64, kF16, kBF16, kF32 };

int64_t ByteWidth(PrimitiveType type);
// The HLO spelling: "pred", "u8", "s32", "s64", "f16", "bf16", "f32".
const char* PrimitiveTypeName(PrimitiveType type);

// A dense array shape with the default (row-major) layout: what a parameter,
// an output or a gemm operand looks like in memory.
class Shape {
 public:
  Shape() = default;
  Shape(PrimitiveType element_type, std::vector<int64_t> dimensions)
      : element_type_(element_type), dimensions_(std::move(dimensions)) {}

  PrimitiveType element_type() const { return element_type_; }
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t rank() const { return dimensions_.size(); }
  int64_t dimensions(int64_t i) const { return dimensions_.at(i); }

  int64_t ElementCount() const;
  int64_t ByteSize() const { return ElementCount() * ByteWidth(element_type_); }
  // "f32[16,8]", as HLO text writes it.
  std::string ToString() const;

  bool operator==(const Shape& other) const {
    return element_type_ == other.element_type_ &&
           dimensions_ == other.dimensions_;
  }
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  PrimitiveType element_type_ = PrimitiveType::kF32;
  std::vector<int64_t> dimensions_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_SHAPE_H_
