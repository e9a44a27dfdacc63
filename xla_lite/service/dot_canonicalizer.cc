#include "xla_lite/service/dot_canonicalizer.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/fusion_plan.h"
#include "xla_lite/service/gemm_layout.h"
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

// The fallback: both operands transposed (where their order does not
// already group them) into [b?, x, y] and flattened to rank 2 or 3, the
// result reshaped back. The reshapes keep every copy materialized, so this
// always yields a dot FoldDotIntoGemm takes.
void Flatten(HloInstruction* dot, NameUniquer& names) {
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

// A dot operand with its batch and contracting dimensions in the dot's
// pair order.
struct Side {
  HloInstruction* operand;
  std::vector<int64_t> batch, contracting;
  bool is_lhs;

  std::vector<int64_t> Free() const {
    return gpu::FreeDimensions(operand->shape().rank(), batch, contracting);
  }
};

// What the rewritten dot reads for one side: `instr` when it exists, else a
// transpose of `base` by `permutation` the rewrite adds; and that operand's
// batch and contracting dimensions.
struct Plan {
  HloInstruction* instr = nullptr;
  HloInstruction* base = nullptr;
  std::vector<int64_t> permutation;
  std::vector<int64_t> batch, contracting;
  // Operands this plan copies: the transpose it adds, or a transpose it
  // reads, which is then stored (ResolveGemmOperand looks only through one
  // of the two minor dimensions).
  int copies = 0;
};

bool IsStoredTranspose(const HloInstruction* operand) {
  return operand->opcode() == HloOpcode::kTranspose &&
         !gpu::ResolveGemmOperand(operand).transposed;
}

std::vector<int64_t> Permuted(const std::vector<int64_t>& values,
                              const std::vector<int64_t>& order) {
  std::vector<int64_t> permuted;
  for (int64_t i : order) permuted.push_back(values[i]);
  return permuted;
}

// The operand of transpose `t` that holds t's dimension d.
std::vector<int64_t> ThroughTranspose(const HloInstruction& t,
                                      const std::vector<int64_t>& dims) {
  std::vector<int64_t> mapped;
  for (int64_t d : dims) mapped.push_back(t.dimensions(d));
  return mapped;
}

bool IsMinorSwap(const std::vector<int64_t>& permutation) {
  const int64_t rank = permutation.size();
  if (rank < 2) return false;
  for (int64_t d = 0; d < rank - 2; ++d) {
    if (permutation[d] != d) return false;
  }
  return permutation[rank - 2] == rank - 1 && permutation[rank - 1] == rank - 2;
}

// The side read where it lies: through the operand's transpose when that
// keeps the free dimensions in order (so the dot's result is unchanged),
// else the operand itself; with the contracting pairs in `order`.
std::optional<Plan> ReadInPlace(const Side& side,
                                const std::vector<int64_t>& order) {
  std::vector<int64_t> contracting = Permuted(side.contracting, order);
  const HloInstruction& t = *side.operand;
  if (t.opcode() == HloOpcode::kTranspose) {
    std::vector<int64_t> free = ThroughTranspose(t, side.Free());
    std::vector<int64_t> through = ThroughTranspose(t, contracting);
    HloInstruction* source = side.operand->mutable_operand(0);
    if (std::is_sorted(free.begin(), free.end()) &&
        gpu::IsGemmMatrix(gpu::GemmOperandView(source), free, through,
                          side.is_lhs)) {
      return Plan{source, nullptr, {}, ThroughTranspose(t, side.batch),
                  through};
    }
  }
  if (gpu::IsGemmMatrix(gpu::GemmOperandView(side.operand), side.Free(),
                        contracting, side.is_lhs)) {
    return Plan{side.operand, nullptr,      {},
                side.batch,   contracting, IsStoredTranspose(side.operand)};
  }
  return std::nullopt;
}

// The side as a transposed copy, row-major with batch dimensions first and
// then the matrix, as is or transposed. A copy that would swap only the
// two minor dimensions of its source is not stored (the gemm reads through
// it, ResolveGemmOperand), so its strides are those of the source: orders
// whose reading does not fit are skipped.
std::optional<Plan> Copy(const Side& side, const std::vector<int64_t>& order) {
  const std::vector<int64_t> free = side.Free();
  const std::vector<int64_t> contracting = Permuted(side.contracting, order);
  std::vector<std::vector<int64_t>> batch_orders = {side.batch};
  if (side.batch.size() > 1) {
    batch_orders.emplace_back(side.batch.rbegin(), side.batch.rend());
  }
  for (const std::vector<int64_t>& batch : batch_orders) {
    for (bool free_first : {side.is_lhs, !side.is_lhs}) {
      std::vector<int64_t> target = free_first
                                        ? Concat(batch, free, contracting)
                                        : Concat(batch, contracting, free);
      Plan plan;
      plan.base = side.operand;
      plan.permutation = target;
      if (side.operand->opcode() == HloOpcode::kTranspose) {
        plan.base = side.operand->mutable_operand(0);
        plan.permutation = ThroughTranspose(*side.operand, target);
      }
      auto position = [&](int64_t d) {
        return std::find(target.begin(), target.end(), d) - target.begin();
      };
      std::vector<int64_t> new_free;
      for (int64_t d : side.batch) plan.batch.push_back(position(d));
      for (int64_t d : contracting) plan.contracting.push_back(position(d));
      for (int64_t d : free) new_free.push_back(position(d));
      gpu::StridedArray view;
      plan.copies = 1;
      if (IsIdentityPermutation(plan.permutation)) {
        plan.instr = plan.base;
        plan.copies = 0;
        view = gpu::GemmOperandView(plan.base);
      } else if (IsMinorSwap(plan.permutation)) {
        view = gpu::RowMajorArray(plan.base->shape().dimensions());
        const size_t rank = view.dims.size();
        std::swap(view.dims[rank - 1], view.dims[rank - 2]);
        std::swap(view.strides[rank - 1], view.strides[rank - 2]);
      } else {
        view = gpu::RowMajorArray(
            Permuted(plan.base->shape().dimensions(), plan.permutation));
      }
      if (gpu::IsGemmMatrix(view, new_free, plan.contracting, side.is_lhs)) {
        return plan;
      }
    }
  }
  return std::nullopt;
}

// Contracting pair orders worth trying: as written, and sorted by each
// readable form's strides so that its contracting dimensions chain.
std::vector<std::vector<int64_t>> PairOrders(const Side& lhs,
                                             const Side& rhs) {
  const int64_t pairs = lhs.contracting.size();
  std::vector<int64_t> identity(pairs);
  for (int64_t i = 0; i < pairs; ++i) identity[i] = i;
  std::vector<std::vector<int64_t>> orders = {identity};
  auto add_sorted = [&](const gpu::StridedArray& view,
                        const std::vector<int64_t>& contracting) {
    std::vector<int64_t> order = identity;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return view.strides[contracting[a]] > view.strides[contracting[b]];
    });
    if (std::find(orders.begin(), orders.end(), order) == orders.end()) {
      orders.push_back(order);
    }
  };
  for (const Side* side : {&lhs, &rhs}) {
    add_sorted(gpu::GemmOperandView(side->operand), side->contracting);
    if (side->operand->opcode() == HloOpcode::kTranspose) {
      add_sorted(gpu::GemmOperandView(side->operand->operand(0)),
                 ThroughTranspose(*side->operand, side->contracting));
    }
  }
  return orders;
}

// Rewrites `dot` so that the gemm reads both operands in place, through an
// operand's transpose or through a copy of one operand, with as few copies
// as possible. Returns whether some form fits (`dot` is left alone when it
// already had the best one).
bool RewriteForStridedGemm(HloInstruction* dot, NameUniquer& names) {
  const DotDimensionNumbers& dnums = dot->dot_dimension_numbers();
  Side lhs{dot->mutable_operand(0), dnums.lhs_batch_dimensions,
           dnums.lhs_contracting_dimensions, true};
  Side rhs{dot->mutable_operand(1), dnums.rhs_batch_dimensions,
           dnums.rhs_contracting_dimensions, false};
  std::optional<std::pair<Plan, Plan>> best;
  for (const std::vector<int64_t>& order : PairOrders(lhs, rhs)) {
    std::optional<Plan> l = ReadInPlace(lhs, order);
    if (!l.has_value()) l = Copy(lhs, order);
    std::optional<Plan> r = ReadInPlace(rhs, order);
    if (!r.has_value()) r = Copy(rhs, order);
    if (!l.has_value() || !r.has_value()) continue;
    if (!best.has_value() || l->copies + r->copies <
                                 best->first.copies + best->second.copies) {
      best.emplace(*l, *r);
    }
  }
  if (!best.has_value()) return false;
  auto& [l, r] = *best;
  if (l.instr == lhs.operand && r.instr == rhs.operand &&
      l.contracting == lhs.contracting && r.contracting == rhs.contracting) {
    return true;  // Already the best form.
  }
  HloComputation* computation = dot->parent();
  auto operand = [&](Plan& plan) {
    if (plan.instr == nullptr) {
      plan.instr = AddTranspose(computation, plan.base, plan.permutation,
                                names.Get(plan.base->name() + ".gemm_order"));
    }
    return plan.instr;
  };
  HloInstruction* gemm = CloneInstruction(computation, *dot,
                                          {operand(l), operand(r)},
                                          names.Get(dot->name() + ".gemm"));
  DotDimensionNumbers strided;
  strided.lhs_batch_dimensions = l.batch;
  strided.lhs_contracting_dimensions = l.contracting;
  strided.rhs_batch_dimensions = r.batch;
  strided.rhs_contracting_dimensions = r.contracting;
  gemm->set_dot_dimension_numbers(strided);
  dot->ReplaceAllUsesWith(gemm);
  VLOG(3) << dot->name() << " reads " << l.instr->name() << " and "
          << r.instr->name() << " (" << l.copies + r.copies << " copies)";
  return true;
}

absl::Status CheckCanonicalDot(const HloInstruction& dot) {
  return gpu::FoldDotIntoGemm(dot.dot_dimension_numbers(),
                              gpu::GemmOperandView(dot.operand(0)),
                              gpu::GemmOperandView(dot.operand(1)))
      .status();
}

}  // namespace

bool IsCanonicalDot(const HloInstruction& dot) {
  return CheckCanonicalDot(dot).ok();
}

absl::Status CanonicalizeDots(HloModule* module) {
  NameUniquer names(*module);
  int64_t in_place = 0, flattened = 0;
  for (HloComputation* computation : ExecutedComputations(*module)) {
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      if (instr->opcode() != HloOpcode::kDot) continue;
      // A transpose operand is read through when it can be, even by a dot
      // that could read it as stored: stored, it is a copy.
      if (IsCanonicalDot(*instr) && !IsStoredTranspose(instr->operand(0)) &&
          !IsStoredTranspose(instr->operand(1))) {
        continue;
      }
      if (RewriteForStridedGemm(instr, names)) {
        ++in_place;
      } else {
        Flatten(instr, names);
        ++flattened;
      }
    }
    computation->RemoveDeadInstructions();
    for (const HloInstruction* instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kDot) continue;
      absl::Status status = CheckCanonicalDot(*instr);
      if (!status.ok()) {
        return absl::InternalError(absl::StrCat(
            "dot ", instr->name(), " is not a gemm after canonicalization: ",
            status.message()));
      }
    }
  }
  VLOG(1) << module->name() << ": " << in_place
          << " dots read in place or through copies, " << flattened
          << " flattened";
  return absl::OkStatus();
}

}  // namespace xla_lite
