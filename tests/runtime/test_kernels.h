#ifndef TESTS_RUNTIME_TEST_KERNELS_H_
#define TESTS_RUNTIME_TEST_KERNELS_H_

// Kernels for runtime tests, each with CUDA C source and a host closure
// that compute the same thing. Sizes and constants are baked into the
// kernel, as the compiler's emitter does.

#include <cstdint>

#include "stream_executor/kernel.h"

namespace xla_lite::testing {

// z[i, j] = max(y[i, j] + bias[j], 0) * scale[j] for y, z of [m, n].
// Arguments: y, bias, scale, z.
se::KernelSpec BiasReluScaleKernel(int64_t m, int64_t n);

// sums[j] += sum_i z[i, j] for z of [m, n]. Arguments: z, sums.
se::KernelSpec ColumnSumKernel(int64_t m, int64_t n);

// out[i] = a * x[i] + y[i] for i < n; `out` may be `x`. Arguments: x, y, out.
se::KernelSpec AxpyKernel(int64_t n, float a);

// counter[0] += 1 for an s32 counter. Arguments: counter.
se::KernelSpec IncrementKernel();

// pred[0] = i[0] < n[0] for s32 i and n and a 1-byte pred. Arguments: i,
// n, pred.
se::KernelSpec LessThanKernel();

}  // namespace xla_lite::testing

#endif  // TESTS_RUNTIME_TEST_KERNELS_H_
