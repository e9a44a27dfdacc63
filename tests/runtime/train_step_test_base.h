#ifndef TESTS_RUNTIME_TRAIN_STEP_TEST_BASE_H_
#define TESTS_RUNTIME_TRAIN_STEP_TEST_BASE_H_

// A fixture that runs the training-step program (train_step_program.h) in a
// loop, as a training script would: w and b donated and fed back, a batch
// per step placed in a new buffer, the same buffer, or the executable's
// stable buffer.

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/train_step_program.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/runtime/execution_stats.h"
#include "xla_lite/runtime/gpu_executable.h"

namespace xla_lite::testing {

enum class BatchMode { kMoving, kFixed, kStaged };

DebugOptions StepOptions(bool cached_allocs,
                         DebugOptions::ParameterStabilization mode,
                         bool command_buffers = true);

class TrainStepTest : public RuntimeTest {
 protected:
  struct LoopResult {
    TrainStepState state;
    // After the second step, and after the last.
    gpu::ExecutionCounters after_step2, after_last;
  };

  std::vector<std::vector<float>> Batches(int64_t steps, uint32_t seed);
  TrainStepState InitialState(uint32_t seed);
  std::unique_ptr<gpu::GpuExecutable> Build(const DebugOptions& options);

  // Runs one step per batch from `initial`, on this fixture's stream with
  // `allocator` (the fixture's when null). Failures are test failures.
  LoopResult RunLoop(gpu::GpuExecutable& executable,
                     const std::vector<std::vector<float>>& batches,
                     const TrainStepState& initial, BatchMode mode,
                     se::DeviceAddressAllocator* allocator = nullptr);

  // The reference after all batches.
  static TrainStepState Reference(const std::vector<std::vector<float>>& batches,
                                  TrainStepState state);
};

// |a - b| <= tolerance * max(1, |b|) elementwise.
void ExpectNear(const std::vector<float>& actual,
                const std::vector<float>& expected, float tolerance);

}  // namespace xla_lite::testing

#endif  // TESTS_RUNTIME_TRAIN_STEP_TEST_BASE_H_
