// Broadcast, iota, reshape, transpose, slice, reverse, concatenate, pad and
// constants: index arithmetic inside fused kernels, on every platform,
// against the HloEvaluator.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"

namespace xla_lite::testing {
namespace {

using DataMovementTest = CompilerTest;

TEST_P(DataMovementTest, BroadcastIntoEachDimension) {
  // out[4,5,6]; the operand keeps the listed dimensions.
  struct Case {
    const char* operand;
    const char* dims;
  };
  for (const Case& c : std::vector<Case>{{"f32[]", "{}"},
                                         {"f32[4]", "{0}"},
                                         {"f32[5]", "{1}"},
                                         {"f32[6]", "{2}"},
                                         {"f32[4,6]", "{0,2}"},
                                         {"f32[5,6]", "{1,2}"},
                                         {"f32[4,5]", "{0,1}"}}) {
    SCOPED_TRACE(absl::StrCat(c.operand, " dims=", c.dims));
    ExpectMatchesEvaluator(absl::StrFormat(R"(
HloModule broadcast

ENTRY main {
  x = %s parameter(0)
  y = f32[4,5,6] parameter(1)
  b = f32[4,5,6] broadcast(x), dimensions=%s
  ROOT r = f32[4,5,6] multiply(b, y)
})",
                                           c.operand, c.dims));
  }
}

TEST_P(DataMovementTest, IotaAlongEachDimension) {
  for (const char* type : {"s32", "f32"}) {
    for (int d = 0; d < 3; ++d) {
      SCOPED_TRACE(absl::StrCat(type, " iota_dimension=", d));
      ExpectMatchesEvaluator(absl::StrFormat(R"(
HloModule iota

ENTRY main {
  x = %s[3,4,5] parameter(0)
  i = %s[3,4,5] iota(), iota_dimension=%d
  ROOT r = %s[3,4,5] add(i, x)
})",
                                             type, type, d, type),
                             -5, 5);
    }
  }
}

TEST_P(DataMovementTest, NonSquareTransposes) {
  ExpectMatchesEvaluator(R"(
HloModule transpose2d

ENTRY main {
  x = f32[3,7] parameter(0)
  y = f32[7,3] parameter(1)
  t = f32[7,3] transpose(x), dimensions={1,0}
  ROOT r = f32[7,3] subtract(t, y)
})");
  for (std::vector<int64_t> perm : std::vector<std::vector<int64_t>>{
           {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}) {
    int64_t in[3] = {2, 3, 5};
    std::vector<int64_t> out;
    for (int64_t d : perm) out.push_back(in[d]);
    SCOPED_TRACE(absl::StrJoin(perm, ","));
    ExpectMatchesEvaluator(absl::StrFormat(R"(
HloModule transpose3d

ENTRY main {
  x = f32[2,3,5] parameter(0)
  ROOT t = f32[%s] transpose(x), dimensions={%s}
})",
                                           absl::StrJoin(out, ","),
                                           absl::StrJoin(perm, ",")));
  }
}

TEST_P(DataMovementTest, ReshapeBetweenFusedOps) {
  ExpectMatchesEvaluator(R"(
HloModule reshape

ENTRY main {
  x = f32[4,6] parameter(0)
  y = f32[2,12] parameter(1)
  e = f32[4,6] exponential(x)
  r = f32[2,12] reshape(e)
  t = f32[12,2] transpose(r), dimensions={1,0}
  z = f32[24] reshape(t)
  w = f32[24] reshape(y)
  ROOT s = f32[24] add(z, w)
})");
}

TEST_P(DataMovementTest, SliceAndReverse) {
  ExpectMatchesEvaluator(R"(
HloModule slice

ENTRY main {
  x = f32[10,8] parameter(0)
  ROOT s = f32[4,6] slice(x), slice={[2:9:2], [1:7]}
})");
  for (const char* dims : {"{0}", "{1}", "{0,1}"}) {
    SCOPED_TRACE(dims);
    ExpectMatchesEvaluator(absl::StrFormat(R"(
HloModule reverse

ENTRY main {
  x = f32[5,9] parameter(0)
  y = f32[5,9] parameter(1)
  r = f32[5,9] reverse(x), dimensions=%s
  ROOT s = f32[5,9] multiply(r, y)
})",
                                           dims));
  }
}

TEST_P(DataMovementTest, ConcatenateTwoOperandsAlongEachDimension) {
  // a[2,3,4] and b (3 along dimension d), multiplied by a third parameter
  // in the same kernel.
  for (int d = 0; d < 3; ++d) {
    std::vector<int64_t> b_dims = {2, 3, 4}, out_dims = {2, 3, 4};
    b_dims[d] = 3;
    out_dims[d] += 3;
    SCOPED_TRACE(absl::StrCat("dimension ", d));
    ExpectMatchesEvaluator(absl::StrFormat(R"(
HloModule concatenate2

ENTRY main {
  a = f32[2,3,4] parameter(0)
  b = f32[%s] parameter(1)
  y = f32[%s] parameter(2)
  c = f32[%s] concatenate(a, b), dimensions={%d}
  ROOT r = f32[%s] multiply(c, y)
})",
                                           absl::StrJoin(b_dims, ","),
                                           absl::StrJoin(out_dims, ","),
                                           absl::StrJoin(out_dims, ","), d,
                                           absl::StrJoin(out_dims, ",")));
  }
}

TEST_P(DataMovementTest, ConcatenateThreeFusedOperands) {
  // The attention backward's q/k/v gradients joined along the last
  // dimension; each operand is itself a fused expression, and the result
  // feeds a gemm and a reduction, as in the transformer exports.
  ExpectMatchesEvaluator(R"(
HloModule concatenate3

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  q = f32[2,4,3] parameter(0)
  k = f32[2,4,3] parameter(1)
  v = f32[2,4,5] parameter(2)
  w = f32[11,6] parameter(3)
  eq = f32[2,4,3] exponential(q)
  nk = f32[2,4,3] negate(k)
  tv = f32[2,4,5] tanh(v)
  c = f32[2,4,11] concatenate(eq, nk, tv), dimensions={2}
  d = f32[2,4,6] dot(c, w), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  s = f32[11] reduce(c, z), dimensions={0,1}, to_apply=add
  ROOT r = (f32[2,4,6], f32[11]) tuple(d, s)
})");
}

TEST_P(DataMovementTest, PadForms) {
  // Edges, negative edges (cropping), interior padding and all three at
  // once; the padding value is a parameter, the result feeds a fused
  // multiply.
  struct Case {
    const char* padding;
    const char* out;
  };
  for (const Case& c : std::vector<Case>{{"2_1x0_3", "7,8"},
                                         {"-1_0x-2_-1", "3,2"},
                                         {"0_0_2x0_0_1", "10,9"},
                                         {"1_-2_1x-3_2_2", "6,12"}}) {
    SCOPED_TRACE(c.padding);
    ExpectMatchesEvaluator(absl::StrFormat(R"(
HloModule pad

ENTRY main {
  x = f32[4,5] parameter(0)
  v = f32[] parameter(1)
  y = f32[%s] parameter(2)
  e = f32[4,5] exponential(x)
  p = f32[%s] pad(e, v), padding=%s
  ROOT r = f32[%s] multiply(p, y)
})",
                                           c.out, c.out, c.padding, c.out));
  }
}

TEST_P(DataMovementTest, CausalMaskFromIotas) {
  // tril: iotas broadcast along either dimension, compared, selected.
  ExpectMatchesEvaluator(R"(
HloModule tril

ENTRY main {
  x = f32[6,6] parameter(0)
  i = s32[6] iota(), iota_dimension=0
  rows = s32[6,6] broadcast(i), dimensions={0}
  cols = s32[6,6] broadcast(i), dimensions={1}
  ge = pred[6,6] compare(rows, cols), direction=GE
  big = f32[] constant(-1e9)
  masked = f32[6,6] broadcast(big), dimensions={}
  ROOT r = f32[6,6] select(ge, x, masked)
})");
}

TEST_P(DataMovementTest, ArrayAndScalarConstants) {
  ExpectMatchesEvaluator(R"(
HloModule constants

ENTRY main {
  x = f32[2,3] parameter(0)
  c = f32[2,3] constant({{1, -2, 3.5}, {0.25, 8, -1}})
  s = f32[] constant(-0.75)
  b = f32[2,3] broadcast(s), dimensions={}
  m = f32[2,3] multiply(x, c)
  ROOT r = f32[2,3] add(m, b)
})");
}

TEST_P(DataMovementTest, ResultsThatAreParametersOrConstants) {
  ExpectMatchesEvaluator(R"(
HloModule passthrough

ENTRY main {
  x = f32[8] parameter(0)
  c = f32[3] constant({1, 2, 3})
  n = f32[8] negate(x)
  ROOT r = (f32[8], f32[3], f32[8], f32[8]) tuple(x, c, n, n)
})");
}

TEST_P(DataMovementTest, EntryLayoutsThatAreNotRowMajorAreTransposed) {
  // Parameter 0 and result 0 are stored column-major, parameter 1 with its
  // middle dimension most minor; the rest is row-major.
  constexpr char kLayouts[] = R"(
HloModule layouts, entry_computation_layout={(f32[4,6]{0,1}, f32[2,3,5]{1,2,0})->(f32[4,6]{0,1}, f32[2,3,5]{2,1,0}, f32[6,4]{1,0})}

ENTRY main {
  a = f32[4,6]{0,1} parameter(0)
  b = f32[2,3,5]{1,2,0} parameter(1)
  e = f32[4,6]{0,1} exponential(a)
  n = f32[2,3,5]{2,1,0} negate(b)
  t = f32[6,4]{1,0} transpose(a), dimensions={1,0}
  ROOT r = (f32[4,6]{0,1}, f32[2,3,5]{2,1,0}, f32[6,4]{1,0}) tuple(e, n, t)
})";
  ExpectMatchesEvaluator(kLayouts);
  // Callers see the arrays as stored: dimensions major to minor.
  auto executable = Compile(kLayouts);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const gpu::EntrySignature& signature = (*executable)->signature();
  EXPECT_EQ(signature.parameter_shapes[0].dimensions(),
            (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(signature.parameter_shapes[1].dimensions(),
            (std::vector<int64_t>{2, 5, 3}));
  EXPECT_EQ(signature.output_shapes[0].dimensions(),
            (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(signature.output_shapes[2].dimensions(),
            (std::vector<int64_t>{6, 4}));
}

INSTANTIATE_FOR_ALL_PLATFORMS(DataMovementTest);

}  // namespace
}  // namespace xla_lite::testing
