#ifndef TESTS_RUNTIME_TRAIN_STEP_PROGRAM_H_
#define TESTS_RUNTIME_TRAIN_STEP_PROGRAM_H_

// A program shaped like a training step, with a plain C++ reference, for the
// cached-allocation and parameter-stabilization tests:
//
//   step(x[M,K], w[K,N], b[N]) -> (w', b', loss[N])
//     y = x @ w                       gemm (traced in command buffers)
//     z = max(y + b, 0) * scale       kernel; scale is a constant
//     g = x^T @ z                     gemm
//     s = 0; s[j] += sum_i z[i, j]    memset, kernel
//     w' = w - lr * g                 kernel, in place: w' aliases w
//     b' = b - lr * s                 kernel, in place: b' aliases b
//     loss = s                        memcpy into a live-out output
//
// w and b are the parameters a training loop donates and feeds back; x is
// the batch, whose buffer a loop may replace every step. y, z, g and s are
// slices of one temp allocation.

#include <cstdint>
#include <vector>

#include "xla_lite/runtime/gpu_executable.h"

namespace xla_lite::testing {

inline constexpr int64_t kStepM = 32, kStepK = 48, kStepN = 24;
inline constexpr float kStepLearningRate = 0.01f;

enum TrainStepAllocation : int64_t {
  kStepX,
  kStepW,
  kStepB,
  kStepScale,
  kStepTemp,
  kStepLoss,
};

// Parameter numbers.
inline constexpr int64_t kStepParamX = 0, kStepParamW = 1, kStepParamB = 2;

// The executable's parameters with thunks scheduled into command buffers
// as `options` say (the options are also the executable's).
gpu::GpuExecutable::Params TrainStepParams(const DebugOptions& options);

struct TrainStepState {
  std::vector<float> w, b, loss;
};

// One step of the reference.
TrainStepState TrainStepReference(const std::vector<float>& x,
                                  const TrainStepState& state);

}  // namespace xla_lite::testing

#endif  // TESTS_RUNTIME_TRAIN_STEP_PROGRAM_H_
