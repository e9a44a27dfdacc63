#include "xla_lite/service/elemental_lowering.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/service/elemental_ops.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace {

// Gather's and scatter's dimension numbers in common terms: `instr`'s
// window dimensions (offset_dims / update_window_dims) hold the operand's
// window_operand_dims; its other dimensions are batch dimensions, one per
// dimension of the start indices other than index_vector_dim.
struct IndexingDims {
  const HloInstruction* indices = nullptr;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> to_operand;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> indices_batching_dims;
  std::vector<int64_t> window_dims;
  std::vector<int64_t> window_operand_dims;
  std::vector<int64_t> operand_dims;
  std::vector<int64_t> max_start;  // Per operand dimension.
};

// Lowers instructions at index values into one program, sharing what is
// computed twice at the same index.
class Lowering {
 public:
  Lowering(KernelProgram* program, const IsMaterializedFn& is_materialized)
      : program_(program), is_materialized_(is_materialized) {}

  // The value of `instr` at `index` (an index op over instr's shape). The
  // root of a kernel is computed even though it is materialized.
  absl::StatusOr<int> Lower(const HloInstruction* instr, int index,
                            bool is_root = false);

  int IndexOp(ExprKind kind) {
    ExprOp op;
    op.kind = kind;
    return program_->Add(std::move(op));
  }
  int Remap(int index, IndexRemap remap) {
    if (remap.IsIdentity()) return index;
    ExprOp op;
    op.kind = ExprKind::kIndexRemap;
    op.operands = {index};
    op.remap = std::move(remap);
    return program_->Add(std::move(op));
  }
  int Remap(std::vector<int> indices, IndexRemap remap) {
    ExprOp op;
    op.kind = ExprKind::kIndexRemap;
    op.operands = std::move(indices);
    op.remap = std::move(remap);
    return program_->Add(std::move(op));
  }

  std::vector<const HloInstruction*> TakeInputs() { return std::move(inputs_); }

  // What a gather's output element, or a scatter's update element, at
  // `index` (over `instr`'s shape) reaches: the operand index without the
  // start indices (`static_index`) and the loaded starts, one per entry of
  // `to_operand`.
  struct StartIndexing {
    int static_index = -1;
    std::vector<int> starts;
    std::vector<DynamicTerm> terms;
  };
  absl::StatusOr<StartIndexing> LowerStartIndexing(
      const HloInstruction* instr, const IndexingDims& dims, int index);
  int DynamicOp(ExprKind kind, std::vector<int> operands,
                std::vector<DynamicTerm> terms) {
    ExprOp op;
    op.kind = kind;
    op.type = kind == ExprKind::kDynamicInBounds ? PrimitiveType::PRED
                                                  : PrimitiveType::F32;
    op.operands = std::move(operands);
    op.dynamic = std::move(terms);
    return program_->Add(std::move(op));
  }

  // Roots of a multi-output kernel, whose element index is `index`.
  void SetRoots(absl::Span<const HloInstruction* const> roots, int index) {
    roots_.insert(roots.begin(), roots.end());
    root_index_ = index;
  }

  // `reduce`, read at `index`, is the op `value` (a fused reduction).
  void SetReducedValue(const HloInstruction* reduce, int index, int value) {
    reduction_ = reduce;
    reduced_index_ = index;
    reduced_value_ = value;
  }

 private:
  absl::StatusOr<int> LowerUncached(const HloInstruction* instr, int index);
  absl::StatusOr<int> LowerIndexRemap(const HloInstruction* instr, int index);
  absl::StatusOr<int> LowerElementwise(const HloInstruction* instr,
                                       const ElementalOp& row, int index);
  absl::StatusOr<int> LowerClamp(const HloInstruction& clamp,
                                 const std::vector<int>& operands);
  absl::StatusOr<int> LowerGather(const HloInstruction* gather, int index);
  absl::StatusOr<int> LowerConcatenate(const HloInstruction* concat,
                                       int index);
  absl::StatusOr<int> LowerPad(const HloInstruction* pad, int index);
  int Select(PrimitiveType type, int predicate, int on_true, int on_false) {
    ExprOp select;
    select.kind = ExprKind::kSelect;
    select.type = type;
    select.operands = {predicate, on_true, on_false};
    return program_->Add(std::move(select));
  }
  // Whether coordinate `dim` of `index` (over `dims`) is at least `lo`.
  int AtLeast(int index, const std::vector<int64_t>& dims, int64_t dim,
              int64_t lo);
  int Load(const HloInstruction* instr, int index);
  // Index into `operand` for element `index` of `instr` (rank-0 operands of
  // elementwise ops are implicitly broadcast).
  int OperandIndex(const HloInstruction* instr, const HloInstruction* operand,
                   int index);

  KernelProgram* program_;
  const IsMaterializedFn& is_materialized_;
  absl::flat_hash_map<std::pair<const HloInstruction*, int>, int> memo_;
  absl::flat_hash_map<const HloInstruction*, int> input_of_;
  std::vector<const HloInstruction*> inputs_;
  absl::flat_hash_set<const HloInstruction*> roots_;
  int root_index_ = -1;
  const HloInstruction* reduction_ = nullptr;
  int reduced_index_ = -1;
  int reduced_value_ = -1;
};

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
  if (instr == reduction_) {
    if (index != reduced_index_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the epilogue reads ", instr->name(), " at other elements"));
    }
    return reduced_value_;
  }
  if (!is_root && roots_.contains(instr)) {
    if (index != root_index_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "a root of the kernel reads root ", instr->name(),
          " at other elements"));
    }
    return Lower(instr, index, /*is_root=*/true);
  }
  if (!is_root && is_materialized_(instr)) return Load(instr, index);
  auto key = std::make_pair(instr, index);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  ASSIGN_OR_RETURN(int id, LowerUncached(instr, index));
  memo_[key] = id;
  return id;
}

absl::StatusOr<int> Lowering::LowerUncached(const HloInstruction* instr,
                                            int index) {
  ASSIGN_OR_RETURN(const ElementalOp* row, SupportedElementalOp(*instr));
  const xla_lite::Shape& shape = instr->shape();
  switch (row->lowering) {
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
    case OpLowering::kReduce:
      return Load(instr, index);
    case OpLowering::kResultTuple:
      return UnsupportedOpError(*instr, shape.ToString(),
                                "a tuple is not a value kernels compute");
    case OpLowering::kIndexRemap:
      return LowerIndexRemap(instr, index);
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
      return LowerElementwise(instr, *row, index);
  }
}

absl::StatusOr<int> Lowering::LowerIndexRemap(const HloInstruction* instr,
                                              int index) {
  const xla_lite::Shape& shape = instr->shape();
  const HloInstruction* operand = instr->operand(0);
  IndexRemap remap = SingleSource(instr, operand);
  switch (instr->opcode()) {
    case HloOpcode::kReshape:
      // Row-major values: a reshape keeps every element's linear index.
      return Lower(operand, index);
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
  return Lower(operand, Remap(index, std::move(remap)));
}

absl::StatusOr<int> Lowering::LowerElementwise(const HloInstruction* instr,
                                               const ElementalOp& row,
                                               int index) {
  ExprOp op;
  op.type = instr->shape().element_type();
  op.opcode = instr->opcode();
  for (const HloInstruction* operand : instr->operands()) {
    ASSIGN_OR_RETURN(int value,
                     Lower(operand, OperandIndex(instr, operand, index)));
    op.operands.push_back(value);
  }
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


absl::StatusOr<Lowering::StartIndexing> Lowering::LowerStartIndexing(
    const HloInstruction* instr, const IndexingDims& dims, int index) {
  const std::vector<int64_t>& instr_dims = instr->shape().dimensions();
  std::vector<int64_t> batch_dims;
  for (int64_t i = 0; i < instr_dims.size(); ++i) {
    if (std::find(dims.window_dims.begin(), dims.window_dims.end(), i) ==
        dims.window_dims.end()) {
      batch_dims.push_back(i);
    }
  }
  // A dimension of the indices, less index_vector_dim, is a batch dimension.
  auto batch_dim_of = [&](int64_t indices_dim) {
    return batch_dims.at(indices_dim < dims.index_vector_dim ? indices_dim
                                                             : indices_dim - 1);
  };
  StartIndexing result;
  IndexRemap base;
  base.sources = {instr_dims};
  base.target = dims.operand_dims;
  base.dims.resize(dims.operand_dims.size());
  for (int64_t k = 0; k < dims.window_dims.size(); ++k) {
    base.dims[dims.window_operand_dims[k]] = {0, dims.window_dims[k], 1, 0};
  }
  for (int64_t i = 0; i < dims.operand_batching_dims.size(); ++i) {
    base.dims[dims.operand_batching_dims[i]] = {
        0, batch_dim_of(dims.indices_batching_dims[i]), 1, 0};
  }
  result.static_index = Remap(index, std::move(base));
  const std::vector<int64_t>& indices_dims = dims.indices->shape().dimensions();
  const std::vector<int64_t> strides = RowMajorStrides(dims.operand_dims);
  for (int64_t k = 0; k < dims.to_operand.size(); ++k) {
    IndexRemap at;
    at.sources = {instr_dims};
    at.target = indices_dims;
    at.dims.resize(indices_dims.size());
    for (int64_t j = 0; j < indices_dims.size(); ++j) {
      at.dims[j] = j == dims.index_vector_dim
                       ? IndexRemap::Dim{-1, 0, 1, k}
                       : IndexRemap::Dim{0, batch_dim_of(j), 1, 0};
    }
    ASSIGN_OR_RETURN(int start, Lower(dims.indices, Remap(index, std::move(at))));
    result.starts.push_back(start);
    const int64_t d = dims.to_operand[k];
    result.terms.push_back({strides[d], dims.max_start[d]});
  }
  return result;
}

absl::StatusOr<int> Lowering::LowerGather(const HloInstruction* gather,
                                          int index) {
  const GatherDimensionNumbers& d = gather->gather_dimension_numbers();
  const HloInstruction* operand = gather->operand(0);
  IndexingDims dims;
  dims.indices = gather->operand(1);
  dims.index_vector_dim = d.index_vector_dim;
  dims.to_operand = d.start_index_map;
  dims.operand_batching_dims = d.operand_batching_dims;
  dims.indices_batching_dims = d.start_indices_batching_dims;
  dims.window_dims = d.offset_dims;
  dims.operand_dims = operand->shape().dimensions();
  dims.window_operand_dims =
      GatherOffsetOperandDims(d, dims.operand_dims.size());
  for (int64_t t = 0; t < dims.operand_dims.size(); ++t) {
    dims.max_start.push_back(dims.operand_dims[t] -
                             gather->gather_slice_sizes().at(t));
  }
  ASSIGN_OR_RETURN(StartIndexing indexing,
                   LowerStartIndexing(gather, dims, index));
  std::vector<int> operands = {indexing.static_index};
  operands.insert(operands.end(), indexing.starts.begin(),
                  indexing.starts.end());
  int at = indexing.starts.empty()
               ? indexing.static_index
               : DynamicOp(ExprKind::kDynamicIndex, std::move(operands),
                           std::move(indexing.terms));
  return Lower(operand, at);
}

int Lowering::AtLeast(int index, const std::vector<int64_t>& dims, int64_t dim,
                      int64_t lo) {
  ExprOp op;
  op.kind = ExprKind::kIndexInBounds;
  op.type = PrimitiveType::PRED;
  op.operands = {index};
  op.bounds.dims = dims;
  op.bounds.bounds = {{dim, lo, dims[dim], 1}};
  return program_->Add(std::move(op));
}

absl::StatusOr<int> Lowering::LowerConcatenate(const HloInstruction* concat,
                                               int index) {
  const int64_t dim = concat->dimensions(0);
  const std::vector<int64_t>& dims = concat->shape().dimensions();
  int value = -1;
  int64_t start = 0;
  for (const HloInstruction* operand : concat->operands()) {
    const int64_t size = operand->shape().dimensions(dim);
    if (size == 0) continue;
    IndexRemap remap = SingleSource(concat, operand);
    for (int64_t t = 0; t < dims.size(); ++t) remap.dims[t] = {0, t, 1, 0};
    // Clamped: lanes where another operand is selected still read in bounds.
    remap.dims[dim] = {0, dim, 1, -start, 1, size};
    ASSIGN_OR_RETURN(int v, Lower(operand, Remap(index, std::move(remap))));
    value = value < 0 ? v
                      : Select(concat->shape().element_type(),
                               AtLeast(index, dims, dim, start), v, value);
    start += size;
  }
  if (value < 0) {  // Every operand is empty, and so is the result.
    ExprOp zero;
    zero.kind = ExprKind::kConstant;
    zero.type = concat->shape().element_type();
    value = program_->Add(std::move(zero));
  }
  return value;
}

// An output element is the operand's when each coordinate lies within the
// operand's span and on its interior stride; the operand is read at the
// coordinate clamped into it either way, so no lane reads out of bounds.
absl::StatusOr<int> Lowering::LowerPad(const HloInstruction* pad, int index) {
  const HloInstruction* operand = pad->operand(0);
  const HloInstruction* padding_value = pad->operand(1);
  ASSIGN_OR_RETURN(int fill, Lower(padding_value,
                                   Remap(index, SingleSource(pad, padding_value))));
  if (operand->shape().ElementCount() == 0) return fill;
  const std::vector<int64_t>& dims = pad->shape().dimensions();
  const std::vector<int64_t>& operand_dims = operand->shape().dimensions();
  IndexRemap remap = SingleSource(pad, operand);
  ExprOp inside;
  inside.kind = ExprKind::kIndexInBounds;
  inside.type = PrimitiveType::PRED;
  inside.operands = {index};
  inside.bounds.dims = dims;
  for (int64_t t = 0; t < dims.size(); ++t) {
    const PaddingDimension& p = pad->padding().at(t);
    const int64_t stride = p.interior + 1;
    remap.dims[t] = {0, t, 1, -p.edge_low, stride, operand_dims[t]};
    inside.bounds.bounds.push_back(
        {t, p.edge_low, p.edge_low + (operand_dims[t] - 1) * stride + 1,
         stride});
  }
  ASSIGN_OR_RETURN(int value, Lower(operand, Remap(index, std::move(remap))));
  return Select(pad->shape().element_type(),
                program_->Add(std::move(inside)), value, fill);
}

}  // namespace

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

namespace xla_lite::gpu {

absl::StatusOr<LoweredKernel> LowerScatter(
    const HloInstruction* scatter, const IsMaterializedFn& is_materialized) {
  ASSIGN_OR_RETURN(ScatterCombiner combiner, ScatterCombinerOf(*scatter));
  const ScatterDimensionNumbers& d = scatter->scatter_dimension_numbers();
  const HloInstruction* updates = scatter->operand(2);
  IndexingDims dims;
  dims.indices = scatter->operand(1);
  dims.index_vector_dim = d.index_vector_dim;
  dims.to_operand = d.scatter_dims_to_operand_dims;
  dims.operand_batching_dims = d.input_batching_dims;
  dims.indices_batching_dims = d.scatter_indices_batching_dims;
  dims.window_dims = d.update_window_dims;
  dims.operand_dims = scatter->shape().dimensions();
  dims.window_operand_dims =
      ScatterWindowOperandDims(d, dims.operand_dims.size());
  std::vector<int64_t> extent(dims.operand_dims.size(), 1);
  for (int64_t k = 0; k < dims.window_dims.size(); ++k) {
    extent[dims.window_operand_dims[k]] =
        updates->shape().dimensions(dims.window_dims[k]);
  }
  for (int64_t t = 0; t < dims.operand_dims.size(); ++t) {
    dims.max_start.push_back(dims.operand_dims[t] - extent[t]);
  }
  auto program = std::make_unique<KernelProgram>(KernelProgram::Kind::kScatter);
  Lowering lowering(program.get(), is_materialized);
  const int index = lowering.IndexOp(ExprKind::kIndex);
  ASSIGN_OR_RETURN(Lowering::StartIndexing indexing,
                   lowering.LowerStartIndexing(updates, dims, index));
  ASSIGN_OR_RETURN(int value, lowering.Lower(updates, index));
  std::vector<int> operands = {indexing.static_index};
  operands.insert(operands.end(), indexing.starts.begin(),
                  indexing.starts.end());
  // Clamped like a gather's, so that a dropped update computes an index in
  // bounds too.
  const int target =
      indexing.starts.empty()
          ? indexing.static_index
          : lowering.DynamicOp(ExprKind::kDynamicIndex, std::move(operands),
                               indexing.terms);
  const int valid = lowering.DynamicOp(ExprKind::kDynamicInBounds,
                                       indexing.starts, indexing.terms);
  program->AddOutput(
      {scatter->shape().element_type(), scatter->shape().ElementCount()},
      value);
  program->SetScatter(target, valid, combiner.opcode, combiner.function,
                      updates->shape().ElementCount());
  return LoweredKernel{std::move(program), lowering.TakeInputs()};
}

}  // namespace xla_lite::gpu
