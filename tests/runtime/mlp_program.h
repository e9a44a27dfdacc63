#ifndef TESTS_RUNTIME_MLP_PROGRAM_H_
#define TESTS_RUNTIME_MLP_PROGRAM_H_

// A small program that uses every recordable thunk kind, with a plain C++
// reference, for command buffer tests:
//
//   f(x[M,K], w[K,N], b[N]) = (z, sums, last_row) where
//     y = x @ w                             gemm, into a temp past a gap
//     z = max(y + b, 0) * scale             kernel; scale is a constant
//     sums = 0; sums[j] += sum_i z[i, j]    byte memset, kernel
//     last_row = z[M - 1, :]                memcpy
//
// Allocation indices are the MlpAllocation values.

#include <cstdint>
#include <random>
#include <vector>

#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/execution_input.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::testing {

inline constexpr int64_t kMlpM = 32, kMlpK = 48, kMlpN = 24;
inline constexpr int64_t kMlpTempOffset = 256;

enum MlpAllocation : int64_t {
  kMlpX,
  kMlpW,
  kMlpB,
  kMlpScale,
  kMlpTemp,
  kMlpZ,
  kMlpSums,
  kMlpLastRow,
  kMlpAllocationCount,
};

// Thunks in program order: gemm, bias_relu_scale, zero, column_sum,
// last_row.
struct MlpProgram {
  std::vector<gpu::BufferAllocation> allocations;
  gpu::ThunkSequence thunks;
};

// `bias_kernel` is the second thunk's kernel; tests of failure paths pass
// one that cannot load.
MlpProgram BuildMlpProgram(
    se::KernelSpec bias_kernel = BiasReluScaleKernel(kMlpM, kMlpN));

// The program as an executable over `thunks` (the program's own, or a
// schedule of them); x, w and b are its parameters.
gpu::GpuExecutable::Params MlpExecutableParams(MlpProgram program);

std::vector<float> MlpScale();

struct MlpResults {
  std::vector<float> z, sums, last_row;
};

MlpResults MlpReference(const std::vector<float>& x,
                        const std::vector<float>& w,
                        const std::vector<float>& b);

// Fixture for suites that execute the program: random arguments uploaded to
// the test's device.
class MlpTest : public RuntimeTest {
 protected:
  struct Arguments {
    std::vector<float> x, w, b;
    se::ScopedDeviceAddress dx, dw, db;
    std::vector<gpu::ExecutionInput> Borrowed() const {
      std::vector<gpu::ExecutionInput> inputs;
      inputs.push_back(gpu::ExecutionInput::Borrowed(dx.cref()));
      inputs.push_back(gpu::ExecutionInput::Borrowed(dw.cref()));
      inputs.push_back(gpu::ExecutionInput::Borrowed(db.cref()));
      return inputs;
    }
  };

  Arguments RandomArguments(std::mt19937& rng) {
    Arguments args;
    args.x = RandomFloats(kMlpM * kMlpK, rng);
    args.w = RandomFloats(kMlpK * kMlpN, rng);
    args.b = RandomFloats(kMlpN, rng);
    args.dx = Upload(args.x);
    args.dw = Upload(args.w);
    args.db = Upload(args.b);
    return args;
  }
};

}  // namespace xla_lite::testing

#endif  // TESTS_RUNTIME_MLP_PROGRAM_H_
