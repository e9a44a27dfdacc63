#ifndef XLA_LITE_SERVICE_HLO_SIMPLIFIER_H_
#define XLA_LITE_SERVICE_HLO_SIMPLIFIER_H_

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// Local rewrites of the entry computation that leave less for fusion and
// emission to handle, repeated until none applies, then dead code removal:
//   get-tuple-element(tuple(...)) -> the element
//   bitcast of the same element type and count -> reshape (values are
//     logical row-major after layout normalization, so the two agree)
//   reshape(reshape(x)) -> reshape(x); transpose(transpose(x)) -> one
//   reshape, transpose, convert, broadcast, copy that change nothing -> x
//   convert(dot) to bf16 of a bf16 dot with an f32 result read only by the
//     convert -> the dot with a bf16 result (the same rounding, once)
//   reshape or transpose(convert(x)) widening bf16 or f16 to f32 ->
//     convert(reshape or transpose(x)), half the bytes moved
//   dot(convert(a), convert(b)) of bf16 a and b widened to f32 ->
//     dot(a, b) with the f32 result (exact products, f32 sums either way)
//   transpose(dot(a, b)) swapping the two operands' free dimensions ->
//     dot(b, a), of a dot read by nothing else (the gemm writes the
//     transposed result; weight gradients take this form); any other
//     that ends in a's last free dimension -> a transpose of dot(b, a)
//     that keeps the minor dimension, read in contiguous runs
//     (attention's per-head values)
//   reduce over dimensions of extent 1 only -> reducer(init, reshape(x)),
//     an elementwise op that fuses with its neighbours
absl::Status SimplifyHlo(HloModule* module);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_HLO_SIMPLIFIER_H_
