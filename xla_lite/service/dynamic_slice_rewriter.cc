#include "xla_lite/service/dynamic_slice_rewriter.h"

#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite {
namespace {

class DynamicSliceRewriter {
 public:
  explicit DynamicSliceRewriter(HloModule* module)
      : module_(module), names_(*module) {}

  absl::Status Run();

 private:
  // The clamped starts of `instr` (operands `first` on) as one s32[rank].
  HloInstruction* StartVector(HloInstruction* instr, int64_t first,
                              const std::vector<int64_t>& window);
  HloInstruction* RewriteSlice(HloInstruction* slice);
  HloInstruction* RewriteUpdate(HloInstruction* update);
  // (x, y) -> y over `type` scalars: scatter's combiner for an overwrite.
  HloComputation* AssignComputation(PrimitiveType type);

  HloModule* module_;
  NameUniquer names_;
  absl::flat_hash_map<PrimitiveType, HloComputation*> assign_;
};

HloInstruction* DynamicSliceRewriter::StartVector(
    HloInstruction* instr, int64_t first, const std::vector<int64_t>& window) {
  HloComputation* computation = instr->parent();
  const Shape& operand = instr->operand(0)->shape();
  const Shape s32 = Shape::Array(PrimitiveType::S32, {});
  std::vector<HloInstruction*> starts;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const std::string base = absl::StrCat(instr->name(), ".start", d);
    HloInstruction* start = instr->mutable_operand(first + d);
    if (start->shape().element_type() != PrimitiveType::S32) {
      start = AddInstruction(computation, HloOpcode::kConvert, s32, {start},
                             names_.Get(base + ".s32"));
    }
    HloInstruction* low = AddInstruction(computation, HloOpcode::kConstant,
                                         s32, {}, names_.Get(base + ".min"));
    low->set_literal(Literal::CreateR0<int32_t>(PrimitiveType::S32, 0));
    HloInstruction* high = AddInstruction(computation, HloOpcode::kConstant,
                                          s32, {}, names_.Get(base + ".max"));
    high->set_literal(Literal::CreateR0<int32_t>(
        PrimitiveType::S32, operand.dimensions(d) - window[d]));
    HloInstruction* clamped =
        AddInstruction(computation, HloOpcode::kClamp, s32,
                       {low, start, high}, names_.Get(base + ".clamped"));
    starts.push_back(AddReshape(computation, clamped, {1},
                                names_.Get(base + ".vector")));
  }
  if (starts.size() == 1) return starts[0];
  HloInstruction* vector = AddInstruction(
      computation, HloOpcode::kConcatenate,
      Shape::Array(PrimitiveType::S32, {operand.rank()}), starts,
      names_.Get(absl::StrCat(instr->name(), ".starts")));
  vector->set_dimensions({0});
  return vector;
}

// Every dimension of the operand is a window dimension, none collapsed:
// offset_dims (update_window_dims) and start_index_map
// (scatter_dims_to_operand_dims) are all of {0, ..., rank - 1}.
std::vector<int64_t> AllDimensions(int64_t rank) {
  std::vector<int64_t> dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  return dims;
}

HloInstruction* DynamicSliceRewriter::RewriteSlice(HloInstruction* slice) {
  const int64_t rank = slice->operand(0)->shape().rank();
  HloInstruction* starts =
      StartVector(slice, 1, slice->dynamic_slice_sizes());
  HloInstruction* gather = AddInstruction(
      slice->parent(), HloOpcode::kGather, slice->shape(),
      {slice->mutable_operand(0), starts}, names_.Get(slice->name() + ".gather"));
  GatherDimensionNumbers* d = gather->mutable_gather_dimension_numbers();
  d->offset_dims = AllDimensions(rank);
  d->start_index_map = AllDimensions(rank);
  d->index_vector_dim = 0;
  gather->set_gather_slice_sizes(slice->dynamic_slice_sizes());
  gather->set_source_line(slice->source_line());
  return gather;
}

HloInstruction* DynamicSliceRewriter::RewriteUpdate(HloInstruction* update) {
  const Shape& operand = update->operand(0)->shape();
  HloInstruction* starts =
      StartVector(update, 2, update->operand(1)->shape().dimensions());
  HloInstruction* scatter = AddInstruction(
      update->parent(), HloOpcode::kScatter, update->shape(),
      {update->mutable_operand(0), starts, update->mutable_operand(1)},
      names_.Get(update->name() + ".scatter"));
  ScatterDimensionNumbers* d = scatter->mutable_scatter_dimension_numbers();
  d->update_window_dims = AllDimensions(operand.rank());
  d->scatter_dims_to_operand_dims = AllDimensions(operand.rank());
  d->index_vector_dim = 0;
  scatter->set_to_apply(AssignComputation(operand.element_type()));
  scatter->set_source_line(update->source_line());
  return scatter;
}

HloComputation* DynamicSliceRewriter::AssignComputation(PrimitiveType type) {
  auto it = assign_.find(type);
  if (it != assign_.end()) return it->second;
  const std::string name = names_.Get(
      absl::StrCat("assign.", primitive_util::LowercasePrimitiveTypeName(type)));
  auto computation = std::make_unique<HloComputation>(name);
  const Shape scalar = Shape::Array(type, {});
  for (int64_t p = 0; p < 2; ++p) {
    auto param = std::make_unique<HloInstruction>(
        HloOpcode::kParameter, scalar,
        names_.Get(absl::StrCat(name, p == 0 ? ".old" : ".new")));
    param->set_parameter_number(p);
    computation->AddInstruction(std::move(param));
  }
  computation->set_root_instruction(computation->parameter_instruction(1));
  HloComputation* added = module_->AddComputation(std::move(computation));
  assign_[type] = added;
  return added;
}

absl::Status DynamicSliceRewriter::Run() {
  int rewritten = 0;
  for (HloComputation* computation : module_->computations()) {
    bool changed = false;
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      HloInstruction* replacement = nullptr;
      if (instr->opcode() == HloOpcode::kDynamicSlice) {
        replacement = RewriteSlice(instr);
      } else if (instr->opcode() == HloOpcode::kDynamicUpdateSlice) {
        replacement = RewriteUpdate(instr);
      } else {
        continue;
      }
      instr->ReplaceAllUsesWith(replacement);
      changed = true;
      ++rewritten;
    }
    // After the walk: removing while walking would free what it visits.
    if (changed) computation->RemoveDeadInstructions();
  }
  VLOG(1) << module_->name() << ": " << rewritten
          << " dynamic slices rewritten into gathers and scatters";
  return absl::OkStatus();
}

}  // namespace

absl::Status RewriteDynamicSlices(HloModule* module) {
  return DynamicSliceRewriter(module).Run();
}

}  // namespace xla_lite
