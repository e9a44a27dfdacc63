#include "xla_lite/service/reduction_splitter.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "glog/logging.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite {
namespace {

// The first kernel should have at least this many outputs: with
// ReductionStrategy::kColumnRows threads per output that is enough threads
// to cover an H100 several times over.
constexpr int64_t kMinPartialOutputs = int64_t{1} << 14;
// Up to this many reduced rows one kernel is faster than two: its blocks
// of 1024 threads (cuda_emitter's wide column strips) each read 32 columns
// of these rows, at most 512 KB. On an H100 the medium transformer's bias
// and LayerNorm gradients (2048 rows of 256 to 1024 columns) took 2,155.9
// us a step split in two and 2,110.2 whole (bf16: 1,178.0 and 1,132.5).
// Past it a strip's rows take too long for one block: cnn_cifar's bias
// gradients over 16384 to 65536 rows, whole, took its step from 1,063.7
// to 1,164.1 us.
constexpr int64_t kMaxUnsplitRows = 4096;
// Each thread of the first kernel should fold at least a few rows.
constexpr int64_t kMinRowsPerPartial = 16;

// Whether `reduce` reduces exactly its operand's leading dimensions, of
// f32, with a reducer the kernels know; sets R and C.
bool IsColumnReduction(const HloInstruction& reduce, int64_t* rows,
                       int64_t* columns) {
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() != 2 ||
      !reduce.shape().IsArray() ||
      reduce.shape().element_type() != PrimitiveType::F32 ||
      !MatchReducer(reduce.to_apply()).has_value()) {
    return false;
  }
  const Shape& shape = reduce.operand(0)->shape();
  std::vector<int64_t> dims = reduce.dimensions();
  std::sort(dims.begin(), dims.end());
  if (dims.empty() || dims.size() >= shape.rank()) return false;
  *rows = 1;
  *columns = 1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    bool reduced = d < dims.size();
    if (reduced && dims[d] != d) return false;
    (reduced ? *rows : *columns) *= shape.dimensions(d);
  }
  return true;
}

// The value `reducer` leaves the other operand unchanged with: the partial
// reductions start from it, so the reduce's own init is applied once, by
// the second, as in the unsplit reduce.
std::optional<float> IdentityOf(HloOpcode reducer) {
  switch (reducer) {
    case HloOpcode::kAdd:
      return 0.0f;
    case HloOpcode::kMultiply:
      return 1.0f;
    case HloOpcode::kMaximum:
      return -std::numeric_limits<float>::infinity();
    case HloOpcode::kMinimum:
      return std::numeric_limits<float>::infinity();
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<int64_t> ColumnReductionSplit(int64_t rows, int64_t columns) {
  if (rows <= kMaxUnsplitRows || columns <= 0 ||
      columns >= kMinPartialOutputs / 4) {
    return std::nullopt;
  }
  int64_t want = (kMinPartialOutputs + columns - 1) / columns;
  // The divisor of `rows` nearest `want` that leaves each partial enough
  // rows.
  std::optional<int64_t> best;
  for (int64_t r1 = 2; r1 * kMinRowsPerPartial <= rows; ++r1) {
    if (rows % r1 != 0) continue;
    if (!best.has_value() || std::abs(r1 - want) < std::abs(*best - want)) {
      best = r1;
    }
  }
  return best;
}

absl::Status SplitColumnReductions(HloModule* module) {
  NameUniquer names(*module);
  int split = 0;
  for (HloComputation* computation : ExecutedComputations(*module)) {
    for (HloInstruction* reduce : computation->instructions()) {
      int64_t rows = 0, columns = 0;
      if (!IsColumnReduction(*reduce, &rows, &columns)) continue;
      std::optional<int64_t> r1 = ColumnReductionSplit(rows, columns);
      std::optional<float> identity =
          IdentityOf(*MatchReducer(reduce->to_apply()));
      if (!r1.has_value() || !identity.has_value()) continue;
      HloInstruction* operand = reduce->mutable_operand(0);
      HloInstruction* init = reduce->mutable_operand(1);
      const std::string& base = reduce->name();
      HloInstruction* rows3 =
          AddReshape(computation, operand, {*r1, rows / *r1, columns},
                     names.Get(base + ".rows"));
      HloInstruction* start =
          AddInstruction(computation, HloOpcode::kConstant,
                         Shape(PrimitiveType::F32, {}), {},
                         names.Get(base + ".identity"));
      start->set_literal(
          Literal::CreateR0<float>(PrimitiveType::F32, *identity));
      HloInstruction* partial = AddInstruction(
          computation, HloOpcode::kReduce,
          Shape(PrimitiveType::F32, {*r1, columns}), {rows3, start},
          names.Get(base + ".partial"));
      partial->set_dimensions({1});
      partial->set_to_apply(reduce->to_apply());
      HloInstruction* total = AddInstruction(
          computation, HloOpcode::kReduce, Shape(PrimitiveType::F32, {columns}),
          {partial, init}, names.Get(base + ".total"));
      total->set_dimensions({0});
      total->set_to_apply(reduce->to_apply());
      HloInstruction* result =
          reduce->shape().rank() == 1
              ? total
              : AddReshape(computation, total, reduce->shape().dimensions(),
                           names.Get(base + ".split"));
      reduce->ReplaceAllUsesWith(result);
      ++split;
    }
    computation->RemoveDeadInstructions();
  }
  VLOG(1) << "split " << split << " column reductions in two";
  return absl::OkStatus();
}

}  // namespace xla_lite
