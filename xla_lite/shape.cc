#include "xla_lite/shape.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/array_size.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"

namespace xla_lite {
namespace {

std::vector<int64_t> DefaultMinorToMajor(int64_t rank) {
  std::vector<int64_t> layout(rank);
  for (int64_t i = 0; i < rank; ++i) layout[i] = rank - 1 - i;
  return layout;
}

}  // namespace

Shape::Shape(PrimitiveType type, std::vector<int64_t> dimensions)
    : element_type_(type),
      dimensions_(std::move(dimensions)),
      minor_to_major_(DefaultMinorToMajor(dimensions_.size())) {}

Shape Shape::Array(PrimitiveType type, std::vector<int64_t> dimensions) {
  return Shape(type, std::move(dimensions));
}

Shape Shape::Array(PrimitiveType type, std::vector<int64_t> dimensions,
                   std::vector<int64_t> minor_to_major) {
  Shape shape;
  shape.element_type_ = type;
  shape.dimensions_ = std::move(dimensions);
  shape.minor_to_major_ = std::move(minor_to_major);
  return shape;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape shape;
  shape.is_tuple_ = true;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

bool Shape::HasDefaultLayout() const {
  if (is_tuple_) {
    for (const Shape& element : tuple_shapes_) {
      if (!element.HasDefaultLayout()) return false;
    }
    return true;
  }
  return minor_to_major_ == DefaultMinorToMajor(rank());
}

void Shape::SetDefaultLayout() {
  if (is_tuple_) {
    for (Shape& element : tuple_shapes_) element.SetDefaultLayout();
    return;
  }
  minor_to_major_ = DefaultMinorToMajor(rank());
}

int64_t Shape::ElementCount() const {
  CHECK(!is_tuple_) << "ElementCount of tuple shape " << ToString();
  int64_t count = 1;
  for (int64_t d : dimensions_) count *= d;
  return count;
}

int64_t Shape::ByteSize() const {
  if (is_tuple_) return 0;
  return ElementCount() * primitive_util::ByteWidth(element_type_);
}

absl::StatusOr<int64_t> Shape::CheckedByteSize() const {
  if (is_tuple_) {
    for (const Shape& element : tuple_shapes_) {
      absl::StatusOr<int64_t> size = element.CheckedByteSize();
      if (!size.ok()) return size.status();
    }
    return 0;
  }
  return base::CheckedArrayBytes(
      dimensions_, primitive_util::ByteWidth(element_type_), ToString());
}

std::string Shape::ToString(bool print_layout) const {
  if (is_tuple_) {
    return absl::StrCat(
        "(",
        absl::StrJoin(tuple_shapes_, ", ",
                      [print_layout](std::string* out, const Shape& s) {
                        absl::StrAppend(out, s.ToString(print_layout));
                      }),
        ")");
  }
  std::string text =
      absl::StrCat(primitive_util::LowercasePrimitiveTypeName(element_type_),
                   "[", absl::StrJoin(dimensions_, ","), "]");
  // Scalars print no layout, as XLA writes them.
  if (print_layout && rank() > 0) {
    absl::StrAppend(&text, "{", absl::StrJoin(minor_to_major_, ","), "}");
  }
  return text;
}

bool Shape::Compatible(const Shape& other) const {
  if (is_tuple_ != other.is_tuple_) return false;
  if (is_tuple_) {
    if (tuple_shapes_.size() != other.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (!tuple_shapes_[i].Compatible(other.tuple_shapes_[i])) return false;
    }
    return true;
  }
  return element_type_ == other.element_type_ &&
         dimensions_ == other.dimensions_;
}

bool Shape::operator==(const Shape& other) const {
  if (!Compatible(other)) return false;
  if (is_tuple_) {
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (tuple_shapes_[i] != other.tuple_shapes_[i]) return false;
    }
    return true;
  }
  return minor_to_major_ == other.minor_to_major_;
}

}  // namespace xla_lite
