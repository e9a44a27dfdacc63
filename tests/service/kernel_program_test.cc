// Which ops of a kernel program depend on the element (ElementOps): what
// a loop may compute once, before it starts, is exactly the rest.

#include "xla_lite/service/kernel_program.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace xla_lite::gpu {
namespace {

ExprOp Op(ExprKind kind, std::vector<int> operands = {}) {
  ExprOp op;
  op.kind = kind;
  op.operands = std::move(operands);
  return op;
}

// A remap of index `source` over `source_dims` onto `target`; dimension t
// reads source coordinate dims[t] (-1: none) with `scale`.
ExprOp Remap(int source, std::vector<int64_t> source_dims,
             std::vector<int64_t> target, std::vector<int64_t> dims,
             int64_t scale = 1) {
  ExprOp op = Op(ExprKind::kIndexRemap, {source});
  op.remap.sources = {std::move(source_dims)};
  op.remap.target = std::move(target);
  for (int64_t dim : dims) {
    IndexRemap::Dim d;
    d.source = dim < 0 ? -1 : 0;
    d.dim = dim < 0 ? 0 : dim;
    d.scale = scale;
    op.remap.dims.push_back(d);
  }
  return op;
}

ExprOp Load(int input, int index) {
  ExprOp op = Op(ExprKind::kLoad, {index});
  op.input = input;
  return op;
}

TEST(ElementOpsTest, ScalarsAndWhatIsComputedFromThemAreTheSameForEveryElement) {
  // y[4,8] = x[4,8] * (1 / s) + c[8]: the scalar s, read through a remap
  // onto no dimensions, and its quotient do not depend on the element; x
  // and the broadcast row c do.
  KernelProgram program(KernelProgram::Kind::kLoop);
  const int i = program.Add(Op(ExprKind::kIndex));
  const int scalar_index = program.Add(Remap(i, {4, 8}, {}, {}));
  const int s = program.Add(Load(1, scalar_index));
  ExprOp one = Op(ExprKind::kConstant);
  one.value = 1;
  const int constant = program.Add(one);
  const int quotient =
      program.Add(Op(ExprKind::kBinary, {constant, s}));
  const int x = program.Add(Load(0, i));
  const int scaled = program.Add(Op(ExprKind::kBinary, {x, quotient}));
  const int column_index = program.Add(Remap(i, {4, 8}, {8}, {1}));
  const int c = program.Add(Load(2, column_index));
  const int y = program.Add(Op(ExprKind::kBinary, {scaled, c}));
  // A dimension that reads no source names the same element too. One
  // that reads a source counts as the element's, whatever its scale: the
  // emitter writes its coordinate from the index.
  const int no_source = program.Add(Remap(i, {4, 8}, {1}, {-1}));
  const int zero_scale = program.Add(Remap(i, {4, 8}, {4}, {0}, 0));

  const std::vector<bool> element = program.ElementOps();
  for (int id : {scalar_index, s, constant, quotient, no_source}) {
    EXPECT_FALSE(element[id]) << program.op(id).ToString(id);
  }
  for (int id : {i, x, scaled, column_index, c, y, zero_scale}) {
    EXPECT_TRUE(element[id]) << program.op(id).ToString(id);
  }
}

TEST(ElementOpsTest, ReduceIndicesAndReducedValuesDependOnTheElement) {
  KernelProgram program(KernelProgram::Kind::kReduce);
  const int r = program.Add(Op(ExprKind::kReduceIndex));
  const int reduced = program.Add(Op(ExprKind::kReducedValue));
  ExprOp two = Op(ExprKind::kConstant);
  two.value = 2;
  const int constant = program.Add(two);
  const int halved = program.Add(Op(ExprKind::kBinary, {reduced, constant}));
  const std::vector<bool> element = program.ElementOps();
  EXPECT_TRUE(element[r]);
  EXPECT_TRUE(element[reduced]);
  EXPECT_TRUE(element[halved]);
  EXPECT_FALSE(element[constant]);
}

}  // namespace
}  // namespace xla_lite::gpu
