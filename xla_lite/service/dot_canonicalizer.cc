#include "xla_lite/service/dot_canonicalizer.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= shape.dimensions(d);
  return product;
}

// One operand's dimensions sorted into groups.
struct OperandDims {
  std::vector<int64_t> batch, contracting, free;
};

OperandDims Classify(const Shape& shape, const std::vector<int64_t>& batch,
                     const std::vector<int64_t>& contracting) {
  OperandDims dims{batch, contracting, {}};
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!Contains(batch, d) && !Contains(contracting, d)) {
      dims.free.push_back(d);
    }
  }
  return dims;
}

std::vector<int64_t> Concat(std::vector<int64_t> a,
                            const std::vector<int64_t>& b,
                            const std::vector<int64_t>& c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

// Brings `operand` to [b?, x, y] where x groups `first` and y `second`
// (after the batch group): reshapes only when its dimensions are already in
// that order, else a transpose first. Returns the new operand.
HloInstruction* Group(HloInstruction* operand, const OperandDims& dims,
                      const std::vector<int64_t>& first,
                      const std::vector<int64_t>& second,
                      NameUniquer& names) {
  HloComputation* computation = operand->parent();
  const Shape& shape = operand->shape();
  std::vector<int64_t> order = Concat(dims.batch, first, second);
  if (!IsIdentityPermutation(order)) {
    operand = AddTranspose(computation, operand, order,
                           names.Get(operand->name() + ".gemm_order"));
  }
  std::vector<int64_t> target;
  if (!dims.batch.empty()) target.push_back(Product(shape, dims.batch));
  target.push_back(Product(shape, first));
  target.push_back(Product(shape, second));
  if (operand->shape().dimensions() == target) return operand;
  return AddReshape(computation, operand, target,
                    names.Get(operand->name() + ".gemm_shape"));
}

// Whether `dims` appear in the operand in the order batch, first, second.
bool InOrder(const OperandDims& dims, const std::vector<int64_t>& first,
             const std::vector<int64_t>& second) {
  return IsIdentityPermutation(Concat(dims.batch, first, second));
}

void Canonicalize(HloInstruction* dot, NameUniquer& names) {
  const DotDimensionNumbers& dnums = dot->dot_dimension_numbers();
  HloInstruction* lhs = dot->mutable_operand(0);
  HloInstruction* rhs = dot->mutable_operand(1);
  OperandDims l = Classify(lhs->shape(), dnums.lhs_batch_dimensions,
                           dnums.lhs_contracting_dimensions);
  OperandDims r = Classify(rhs->shape(), dnums.rhs_batch_dimensions,
                           dnums.rhs_contracting_dimensions);
  // Keep whichever of [m,k] / [k,m] the operand already has.
  bool lhs_k_first = !InOrder(l, l.free, l.contracting) &&
                     InOrder(l, l.contracting, l.free);
  bool rhs_k_last = !InOrder(r, r.contracting, r.free) &&
                    InOrder(r, r.free, r.contracting);
  HloInstruction* new_lhs =
      lhs_k_first ? Group(lhs, l, l.contracting, l.free, names)
                  : Group(lhs, l, l.free, l.contracting, names);
  HloInstruction* new_rhs =
      rhs_k_last ? Group(rhs, r, r.free, r.contracting, names)
                 : Group(rhs, r, r.contracting, r.free, names);
  bool batched = !l.batch.empty();
  int64_t rank = batched ? 3 : 2;
  std::vector<int64_t> out_dims;
  if (batched) out_dims.push_back(Product(lhs->shape(), l.batch));
  out_dims.push_back(Product(lhs->shape(), l.free));
  out_dims.push_back(Product(rhs->shape(), r.free));
  DotDimensionNumbers canonical;
  canonical.lhs_contracting_dimensions = {lhs_k_first ? rank - 2 : rank - 1};
  canonical.rhs_contracting_dimensions = {rhs_k_last ? rank - 1 : rank - 2};
  if (batched) {
    canonical.lhs_batch_dimensions = {0};
    canonical.rhs_batch_dimensions = {0};
  }
  HloComputation* computation = dot->parent();
  HloInstruction* gemm = CloneInstruction(computation, *dot, {new_lhs, new_rhs},
                                          names.Get(dot->name() + ".gemm"));
  *gemm->mutable_shape() =
      Shape::Array(dot->shape().element_type(), out_dims);
  gemm->set_dot_dimension_numbers(canonical);
  HloInstruction* result =
      AddReshape(computation, gemm, dot->shape().dimensions(),
                 names.Get(dot->name()));
  dot->ReplaceAllUsesWith(result);
}

}  // namespace

bool IsCanonicalDot(const HloInstruction& dot) {
  const DotDimensionNumbers& dnums = dot.dot_dimension_numbers();
  int64_t rank = dot.operand(0)->shape().rank();
  if (rank != 2 && rank != 3) return false;
  if (dot.operand(1)->shape().rank() != rank || dot.shape().rank() != rank) {
    return false;
  }
  std::vector<int64_t> batch;
  if (rank == 3) batch = {0};
  if (dnums.lhs_batch_dimensions != batch ||
      dnums.rhs_batch_dimensions != batch) {
    return false;
  }
  auto minor = [rank](const std::vector<int64_t>& contracting) {
    return contracting.size() == 1 && contracting[0] >= rank - 2;
  };
  return minor(dnums.lhs_contracting_dimensions) &&
         minor(dnums.rhs_contracting_dimensions);
}

absl::Status CanonicalizeDots(HloModule* module) {
  NameUniquer names(*module);
  HloComputation* entry = module->entry_computation();
  int64_t rewritten = 0;
  for (HloInstruction* instr : entry->MakeInstructionPostOrder()) {
    if (instr->opcode() != HloOpcode::kDot || IsCanonicalDot(*instr)) continue;
    Canonicalize(instr, names);
    ++rewritten;
  }
  entry->RemoveDeadInstructions();
  VLOG(1) << module->name() << ": canonicalized " << rewritten << " dots";
  return absl::OkStatus();
}

}  // namespace xla_lite
