// The emitted convolution kernels on the cnn_cifar model's convolutions
// (configs/models/cnn_cifar: batch 64, 32x32x3 input, 32-128 channels):
//   BM_TiledConvolution/conv     the tiled implicit gemm (with split-K
//                                where ChooseConvolutionGemm splits)
//   BM_UntiledConvolution/conv   one output element per thread
//   BM_DnnConvolution/conv       the DNN library's call (DnnConvolutionFor)
//                                with the algorithm it times fastest;
//                                skipped where there is no library
// `conv` indexes kConvolutions: forward, input- and filter-gradient forms.
// Each iteration enqueues kConvolutionsPerIteration convolutions (every
// kernel of each) and waits for them, so the real time includes launching;
// "per_conv" is the time of one and "flops" the arithmetic rate (2mnk per
// group). Before timing, the tiled result is compared with the untiled
// one's (and so is the library's): "max_rel_diff" is the largest
// |tiled - untiled| / (1 + |untiled|).
//
//   conv_kernel_benchmark [--platform=cuda|rocm|host] [--benchmark_... flags]

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/service/convolution/dnn_convolution.h"
#include "xla_lite/service/convolution/windowed_kernels.h"
#include "xla_lite/service/gemm/kernel_benchmark_main.h"

namespace xla_lite::gpu {
namespace {

constexpr int kConvolutionsPerIteration = 10;

struct ConvolutionCase {
  const char* name;  // The model's instruction.
  const char* lhs;
  const char* rhs;
  const char* out;
  const char* attributes;
};

constexpr char kForward[] =
    "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
constexpr char kInputGradient[] =
    "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f";
constexpr char kFilterGradient32[] =
    "window={size=32x32 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf";
constexpr char kFilterGradient16[] =
    "window={size=16x16 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf";
constexpr char kFilterGradient8[] =
    "window={size=8x8 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf";

// The distinct convolutions of cnn_cifar's training step.
const ConvolutionCase kConvolutions[] = {
    {"14", "64,32,32,3", "3,3,3,32", "64,32,32,32", kForward},
    {"15", "64,32,32,32", "3,3,32,64", "64,32,32,64", kForward},
    {"16", "64,16,16,64", "3,3,64,64", "64,16,16,64", kForward},
    {"18", "64,8,8,64", "3,3,64,128", "64,8,8,128", kForward},
    {"20", "64,8,8,128", "3,3,64,128", "64,8,8,64", kInputGradient},
    {"22", "64,16,16,64", "3,3,64,64", "64,16,16,64", kInputGradient},
    {"26", "64,32,32,64", "3,3,32,64", "64,32,32,32", kInputGradient},
    {"27", "64,32,32,3", "64,32,32,32", "3,3,3,32", kFilterGradient32},
    {"25", "64,32,32,32", "64,32,32,64", "3,3,32,64", kFilterGradient32},
    {"23", "64,16,16,64", "64,16,16,64", "3,3,64,64", kFilterGradient16},
    {"19", "64,8,8,64", "64,8,8,128", "3,3,64,128", kFilterGradient8},
};

using Env = KernelBenchmarkEnv;
Env& GetEnv() { return GetKernelBenchmarkEnv(); }

absl::StatusOr<se::ScopedDeviceAddress> Allocate(int64_t elements) {
  Env& env = GetEnv();
  return env.allocator->Allocate(
      env.executor->device_ordinal(),
      std::max<int64_t>(elements, 1) * sizeof(float));
}

absl::StatusOr<se::ScopedDeviceAddress> RandomBuffer(int64_t elements,
                                                     std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(elements);
  for (float& v : values) v = dist(rng);
  absl::StatusOr<se::ScopedDeviceAddress> mem = Allocate(elements);
  if (!mem.ok()) return mem.status();
  absl::Status copied = GetEnv().executor->SynchronousMemcpyH2D(
      values.data(), values.size() * sizeof(float), mem->ptr());
  if (!copied.ok()) return copied;
  return std::move(*mem);
}

// One convolution's loaded kernels and device buffers: (lhs, rhs, out,
// scratch), as WindowedKernel::arguments index them.
struct Problem {
  ConvolutionConfig config;
  std::vector<se::ScopedDeviceAddress> buffers;
  std::vector<std::unique_ptr<se::Kernel>> kernels;
  std::vector<se::LaunchDimensions> dimensions;
  std::vector<se::KernelArgs> args;
  // Set when the library runs the convolution instead of the kernels.
  std::optional<se::dnn::ConvolutionCall> dnn_call;
  se::ScopedDeviceAddress dnn_workspace;
};

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFor(
    const ConvolutionCase& c) {
  return ParseHloModule(absl::StrCat(
      "HloModule conv\nENTRY main {\n  x = f32[", c.lhs,
      "] parameter(0)\n  k = f32[", c.rhs, "] parameter(1)\n  ROOT r = f32[",
      c.out, "] convolution(x, k), ", c.attributes, "\n}\n"));
}

// The convolution of `c` as EmitWindowedKernels emits it (`tiled`), or one
// output per thread; the same random operands for both.
absl::StatusOr<Problem> MakeProblem(const ConvolutionCase& c, bool tiled) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ModuleFor(c);
  if (!module.ok()) return module.status();
  const HloInstruction& conv =
      *(*module)->entry_computation()->root_instruction();
  absl::StatusOr<ConvolutionConfig> config = ConvolutionConfigFor(conv);
  if (!config.ok()) return config.status();
  std::vector<WindowedKernel> kernels;
  if (tiled) {
    absl::StatusOr<std::vector<WindowedKernel>> emitted =
        EmitWindowedKernels(conv, "conv");
    if (!emitted.ok()) return emitted.status();
    kernels = std::move(*emitted);
  } else {
    config->gemm.tiled = false;
    config->gemm.splits = 1;
    kernels.push_back({EmitConvolutionKernel(*config, "conv"),
                       WindowedLaunchDimensions(config->out_elements),
                       {0, 1, 2}});
  }
  Problem problem;
  problem.config = *config;
  std::mt19937 rng(1);
  for (int64_t elements : {config->lhs_elements, config->rhs_elements}) {
    absl::StatusOr<se::ScopedDeviceAddress> mem = RandomBuffer(elements, rng);
    if (!mem.ok()) return mem.status();
    problem.buffers.push_back(std::move(*mem));
  }
  for (int64_t elements :
       {config->out_elements, config->gemm.ScratchElements()}) {
    absl::StatusOr<se::ScopedDeviceAddress> mem = Allocate(elements);
    if (!mem.ok()) return mem.status();
    problem.buffers.push_back(std::move(*mem));
  }
  // Compiling (NVRTC, hiprtc) happens here, outside the timed loop.
  for (WindowedKernel& kernel : kernels) {
    absl::StatusOr<std::unique_ptr<se::Kernel>> loaded =
        GetEnv().executor->LoadKernel(kernel.spec);
    if (!loaded.ok()) return loaded.status();
    problem.kernels.push_back(std::move(*loaded));
    problem.dimensions.push_back(kernel.launch_dimensions);
    std::vector<se::DeviceAddressBase> args;
    for (int b : kernel.arguments) args.push_back(problem.buffers[b].cref());
    problem.args.emplace_back(args);
  }
  return problem;
}

absl::Status Run(Problem& problem) {
  if (problem.dnn_call.has_value()) {
    absl::StatusOr<se::dnn::DnnSupport*> dnn = GetEnv().executor->AsDnn();
    if (!dnn.ok()) return dnn.status();
    return (*dnn)->Convolution(GetEnv().stream.get(), *problem.dnn_call,
                               problem.dnn_workspace.cref());
  }
  for (size_t i = 0; i < problem.kernels.size(); ++i) {
    absl::Status status = GetEnv().stream->Launch(
        problem.dimensions[i], *problem.kernels[i], problem.args[i]);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> RunOnce(Problem& problem) {
  absl::Status status = Run(problem);
  if (status.ok()) status = GetEnv().stream->BlockHostUntilDone();
  if (!status.ok()) return status;
  std::vector<float> out(problem.config.out_elements);
  status = GetEnv().executor->SynchronousMemcpyD2H(
      problem.buffers[2].cref(), out.size() * sizeof(float), out.data());
  if (!status.ok()) return status;
  return out;
}

bool Check(benchmark::State& state, const absl::Status& status) {
  if (status.ok()) return true;
  state.SkipWithError(std::string(status.ToString()).c_str());
  return false;
}

absl::StatusOr<double> MaxRelativeDifference(Problem& tiled,
                                             const ConvolutionCase& c) {
  absl::StatusOr<Problem> untiled = MakeProblem(c, /*tiled=*/false);
  if (!untiled.ok()) return untiled.status();
  absl::StatusOr<std::vector<float>> expected = RunOnce(*untiled);
  if (!expected.ok()) return expected.status();
  absl::StatusOr<std::vector<float>> actual = RunOnce(tiled);
  if (!actual.ok()) return actual.status();
  double worst = 0;
  for (size_t i = 0; i < actual->size(); ++i) {
    worst = std::max(worst, std::abs(double{(*actual)[i]} - (*expected)[i]) /
                                (1 + std::abs((*expected)[i])));
  }
  return worst;
}

void Time(benchmark::State& state, Problem& problem) {
  if (!Check(state, Run(problem))) return;  // Warms up.
  for (auto _ : state) {
    for (int i = 0; i < kConvolutionsPerIteration; ++i) {
      if (!Check(state, Run(problem))) return;
    }
    if (!Check(state, GetEnv().stream->BlockHostUntilDone())) return;
  }
  const ConvolutionGemm& g = problem.config.gemm;
  state.counters["per_conv"] = benchmark::Counter(
      kConvolutionsPerIteration,
      benchmark::Counter::kIsIterationInvariantRate |
          benchmark::Counter::kInvert);
  state.counters["flops"] = benchmark::Counter(
      2.0 * g.groups * g.m * g.n * g.k * kConvolutionsPerIteration,
      benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(problem.config.gemm.ToString());
}

void BM_TiledConvolution(benchmark::State& state) {
  const ConvolutionCase& c = kConvolutions[state.range(0)];
  absl::StatusOr<Problem> problem = MakeProblem(c, /*tiled=*/true);
  if (!Check(state, problem.status())) return;
  absl::StatusOr<double> difference = MaxRelativeDifference(*problem, c);
  if (!Check(state, difference.status())) return;
  state.counters["max_rel_diff"] = *difference;
  Time(state, *problem);
}

void BM_UntiledConvolution(benchmark::State& state) {
  absl::StatusOr<Problem> problem =
      MakeProblem(kConvolutions[state.range(0)], /*tiled=*/false);
  if (!Check(state, problem.status())) return;
  Time(state, *problem);
}

// The tiled problem's buffers under the library's call.
absl::Status UseLibrary(Problem& problem) {
  absl::StatusOr<se::dnn::DnnSupport*> dnn = GetEnv().executor->AsDnn();
  if (!dnn.ok()) return dnn.status();
  std::optional<se::dnn::ConvolutionCall> call =
      DnnConvolutionFor(problem.config);
  if (!call.has_value()) {
    return absl::UnimplementedError("the library cannot take this form");
  }
  const bool forward = call->kind == se::dnn::ConvolutionKind::kForward;
  call->input_data = problem.buffers[0].cref();
  call->filter_data = problem.buffers[forward ? 1 : 2].cref();
  call->output_data = problem.buffers[forward ? 2 : 1].cref();
  problem.dnn_call = *call;
  absl::StatusOr<uint64_t> bytes =
      (*dnn)->PrepareConvolution(GetEnv().stream.get(), *call);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<se::ScopedDeviceAddress> workspace =
      Allocate((*bytes + sizeof(float) - 1) / sizeof(float));
  if (!workspace.ok()) return workspace.status();
  problem.dnn_workspace = std::move(*workspace);
  return absl::OkStatus();
}

void BM_DnnConvolution(benchmark::State& state) {
  const ConvolutionCase& c = kConvolutions[state.range(0)];
  absl::StatusOr<Problem> problem = MakeProblem(c, /*tiled=*/true);
  if (!Check(state, problem.status())) return;
  absl::Status library = UseLibrary(*problem);
  if (!library.ok()) {
    state.SkipWithError(std::string(library.ToString()).c_str());
    return;
  }
  absl::StatusOr<double> difference = MaxRelativeDifference(*problem, c);
  if (!Check(state, difference.status())) return;
  state.counters["max_rel_diff"] = *difference;
  Time(state, *problem);
  state.SetLabel(problem->dnn_call->ShapeString());
}

#define CONVOLUTION_BENCHMARK(fn)                                  \
  BENCHMARK(fn)                                                    \
      ->ArgName("conv")                                            \
      ->DenseRange(0, std::size(kConvolutions) - 1)                \
      ->UseRealTime()                                              \
      ->Unit(benchmark::kMicrosecond)

CONVOLUTION_BENCHMARK(BM_TiledConvolution);
CONVOLUTION_BENCHMARK(BM_UntiledConvolution);
CONVOLUTION_BENCHMARK(BM_DnnConvolution);

}  // namespace
}  // namespace xla_lite::gpu

int main(int argc, char** argv) {
  return xla_lite::gpu::RunKernelBenchmarks(argc, argv, "conv_kernel_benchmark");
}
