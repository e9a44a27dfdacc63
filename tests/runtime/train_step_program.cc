#include "tests/runtime/train_step_program.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "glog/logging.h"
#include "tests/runtime/mlp_program.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/memcpy_thunk.h"
#include "xla_lite/runtime/memset_thunk.h"
#include "xla_lite/service/command_buffer_scheduling.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::InputOutputAlias;

Shape F32(std::vector<int64_t> dims) {
  return Shape(PrimitiveType::F32, std::move(dims));
}

// Offsets of y, z, g and s in the temp allocation, 64-byte aligned.
constexpr int64_t kMN = kStepM * kStepN * 4, kKN = kStepK * kStepN * 4;
constexpr int64_t kY = 0, kZ = kY + kMN, kG = kZ + kMN, kS = kG + kKN;
constexpr int64_t kTempSize = kS + 128;

std::unique_ptr<gpu::Thunk> Gemm(const char* name, Shape lhs, bool t_lhs,
                                 Shape rhs, Shape out,
                                 BufferAllocation::Slice a,
                                 BufferAllocation::Slice b,
                                 BufferAllocation::Slice c) {
  auto config = gpu::GemmConfig::For(lhs, t_lhs, rhs, false, out, 1.0f, 0.0f);
  CHECK(config.ok()) << config.status();
  return std::make_unique<gpu::GemmThunk>(name, *config, a, b, c);
}

std::unique_ptr<gpu::Thunk> Kernel(const char* name, se::KernelSpec spec,
                                   int64_t threads,
                                   std::vector<BufferAllocation::Slice> args,
                                   std::vector<bool> written) {
  return std::make_unique<gpu::KernelThunk>(name, std::move(spec),
                                            se::LaunchDimensionsFor(threads),
                                            std::move(args), std::move(written));
}

gpu::ThunkSequence Thunks(const std::vector<BufferAllocation>& a) {
  BufferAllocation::Slice x = a[kStepX].GetSlice(), w = a[kStepW].GetSlice(),
                          b = a[kStepB].GetSlice();
  BufferAllocation::Slice y = a[kStepTemp].GetSlice(kY, kMN),
                          z = a[kStepTemp].GetSlice(kZ, kMN),
                          g = a[kStepTemp].GetSlice(kG, kKN),
                          s = a[kStepTemp].GetSlice(kS, kStepN * 4);
  Shape xs = F32({kStepM, kStepK}), ws = F32({kStepK, kStepN}),
        mn = F32({kStepM, kStepN});
  gpu::ThunkSequence thunks;
  thunks.push_back(Gemm("forward", xs, false, ws, mn, x, w, y));
  thunks.push_back(Kernel("bias_relu_scale",
                          BiasReluScaleKernel(kStepM, kStepN), kStepM * kStepN,
                          {y, b, a[kStepScale].GetSlice(), z},
                          {false, false, false, true}));
  thunks.push_back(Gemm("gradient", xs, true, mn, ws, x, z, g));
  thunks.push_back(std::make_unique<gpu::MemsetThunk>("zero", s, uint8_t{0}));
  thunks.push_back(Kernel("column_sum", ColumnSumKernel(kStepM, kStepN),
                          kStepN, {z, s}, {false, true}));
  thunks.push_back(Kernel("update_w",
                          AxpyKernel(kStepK * kStepN, -kStepLearningRate),
                          kStepK * kStepN, {g, w, w}, {false, false, true}));
  thunks.push_back(Kernel("update_b", AxpyKernel(kStepN, -kStepLearningRate),
                          kStepN, {s, b, b}, {false, false, true}));
  thunks.push_back(std::make_unique<gpu::MemcpyThunk>(
      "loss", s, a[kStepLoss].GetSlice()));
  return thunks;
}

}  // namespace

gpu::GpuExecutable::Params TrainStepParams(const DebugOptions& options) {
  std::vector<float> scale = MlpScale();
  std::vector<uint8_t> scale_bytes(scale.size() * sizeof(float));
  std::memcpy(scale_bytes.data(), scale.data(), scale_bytes.size());
  gpu::GpuExecutable::Params params;
  params.module_name = "train_step";
  params.allocations = {
      BufferAllocation::Parameter(kStepX, kStepM * kStepK * 4, kStepParamX),
      BufferAllocation::Parameter(kStepW, kStepK * kStepN * 4, kStepParamW),
      BufferAllocation::Parameter(kStepB, kStepN * 4, kStepParamB),
      BufferAllocation::Constant(kStepScale, std::move(scale_bytes)),
      BufferAllocation::Temp(kStepTemp, kTempSize),
      BufferAllocation::Output(kStepLoss, kStepN * 4),
  };
  params.thunks =
      gpu::ScheduleCommandBuffers(Thunks(params.allocations), options);
  params.output_allocations = {kStepW, kStepB, kStepLoss};
  params.signature.parameter_shapes = {F32({kStepM, kStepK}),
                                       F32({kStepK, kStepN}), F32({kStepN})};
  params.signature.output_shapes = {F32({kStepK, kStepN}), F32({kStepN}),
                                    F32({kStepN})};
  params.signature.aliases = {
      {/*output_index=*/0, kStepParamW, InputOutputAlias::Kind::kMayAlias},
      {/*output_index=*/1, kStepParamB, InputOutputAlias::Kind::kMayAlias}};
  params.debug_options = options;
  return params;
}

TrainStepState TrainStepReference(const std::vector<float>& x,
                                  const TrainStepState& state) {
  std::vector<float> scale = MlpScale();
  std::vector<float> z(kStepM * kStepN);
  TrainStepState next{state.w, state.b, std::vector<float>(kStepN, 0.0f)};
  for (int64_t i = 0; i < kStepM; ++i) {
    for (int64_t j = 0; j < kStepN; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < kStepK; ++p) {
        acc += double{x[i * kStepK + p]} * state.w[p * kStepN + j];
      }
      float v = std::max(static_cast<float>(acc) + state.b[j], 0.0f) * scale[j];
      z[i * kStepN + j] = v;
      next.loss[j] += v;
    }
  }
  for (int64_t p = 0; p < kStepK; ++p) {
    for (int64_t j = 0; j < kStepN; ++j) {
      double g = 0;
      for (int64_t i = 0; i < kStepM; ++i) {
        g += double{x[i * kStepK + p]} * z[i * kStepN + j];
      }
      next.w[p * kStepN + j] -= kStepLearningRate * static_cast<float>(g);
    }
  }
  for (int64_t j = 0; j < kStepN; ++j) {
    next.b[j] -= kStepLearningRate * next.loss[j];
  }
  return next;
}

}  // namespace xla_lite::testing
