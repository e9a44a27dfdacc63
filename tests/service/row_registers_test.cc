// Which index ops of a row kernel's stages address the thread's own
// elements of the row, or the row itself (ClassifyRowAccess): only those
// reads may be handed on in registers.

#include "xla_lite/service/row_registers.h"

#include <vector>

#include "gtest/gtest.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu::cuda_internal {
namespace {

// A remap of `sources` (index op ids over `source_dims`) onto `target`,
// dimension t copying coordinate dims[t].second of source dims[t].first.
ExprOp Remap(std::vector<int> sources,
             std::vector<std::vector<int64_t>> source_dims,
             std::vector<int64_t> target,
             std::vector<std::pair<int, int64_t>> dims) {
  ExprOp op;
  op.kind = ExprKind::kIndexRemap;
  op.operands = std::move(sources);
  op.remap.sources = std::move(source_dims);
  op.remap.target = std::move(target);
  for (const auto& [source, dim] : dims) {
    IndexRemap::Dim d;
    d.source = source;
    d.dim = dim;
    op.remap.dims.push_back(d);
  }
  return op;
}

ExprOp IndexOp(ExprKind kind) {
  ExprOp op;
  op.kind = kind;
  return op;
}

TEST(ClassifyRowAccessTest, LoopStageElementsAndRows) {
  // A loop stage over 6 rows of 8: i is the element; x[6,8] read as
  // itself is too, its row's value m[6] is the row, and reads that move
  // across rows or within them are neither.
  KernelProgram program(KernelProgram::Kind::kLoop);
  const int i = program.Add(IndexOp(ExprKind::kIndex));
  const int same = program.Add(Remap({i}, {{6, 8}}, {6, 8}, {{0, 0}, {0, 1}}));
  const int row = program.Add(Remap({i}, {{6, 8}}, {6}, {{0, 0}}));
  const int column = program.Add(Remap({i}, {{6, 8}}, {8}, {{0, 1}}));
  const int transposed =
      program.Add(Remap({i}, {{6, 8}}, {8, 6}, {{0, 1}, {0, 0}}));
  const int unit_dims =
      program.Add(Remap({i}, {{6, 1, 8}}, {1, 6, 8}, {{0, 1}, {0, 0}, {0, 2}}));
  ExprOp shifted = Remap({i}, {{6, 8}}, {6, 8}, {{0, 0}, {0, 1}});
  shifted.remap.dims[1].offset = 1;
  const int moved = program.Add(shifted);
  EXPECT_EQ(ClassifyRowAccess(program, i, 8), RowAccess::kElement);
  EXPECT_EQ(ClassifyRowAccess(program, same, 8), RowAccess::kElement);
  EXPECT_EQ(ClassifyRowAccess(program, unit_dims, 8), RowAccess::kElement);
  EXPECT_EQ(ClassifyRowAccess(program, row, 8), RowAccess::kRow);
  // Rows of another length: the same division names another row.
  EXPECT_EQ(ClassifyRowAccess(program, row, 4), RowAccess::kOther);
  EXPECT_EQ(ClassifyRowAccess(program, column, 8), RowAccess::kOther);
  EXPECT_EQ(ClassifyRowAccess(program, transposed, 8), RowAccess::kOther);
  EXPECT_EQ(ClassifyRowAccess(program, moved, 8), RowAccess::kOther);
}

TEST(ClassifyRowAccessTest, ReduceStageElementsAndRows) {
  // A reduce stage over rows of 8 of x[6,8]: i is the row and r the
  // element within it.
  KernelProgram program(KernelProgram::Kind::kReduce);
  const int i = program.Add(IndexOp(ExprKind::kIndex));
  const int r = program.Add(IndexOp(ExprKind::kReduceIndex));
  const int element =
      program.Add(Remap({i, r}, {{6}, {8}}, {6, 8}, {{0, 0}, {1, 0}}));
  const int swapped =
      program.Add(Remap({i, r}, {{6}, {8}}, {8, 6}, {{1, 0}, {0, 0}}));
  // The element's row, through the element (a broadcast read back).
  const int row_of_element =
      program.Add(Remap({element}, {{6, 8}}, {6}, {{0, 0}}));
  const int row = program.Add(Remap({i}, {{6}}, {6}, {{0, 0}}));
  EXPECT_EQ(ClassifyRowAccess(program, i, 8), RowAccess::kRow);
  EXPECT_EQ(ClassifyRowAccess(program, r, 8), RowAccess::kOther);
  EXPECT_EQ(ClassifyRowAccess(program, element, 8), RowAccess::kElement);
  EXPECT_EQ(ClassifyRowAccess(program, swapped, 8), RowAccess::kOther);
  EXPECT_EQ(ClassifyRowAccess(program, row_of_element, 8), RowAccess::kRow);
  EXPECT_EQ(ClassifyRowAccess(program, row, 8), RowAccess::kRow);
}

TEST(UnrolledTripsTest, CountsWhatTheStridedLoopUnrolls) {
  EXPECT_EQ(UnrolledTrips(128, 32), 4);
  EXPECT_EQ(UnrolledTrips(128, 128), 1);
  EXPECT_EQ(UnrolledTrips(256, 32), 8);
  EXPECT_EQ(UnrolledTrips(512, 32), 0);  // Past kMaxUnrolledTrips.
  EXPECT_EQ(UnrolledTrips(33, 64), 0);   // 0 or 1 trips, by lane.
  EXPECT_EQ(UnrolledTrips(0, 32), 0);
}

}  // namespace
}  // namespace xla_lite::gpu::cuda_internal
