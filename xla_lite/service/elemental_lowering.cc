#include "xla_lite/service/elemental_lowering.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/service/elemental_lowering_internal.h"
#include "xla_lite/service/elemental_ops.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace elemental_internal {

IndexRemap SingleSource(const HloInstruction* from, const HloInstruction* to) {
  IndexRemap remap;
  remap.sources = {from->shape().dimensions()};
  remap.target = to->shape().dimensions();
  remap.dims.resize(to->shape().rank());
  return remap;
}

int Lowering::Load(const HloInstruction* instr, int index) {
  auto [it, inserted] = input_of_.try_emplace(instr, inputs_.size());
  if (inserted) {
    inputs_.push_back(instr);
    program_->AddInput({instr->shape().element_type(),
                        instr->shape().ElementCount()});
  }
  ExprOp op;
  op.kind = ExprKind::kLoad;
  op.type = instr->shape().element_type();
  op.input = it->second;
  op.operands = {index};
  return program_->Add(std::move(op));
}

int Lowering::OperandIndex(const HloInstruction* instr,
                           const HloInstruction* operand, int index) {
  if (operand->shape().rank() == 0 && instr->shape().rank() > 0) {
    return Remap(index, SingleSource(instr, operand));  // Always 0.
  }
  return index;
}

absl::StatusOr<int> Lowering::Lower(const HloInstruction* instr, int index,
                                    bool is_root) {
  std::vector<Frame> stack;
  stack.push_back({instr, index, is_root});
  int value = -1;
  bool have_value = false;  // `value` is the result of the popped frame
  while (true) {
    Frame& frame = stack.back();
    if (have_value) {
      frame.values.push_back(value);
      have_value = false;
    } else if (frame.values.empty() && frame.row == nullptr) {
      ASSIGN_OR_RETURN(std::optional<int> resolved, Resolve(frame));
      if (resolved.has_value()) {
        value = *resolved;
        have_value = true;
      }
    }
    if (!have_value) {
      ASSIGN_OR_RETURN(std::optional<Child> child, NextChild(stack.back()));
      if (child.has_value()) {
        stack.push_back({child->instr, child->index, child->is_root});
        continue;
      }
      ASSIGN_OR_RETURN(value, Finish(stack.back()));
      have_value = true;
    }
    stack.pop_back();
    if (stack.empty()) return value;
  }
}

absl::StatusOr<std::optional<int>> Lowering::Resolve(Frame& frame) {
  const HloInstruction* instr = frame.instr;
  if (instr == reduction_) {
    if (frame.index != reduced_index_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the epilogue reads ", instr->name(), " at other elements"));
    }
    return reduced_value_;
  }
  if (!frame.is_root && roots_.contains(instr)) {
    if (frame.index != root_index_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "a root of the kernel reads root ", instr->name(),
          " at other elements"));
    }
    return std::nullopt;  // NextChild lowers it as a root
  }
  if (!frame.is_root && is_materialized_(instr)) {
    return Load(instr, frame.index);
  }
  auto it = memo_.find(std::make_pair(instr, frame.index));
  if (it != memo_.end()) return it->second;
  ASSIGN_OR_RETURN(frame.row, SupportedElementalOp(*instr));
  ASSIGN_OR_RETURN(std::optional<int> leaf,
                   LowerLeaf(instr, *frame.row, frame.index));
  if (leaf.has_value()) memo_[std::make_pair(instr, frame.index)] = *leaf;
  return leaf;
}

absl::StatusOr<std::optional<Lowering::Child>> Lowering::NextChild(
    const Frame& frame) {
  const HloInstruction* instr = frame.instr;
  const size_t done = frame.values.size();
  if (frame.row == nullptr) {  // a root read by another root
    if (done > 0) return std::nullopt;
    return Child{instr, frame.index, /*is_root=*/true};
  }
  if (frame.row->lowering == OpLowering::kIndexRemap) {
    if (done > 0) return std::nullopt;
    return IndexRemapChild(instr, frame.index);
  }
  if (done == instr->operand_count()) return std::nullopt;
  const HloInstruction* operand = instr->operand(done);
  return Child{operand, OperandIndex(instr, operand, frame.index)};
}

absl::StatusOr<int> Lowering::Finish(const Frame& frame) {
  if (frame.row == nullptr) return frame.values.at(0);
  int id;
  if (frame.row->lowering == OpLowering::kIndexRemap) {
    id = frame.values.at(0);
  } else {
    ASSIGN_OR_RETURN(id, LowerElementwise(frame.instr, *frame.row,
                                          frame.values));
  }
  memo_[std::make_pair(frame.instr, frame.index)] = id;
  return id;
}

absl::StatusOr<std::optional<int>> Lowering::LowerLeaf(
    const HloInstruction* instr, const ElementalOp& row, int index) {
  const xla_lite::Shape& shape = instr->shape();
  switch (row.lowering) {
    case OpLowering::kBuffer: {
      if (instr->opcode() != HloOpcode::kConstant ||
          shape.ElementCount() != 1) {
        return Load(instr, index);
      }
      if (!kKernelTypes.contains(shape.element_type())) {
        return UnsupportedOpError(
            *instr,
            primitive_util::LowercasePrimitiveTypeName(shape.element_type()),
            absl::StrCat("kernels compute with ", kKernelTypes.ToString()));
      }
      ExprOp op;
      op.kind = ExprKind::kConstant;
      op.type = shape.element_type();
      op.value = instr->literal().GetAsDouble(0);
      return program_->Add(std::move(op));
    }
    case OpLowering::kGemm:
    case OpLowering::kWindowKernel:
    case OpLowering::kReduce:
    case OpLowering::kCollective:
      return Load(instr, index);
    case OpLowering::kResultTuple:
      return UnsupportedOpError(*instr, shape.ToString(),
                                "a tuple is not a value kernels compute");
    case OpLowering::kGather:
      return LowerGather(instr, index);
    case OpLowering::kConcatenate:
      return LowerConcatenate(instr, index);
    case OpLowering::kPad:
      return LowerPad(instr, index);
    case OpLowering::kScatter:
      return Load(instr, index);
    case OpLowering::kIota: {
      IndexRemap remap;
      remap.sources = {shape.dimensions()};
      remap.target = {shape.dimensions(instr->iota_dimension())};
      remap.dims = {{0, instr->iota_dimension(), 1, 0}};
      ExprOp op;
      op.kind = ExprKind::kIndexToValue;
      op.type = shape.element_type();
      op.operands = {Remap(index, std::move(remap))};
      return program_->Add(std::move(op));
    }
    default:
      return std::nullopt;  // operands first
  }
}

absl::StatusOr<Lowering::Child> Lowering::IndexRemapChild(
    const HloInstruction* instr, int index) {
  const xla_lite::Shape& shape = instr->shape();
  const HloInstruction* operand = instr->operand(0);
  IndexRemap remap = SingleSource(instr, operand);
  switch (instr->opcode()) {
    case HloOpcode::kReshape:
      // Row-major values: a reshape keeps every element's linear index.
      return Child{operand, index};
    case HloOpcode::kBroadcast:
      for (int64_t j = 0; j < operand->shape().rank(); ++j) {
        remap.dims[j] = {0, instr->dimensions(j), 1, 0};
      }
      break;
    case HloOpcode::kTranspose:
      for (int64_t i = 0; i < shape.rank(); ++i) {
        remap.dims[instr->dimensions(i)] = {0, i, 1, 0};
      }
      break;
    case HloOpcode::kSlice:
      for (int64_t j = 0; j < shape.rank(); ++j) {
        const SliceDimension& s = instr->slice_dimensions().at(j);
        remap.dims[j] = {0, j, s.stride, s.start};
      }
      break;
    case HloOpcode::kReverse:
      for (int64_t j = 0; j < shape.rank(); ++j) remap.dims[j] = {0, j, 1, 0};
      for (int64_t d : instr->dimensions()) {
        remap.dims[d] = {0, d, -1, shape.dimensions(d) - 1};
      }
      break;
    default:
      return absl::InternalError(
          absl::StrCat("instruction ", instr->name(), ": the op table lowers ",
                       HloOpcodeString(instr->opcode()),
                       " by index remapping, which elemental_lowering lacks"));
  }
  return Child{operand, Remap(index, std::move(remap))};
}

absl::StatusOr<int> Lowering::LowerElementwise(const HloInstruction* instr,
                                               const ElementalOp& row,
                                               std::vector<int> operands) {
  ExprOp op;
  op.type = instr->shape().element_type();
  op.opcode = instr->opcode();
  op.operands = std::move(operands);
  const PrimitiveType operand_type = instr->operand(0)->shape().element_type();
  switch (row.lowering) {
    case OpLowering::kCopy:
      return op.operands[0];
    case OpLowering::kScalarFunction:
      op.kind = op.operands.size() == 1 ? ExprKind::kUnary : ExprKind::kBinary;
      op.function = row.FunctionFor(operand_type);
      break;
    case OpLowering::kCompare:
      op.kind = ExprKind::kCompare;
      op.direction = instr->comparison_direction();
      break;
    case OpLowering::kSelect:
      op.kind = ExprKind::kSelect;
      break;
    case OpLowering::kClamp:
      return LowerClamp(*instr, op.operands);
    case OpLowering::kConvert:
      op.kind = ExprKind::kConvert;
      break;
    default:
      return absl::InternalError(absl::StrCat(
          "instruction ", instr->name(), ": ", HloOpcodeString(instr->opcode()),
          " is not elementwise"));
  }
  return program_->Add(std::move(op));
}

absl::StatusOr<int> Lowering::LowerClamp(const HloInstruction& clamp,
                                         const std::vector<int>& operands) {
  // clamp(lo, x, hi) = minimum(maximum(x, lo), hi), with the rows'
  // functions, which propagate NaN as XLA's clamp does.
  const PrimitiveType type = clamp.shape().element_type();
  int value = operands[1];
  for (auto [opcode, bound] :
       {std::make_pair(HloOpcode::kMaximum, operands[0]),
        std::make_pair(HloOpcode::kMinimum, operands[2])}) {
    ExprOp op;
    op.kind = ExprKind::kBinary;
    op.type = type;
    op.opcode = opcode;
    op.function = FindElementalOp(opcode)->FunctionFor(type);
    if (op.function == nullptr) {
      return UnsupportedOpError(
          clamp, primitive_util::LowercasePrimitiveTypeName(type),
          absl::StrCat(HloOpcodeString(opcode), " is not defined for it"));
    }
    op.operands = {value, bound};
    value = program_->Add(std::move(op));
  }
  return value;
}

}  // namespace elemental_internal

using elemental_internal::Lowering;

absl::StatusOr<LoweredKernel> LowerLoopFusion(
    absl::Span<const HloInstruction* const> roots,
    const IsMaterializedFn& is_materialized) {
  auto program = std::make_unique<KernelProgram>(KernelProgram::Kind::kLoop);
  Lowering lowering(program.get(), is_materialized);
  int index = lowering.IndexOp(ExprKind::kIndex);
  lowering.SetRoots(roots, index);
  for (const HloInstruction* root : roots) {
    ASSIGN_OR_RETURN(int value, lowering.Lower(root, index, /*is_root=*/true));
    program->AddOutput(
        {root->shape().element_type(), root->shape().ElementCount()}, value);
  }
  return LoweredKernel{std::move(program), lowering.TakeInputs()};
}

absl::StatusOr<LoweredKernel> LowerReduction(
    const HloInstruction* reduce, const IsMaterializedFn& is_materialized,
    const HloInstruction* epilogue) {
  ASSIGN_OR_RETURN(const ElementalOp* row, SupportedElementalOp(*reduce));
  if (row->lowering != OpLowering::kReduce) {
    return absl::InternalError(
        absl::StrCat(reduce->name(), " is not a reduce"));
  }
  const ScalarFunction* reducer = ReducerFunction(*reduce);
  const HloOpcode reducer_opcode =
      reduce->to_apply()->root_instruction()->opcode();
  const HloInstruction* input = reduce->operand(0);
  const HloInstruction* init = reduce->operand(1);
  const std::vector<int64_t>& input_dims = input->shape().dimensions();
  std::vector<int64_t> reduced = reduce->dimensions();
  std::sort(reduced.begin(), reduced.end());
  std::vector<int64_t> reduced_dims, kept;
  for (int64_t d = 0; d < input_dims.size(); ++d) {
    if (std::binary_search(reduced.begin(), reduced.end(), d)) {
      reduced_dims.push_back(input_dims[d]);
    } else {
      kept.push_back(d);
    }
  }
  // The input index combines the output's coordinates (source 0) with the
  // reduced element's (source 1).
  IndexRemap remap;
  remap.sources = {reduce->shape().dimensions(), reduced_dims};
  remap.target = input_dims;
  remap.dims.resize(input_dims.size());
  for (int64_t k = 0; k < kept.size(); ++k) remap.dims[kept[k]] = {0, k, 1, 0};
  for (int64_t r = 0; r < reduced.size(); ++r) {
    remap.dims[reduced[r]] = {1, r, 1, 0};
  }
  int64_t reduced_elements = 1;
  for (int64_t d : reduced_dims) reduced_elements *= d;

  auto program = std::make_unique<KernelProgram>(KernelProgram::Kind::kReduce);
  Lowering lowering(program.get(), is_materialized);
  int out_index = lowering.IndexOp(ExprKind::kIndex);
  int reduce_index = lowering.IndexOp(ExprKind::kReduceIndex);
  int input_index = lowering.Remap({out_index, reduce_index}, std::move(remap));
  ASSIGN_OR_RETURN(int value, lowering.Lower(input, input_index));
  IndexRemap scalar;
  scalar.sources = {reduce->shape().dimensions()};
  int init_index = lowering.Remap({out_index}, std::move(scalar));
  ASSIGN_OR_RETURN(int init_value, lowering.Lower(init, init_index));
  ExprOp reduced_op;
  reduced_op.kind = ExprKind::kReducedValue;
  reduced_op.type = reduce->shape().element_type();
  int reduced_value = program->Add(std::move(reduced_op));
  program->SetReduction(init_value, value, reducer_opcode, reducer,
                        reduced_elements);
  const HloInstruction* stored = reduce;
  int output = reduced_value;
  if (epilogue != nullptr) {
    if (epilogue->shape().ElementCount() != reduce->shape().ElementCount()) {
      return absl::FailedPreconditionError(absl::StrCat(
          epilogue->name(), " and ", reduce->name(), " differ in size"));
    }
    lowering.SetReducedValue(reduce, out_index, reduced_value);
    ASSIGN_OR_RETURN(output, lowering.Lower(epilogue, out_index, true));
    stored = epilogue;
  }
  program->AddOutput(
      {stored->shape().element_type(), stored->shape().ElementCount()}, output);
  return LoweredKernel{std::move(program), lowering.TakeInputs()};
}

}  // namespace xla_lite::gpu
