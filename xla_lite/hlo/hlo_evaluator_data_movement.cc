#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {
namespace {

// Fills out[i] from operand[source(out index)] for every element of `out`.
template <typename SourceIndex>
void Gather(const Literal& operand, Literal* out, SourceIndex source) {
  const int64_t width = primitive_util::ByteWidth(out->shape().element_type());
  const std::vector<int64_t>& out_dims = out->shape().dimensions();
  const std::vector<int64_t>& in_dims = operand.shape().dimensions();
  for (int64_t i = 0; i < out->element_count(); ++i) {
    std::vector<int64_t> index = MultiIndex(out_dims, i);
    int64_t from = LinearIndex(in_dims, source(index));
    std::memcpy(out->mutable_bytes().data() + i * width,
                operand.bytes().data() + from * width, width);
  }
}

// Position of a logical index in memory under a minor-to-major layout.
int64_t PhysicalOffset(const Shape& shape, const std::vector<int64_t>& index) {
  int64_t offset = 0;
  const auto& layout = shape.minor_to_major();
  for (int64_t k = shape.rank() - 1; k >= 0; --k) {
    offset = offset * shape.dimensions(layout[k]) + index[layout[k]];
  }
  return offset;
}

std::vector<int64_t> LogicalIndex(const Shape& shape, int64_t offset) {
  std::vector<int64_t> index(shape.rank());
  for (int64_t d : shape.minor_to_major()) {
    index[d] = offset % shape.dimensions(d);
    offset /= shape.dimensions(d);
  }
  return index;
}

// A bitcast reinterprets memory: the output element at a logical index is
// the operand element stored at the same physical offset, layouts included.
absl::StatusOr<Literal> Bitcast(const HloInstruction& instr,
                                const Literal& operand,
                                const Shape& operand_shape) {
  const Shape& shape = instr.shape();
  if (shape.element_type() != operand_shape.element_type() ||
      shape.ElementCount() != operand_shape.ElementCount()) {
    return absl::UnimplementedError(absl::StrCat(
        "evaluator: bitcast ", instr.name(), " from ",
        operand_shape.ToString(true), " to ", shape.ToString(true),
        " changes the element type or count (only layout-changing bitcasts "
        "are evaluated)"));
  }
  Literal out(shape);
  Gather(operand, &out, [&](const std::vector<int64_t>& index) {
    return LogicalIndex(operand_shape, PhysicalOffset(shape, index));
  });
  return out;
}

Literal Concatenate(const HloInstruction& instr,
                    absl::Span<const Literal* const> operands) {
  Literal out(instr.shape());
  const int64_t dim = instr.dimensions(0);
  const int64_t width = primitive_util::ByteWidth(instr.shape().element_type());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    std::vector<int64_t> index = MultiIndex(instr.shape().dimensions(), i);
    const Literal* source = operands[0];
    for (const Literal* operand : operands) {
      source = operand;
      int64_t extent = operand->shape().dimensions(dim);
      if (index[dim] < extent) break;
      index[dim] -= extent;
    }
    int64_t from = LinearIndex(source->shape().dimensions(), index);
    std::memcpy(out.mutable_bytes().data() + i * width,
                source->bytes().data() + from * width, width);
  }
  return out;
}

Literal Iota(const HloInstruction& instr) {
  Literal out(instr.shape());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    int64_t value =
        MultiIndex(instr.shape().dimensions(), i)[instr.iota_dimension()];
    out.SetFromInt64(i, value);
  }
  return out;
}

}  // namespace

std::vector<int64_t> MultiIndex(const std::vector<int64_t>& dimensions,
                                int64_t linear) {
  std::vector<int64_t> index(dimensions.size());
  for (int64_t d = static_cast<int64_t>(dimensions.size()) - 1; d >= 0; --d) {
    index[d] = linear % dimensions[d];
    linear /= dimensions[d];
  }
  return index;
}

int64_t LinearIndex(const std::vector<int64_t>& dimensions,
                    const std::vector<int64_t>& index) {
  int64_t linear = 0;
  for (size_t d = 0; d < dimensions.size(); ++d) {
    linear = linear * dimensions[d] + index[d];
  }
  return linear;
}

absl::StatusOr<Literal> EvaluateDataMovement(
    const HloInstruction& instr, absl::Span<const Literal* const> operands) {
  const Shape& shape = instr.shape();
  switch (instr.opcode()) {
    case HloOpcode::kReshape:
    case HloOpcode::kCopy:
      // Row-major values: a reshape keeps the element order.
      return Literal(shape, operands[0]->bytes());
    case HloOpcode::kBitcast:
      return Bitcast(instr, *operands[0], instr.operand(0)->shape());
    case HloOpcode::kBroadcast: {
      Literal out(shape);
      Gather(*operands[0], &out, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> from(instr.dimensions().size());
        for (size_t i = 0; i < from.size(); ++i) {
          from[i] = index[instr.dimensions(i)];
        }
        return from;
      });
      return out;
    }
    case HloOpcode::kTranspose: {
      Literal out(shape);
      Gather(*operands[0], &out, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> from(index.size());
        for (size_t i = 0; i < index.size(); ++i) {
          from[instr.dimensions(i)] = index[i];
        }
        return from;
      });
      return out;
    }
    case HloOpcode::kSlice: {
      Literal out(shape);
      Gather(*operands[0], &out, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> from(index.size());
        for (size_t d = 0; d < index.size(); ++d) {
          const SliceDimension& s = instr.slice_dimensions()[d];
          from[d] = s.start + index[d] * s.stride;
        }
        return from;
      });
      return out;
    }
    case HloOpcode::kReverse: {
      Literal out(shape);
      Gather(*operands[0], &out, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> from = index;
        for (int64_t d : instr.dimensions()) {
          from[d] = shape.dimensions(d) - 1 - index[d];
        }
        return from;
      });
      return out;
    }
    case HloOpcode::kConcatenate:
      return Concatenate(instr, operands);
    case HloOpcode::kIota:
      return Iota(instr);
    default:
      return absl::UnimplementedError(absl::StrCat(
          "evaluator: ", HloOpcodeString(instr.opcode()),
          " is not a data-movement op"));
  }
}

}  // namespace xla_lite::evaluator_internal
