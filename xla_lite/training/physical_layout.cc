#include "xla_lite/training/physical_layout.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/host_memory.h"
#include "base/status_macros.h"

namespace xla_lite {
namespace {

// Logical dimensions from most major to most minor in `layout`.
std::vector<int64_t> MajorToMinor(const Shape& layout) {
  const std::vector<int64_t>& m2m = layout.minor_to_major();
  if (m2m.size() != layout.rank()) {
    std::vector<int64_t> order;
    for (int64_t d = 0; d < layout.rank(); ++d) order.push_back(d);
    return order;
  }
  return std::vector<int64_t>(m2m.rbegin(), m2m.rend());
}

// For each logical (row-major) element, its index in the physical array.
std::vector<int64_t> PhysicalIndices(const Shape& layout) {
  const std::vector<int64_t>& dims = layout.dimensions();
  std::vector<int64_t> order = MajorToMinor(layout);
  // Stride, in the physical array, of each logical dimension.
  std::vector<int64_t> stride(dims.size());
  int64_t s = 1;
  for (int64_t j = static_cast<int64_t>(order.size()) - 1; j >= 0; --j) {
    stride[order[j]] = s;
    s *= dims[order[j]];
  }
  int64_t count = layout.ElementCount();
  std::vector<int64_t> indices(count);
  std::vector<int64_t> coordinate(dims.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t physical = 0;
    for (int64_t d = 0; d < dims.size(); ++d) physical += coordinate[d] * stride[d];
    indices[i] = physical;
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++coordinate[d] < dims[d]) break;
      coordinate[d] = 0;
    }
  }
  return indices;
}

bool IsRowMajor(const Shape& layout) {
  std::vector<int64_t> order = MajorToMinor(layout);
  for (int64_t j = 0; j < order.size(); ++j) {
    if (order[j] != j) return false;
  }
  return true;
}

// A conversion holds the array twice and an 8-byte index per element.
absl::Status CheckConversionMemory(const Shape& layout) {
  int64_t bytes = layout.ByteSize() +
                  layout.ElementCount() * static_cast<int64_t>(sizeof(int64_t));
  return base::CheckHostAllocation(
      bytes, absl::StrCat("converting ", layout.ToString(true),
                          " between layouts"));
}

}  // namespace

absl::StatusOr<std::vector<uint8_t>> ToPhysicalBytes(const Literal& literal,
                                                     const Shape& layout) {
  if (!literal.shape().Compatible(layout)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", layout.ToString(), ", got ",
                     literal.shape().ToString()));
  }
  if (IsRowMajor(layout)) return literal.bytes();
  RETURN_IF_ERROR(CheckConversionMemory(layout));
  int64_t width = primitive_util::ByteWidth(layout.element_type());
  std::vector<uint8_t> bytes(literal.bytes().size());
  std::vector<int64_t> indices = PhysicalIndices(layout);
  for (int64_t i = 0; i < indices.size(); ++i) {
    std::memcpy(&bytes[indices[i] * width], &literal.bytes()[i * width], width);
  }
  return bytes;
}

absl::StatusOr<Literal> FromPhysicalBytes(const std::vector<uint8_t>& bytes,
                                          const Shape& layout) {
  Shape logical = Shape::Array(layout.element_type(), layout.dimensions());
  if (bytes.size() != logical.ByteSize()) {
    return absl::InvalidArgumentError(
        absl::StrCat(bytes.size(), " bytes cannot hold ", layout.ToString()));
  }
  if (IsRowMajor(layout)) {
    RETURN_IF_ERROR(base::CheckHostAllocation(
        bytes.size(), absl::StrCat("a copy of ", layout.ToString())));
    return Literal(logical, bytes);
  }
  RETURN_IF_ERROR(CheckConversionMemory(layout));
  int64_t width = primitive_util::ByteWidth(layout.element_type());
  Literal literal(logical);
  std::vector<int64_t> indices = PhysicalIndices(layout);
  for (int64_t i = 0; i < indices.size(); ++i) {
    std::memcpy(&literal.mutable_bytes()[i * width], &bytes[indices[i] * width],
                width);
  }
  return literal;
}

}  // namespace xla_lite
