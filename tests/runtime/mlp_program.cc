#include "tests/runtime/mlp_program.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "glog/logging.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/memcpy_thunk.h"
#include "xla_lite/runtime/memset_thunk.h"
#include "xla_lite/shape.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;

std::vector<uint8_t> Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(float));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

Shape X() { return Shape(PrimitiveType::F32, {kMlpM, kMlpK}); }
Shape W() { return Shape(PrimitiveType::F32, {kMlpK, kMlpN}); }
Shape B() { return Shape(PrimitiveType::F32, {kMlpN}); }
Shape MN() { return Shape(PrimitiveType::F32, {kMlpM, kMlpN}); }

}  // namespace

std::vector<float> MlpScale() {
  std::vector<float> scale(kMlpN);
  for (int64_t j = 0; j < kMlpN; ++j) scale[j] = 0.5f + 0.125f * (j % 5);
  return scale;
}

MlpProgram BuildMlpProgram(se::KernelSpec bias_kernel) {
  MlpProgram program;
  program.allocations = {
      BufferAllocation::Parameter(kMlpX, X().ByteSize(), 0),
      BufferAllocation::Parameter(kMlpW, W().ByteSize(), 1),
      BufferAllocation::Parameter(kMlpB, B().ByteSize(), 2),
      BufferAllocation::Constant(kMlpScale, Bytes(MlpScale())),
      BufferAllocation::Temp(kMlpTemp, kMlpTempOffset + MN().ByteSize()),
      BufferAllocation::Output(kMlpZ, MN().ByteSize()),
      BufferAllocation::Output(kMlpSums, B().ByteSize()),
      BufferAllocation::Output(kMlpLastRow, B().ByteSize()),
  };
  const auto& a = program.allocations;
  BufferAllocation::Slice y =
      a[kMlpTemp].GetSlice(kMlpTempOffset, MN().ByteSize());
  auto gemm = gpu::GemmConfig::For(X(), false, W(), false, MN(), 1.0f, 0.0f);
  CHECK(gemm.ok()) << gemm.status();
  program.thunks.push_back(std::make_unique<gpu::GemmThunk>(
      "dot", *gemm, a[kMlpX].GetSlice(), a[kMlpW].GetSlice(), y));
  program.thunks.push_back(std::make_unique<gpu::KernelThunk>(
      "bias_relu_scale", std::move(bias_kernel),
      se::LaunchDimensionsFor(kMlpM * kMlpN),
      std::vector<BufferAllocation::Slice>{
          y, a[kMlpB].GetSlice(), a[kMlpScale].GetSlice(), a[kMlpZ].GetSlice()},
      std::vector<bool>{false, false, false, true}));
  program.thunks.push_back(std::make_unique<gpu::MemsetThunk>(
      "zero", a[kMlpSums].GetSlice(), uint8_t{0}));
  program.thunks.push_back(std::make_unique<gpu::KernelThunk>(
      "column_sum", ColumnSumKernel(kMlpM, kMlpN),
      se::LaunchDimensionsFor(kMlpN),
      std::vector<BufferAllocation::Slice>{a[kMlpZ].GetSlice(),
                                           a[kMlpSums].GetSlice()},
      std::vector<bool>{false, true}));
  program.thunks.push_back(std::make_unique<gpu::MemcpyThunk>(
      "last_row", a[kMlpZ].GetSlice((kMlpM - 1) * kMlpN * 4, kMlpN * 4),
      a[kMlpLastRow].GetSlice()));
  return program;
}

gpu::GpuExecutable::Params MlpExecutableParams(MlpProgram program) {
  gpu::GpuExecutable::Params params;
  params.module_name = "mlp";
  params.allocations = std::move(program.allocations);
  params.thunks = std::move(program.thunks);
  params.output_allocations = {kMlpZ, kMlpSums, kMlpLastRow};
  params.signature.parameter_shapes = {X(), W(), B()};
  params.signature.output_shapes = {MN(), B(), B()};
  return params;
}

MlpResults MlpReference(const std::vector<float>& x,
                        const std::vector<float>& w,
                        const std::vector<float>& b) {
  std::vector<float> scale = MlpScale();
  MlpResults r{
      std::vector<float>(kMlpM * kMlpN), std::vector<float>(kMlpN, 0.0f), {}};
  for (int64_t i = 0; i < kMlpM; ++i) {
    for (int64_t j = 0; j < kMlpN; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < kMlpK; ++p) {
        acc += double{x[i * kMlpK + p]} * w[p * kMlpN + j];
      }
      float z = std::max(static_cast<float>(acc) + b[j], 0.0f) * scale[j];
      r.z[i * kMlpN + j] = z;
      r.sums[j] += z;
    }
  }
  r.last_row.assign(r.z.end() - kMlpN, r.z.end());
  return r;
}

}  // namespace xla_lite::testing
