#ifndef XLA_LITE_SHAPE_H_
#define XLA_LITE_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla_lite/primitive_util.h"

namespace xla_lite {

// The shape of a value: a dense array with a layout, or a tuple of shapes.
// The layout lists dimensions from most minor to most major, as HLO text
// writes it ({1,0} is row-major for rank 2).
//
// As in XLA, the HLO IR and the runtime describe values with this one
// class, which therefore lives below both: the runtime's parameters,
// results and gemm operands are array shapes in the default (row-major)
// layout, and the runtime needs nothing from the IR to say so.
class Shape {
 public:
  // Readers of outside input (HLO text, .npy) refuse more dimensions than
  // this: code that walks dimensions may recurse once per dimension.
  static constexpr int64_t kMaxRank = 64;

  // f32[] with the default layout.
  Shape() = default;
  // An array with the default (row-major) layout; Array() says the same.
  Shape(PrimitiveType type, std::vector<int64_t> dimensions);
  static Shape Array(PrimitiveType type, std::vector<int64_t> dimensions);
  static Shape Array(PrimitiveType type, std::vector<int64_t> dimensions,
                     std::vector<int64_t> minor_to_major);
  static Shape Tuple(std::vector<Shape> elements);

  bool IsTuple() const { return is_tuple_; }
  bool IsArray() const { return !is_tuple_; }

  // Arrays only.
  PrimitiveType element_type() const { return element_type_; }
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_.at(i); }
  int64_t rank() const { return dimensions_.size(); }
  const std::vector<int64_t>& minor_to_major() const { return minor_to_major_; }
  bool HasDefaultLayout() const;
  void SetDefaultLayout();
  void set_element_type(PrimitiveType type) { element_type_ = type; }
  // Unchecked: for shapes that CheckedByteSize accepted (every shape the
  // parser and the .npy reader return).
  int64_t ElementCount() const;
  int64_t ByteSize() const;  // Arrays: elements * width. Tuples: 0.
  // ByteSize without overflow: INVALID_ARGUMENT when a size passes
  // base::kMaxArrayBytes (for tuples, when an element's does). Tuples: 0.
  absl::StatusOr<int64_t> CheckedByteSize() const;

  // Tuples only.
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_.at(i); }
  int64_t tuple_shapes_size() const { return tuple_shapes_.size(); }

  // "f32[2,3]", "(f32[2], s32[])"; with the layout: "f32[2,3]{1,0}".
  std::string ToString(bool print_layout = false) const;

  // Same element types and dimensions, layouts ignored.
  bool Compatible(const Shape& other) const;
  // Compatible and the same layouts.
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  bool is_tuple_ = false;
  PrimitiveType element_type_ = PrimitiveType::F32;
  std::vector<int64_t> dimensions_;
  std::vector<int64_t> minor_to_major_;
  std::vector<Shape> tuple_shapes_;
};

}  // namespace xla_lite

#endif  // XLA_LITE_SHAPE_H_
