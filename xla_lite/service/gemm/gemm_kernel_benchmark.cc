// The emitted gemm kernel against the platform's BLAS (cuBLAS, hipBLAS,
// Eigen on the host) on the same row-major product:
//   BM_EmittedGemm/m/n/k/type/heads/form   EmitGemmKernel's kernel,
//                                          launched directly
//   BM_BlasGemm/m/n/k/type/heads/form      BlasSupport::Gemm with
//                                          GemmConfig::ToBlasCalls
//   BM_EmittedGemmTiling/m/n/k/type/0/form/rows/cols/tile_k
//                                          the emitted kernel with the
//                                          tiling given, and
//   BM_BlasGemmProjection/m/n/k/type/0/form
//                                          BLAS, on the medium
//                                          transformer's f32 projections
// type 0 is f32 (full precision), 1 bf16 operands (a bf16 output for the
// dense product, f32 for attention's), 2 f32 operands that may be rounded
// to TF32. heads 0 is one dense row-major product, form's bits transposing
// the stored lhs (1) and rhs (2). heads > 0 is one of attention's products
// for a batch of 16, read in place, so its batches run over two batch
// dimensions that BLAS strides one call at a time (m, n and k as the gemm
// sees them):
//   form 0, the scores (bqhd,bkhd->bhqk): q [16, m, heads, k] times the
//           keys [16, n, heads, k] transposed;
//   form 1, the weighted values as the exported step computes them,
//           transposed (bkhd,bhqk->bhdq): values [16, k, heads, m]
//           transposed times the probabilities [16, heads, n, k]
//           transposed;
//   form 2, the probabilities' gradient times the values
//           (bhqk,bkhd->bhqd): [16, heads, m, k] times [16, k, heads, n].
// Each iteration enqueues kGemmsPerIteration gemms and waits for them, so the
// reported real time includes launching; "per_gemm" is the time of one and
// "flops" the arithmetic rate (2mnk per gemm). Before timing, the emitted
// kernel's result is compared with BLAS's: "max_rel_diff" is the largest
// |emitted - blas| / (1 + |blas|) over the output.
//
//   gemm_kernel_benchmark [--platform=cuda|rocm|host] [--benchmark_... flags]

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"
#include "xla_lite/service/gemm/kernel_benchmark_main.h"

namespace xla_lite::gpu {
namespace {

constexpr int kGemmsPerIteration = 10;

using Env = KernelBenchmarkEnv;
Env& GetEnv() { return GetKernelBenchmarkEnv(); }

// One product's config and device buffers, filled with random values.
struct Problem {
  GemmConfig config;
  se::ScopedDeviceAddress lhs, rhs, out;
};

absl::StatusOr<se::ScopedDeviceAddress> RandomBuffer(const Shape& shape,
                                                     std::mt19937& rng) {
  Env& env = GetEnv();
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(shape.ElementCount());
  for (float& v : values) v = dist(rng);
  std::vector<uint8_t> bytes(shape.ByteSize());
  if (shape.element_type() == PrimitiveType::BF16) {
    // Timing data only: truncating to bf16 is close enough.
    for (size_t i = 0; i < values.size(); ++i) {
      uint32_t word;
      std::memcpy(&word, &values[i], sizeof(word));
      uint16_t upper = static_cast<uint16_t>(word >> 16);
      std::memcpy(&bytes[2 * i], &upper, sizeof(upper));
    }
  } else {
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
  absl::StatusOr<se::ScopedDeviceAddress> mem =
      env.allocator->Allocate(env.executor->device_ordinal(), bytes.size());
  if (!mem.ok()) return mem.status();
  absl::Status copied = env.executor->SynchronousMemcpyH2D(
      bytes.data(), bytes.size(), mem->ptr());
  if (!copied.ok()) return copied;
  return std::move(*mem);
}

constexpr int64_t kAttentionBatch = 16;

absl::StatusOr<GemmConfig> ConfigFor(const benchmark::State& state) {
  PrimitiveType type =
      state.range(3) == 1 ? PrimitiveType::BF16 : PrimitiveType::F32;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int64_t heads = state.range(4), form = state.range(5);
  absl::StatusOr<GemmConfig> config;
  const int64_t b = kAttentionBatch;
  const Shape out(PrimitiveType::F32, {b, heads, m, n});
  if (heads == 0) {
    const bool lhs_t = (form & 1) != 0, rhs_t = (form & 2) != 0;
    config = GemmConfig::For(lhs_t ? Shape(type, {k, m}) : Shape(type, {m, k}),
                             lhs_t,
                             rhs_t ? Shape(type, {n, k}) : Shape(type, {k, n}),
                             rhs_t, Shape(type, {m, n}), 1.0f, 0.0f);
  } else if (form == 0) {
    config = GemmConfig::ForStrided(
        {Shape(type, {b, m, heads, k}), false, heads * k},
        {Shape(type, {b, n, heads, k}), true, heads * k}, out,
        {{b, m * heads * k, n * heads * k}, {heads, k, k}}, m, n, k, 1.0f,
        0.0f);
  } else if (form == 1) {
    config = GemmConfig::ForStrided(
        {Shape(type, {b, k, heads, m}), true, heads * m},
        {Shape(type, {b, heads, n, k}), true, k}, out,
        {{b, k * heads * m, heads * n * k}, {heads, m, n * k}}, m, n, k, 1.0f,
        0.0f);
  } else {
    config = GemmConfig::ForStrided(
        {Shape(type, {b, heads, m, k}), false, k},
        {Shape(type, {b, k, heads, n}), false, heads * n}, out,
        {{b, heads * m * k, k * heads * n}, {heads, m * k, n}}, m, n, k, 1.0f,
        0.0f);
  }
  if (config.ok()) config->allow_tf32 = state.range(3) == 2;
  return config;
}

absl::StatusOr<Problem> MakeProblem(const benchmark::State& state) {
  absl::StatusOr<GemmConfig> config = ConfigFor(state);
  if (!config.ok()) return config.status();
  std::mt19937 rng(1);
  Problem problem{*config, {}, {}, {}};
  for (auto [shape, buffer] :
       {std::pair{&config->lhs_shape, &problem.lhs},
        std::pair{&config->rhs_shape, &problem.rhs},
        std::pair{&config->output_shape, &problem.out}}) {
    absl::StatusOr<se::ScopedDeviceAddress> mem = RandomBuffer(*shape, rng);
    if (!mem.ok()) return mem.status();
    *buffer = std::move(*mem);
  }
  return problem;
}

std::vector<float> DownloadOutput(const Problem& problem) {
  const se::DeviceAddressBase& out = problem.out.cref();
  std::vector<uint8_t> bytes(out.size());
  absl::Status copied =
      GetEnv().executor->SynchronousMemcpyD2H(out, out.size(), bytes.data());
  if (!copied.ok()) return {};
  std::vector<float> values(problem.config.output_shape.ElementCount());
  for (size_t i = 0; i < values.size(); ++i) {
    if (problem.config.output_type == se::blas::DataType::kBF16) {
      uint32_t word = uint32_t{bytes[2 * i]} | uint32_t{bytes[2 * i + 1]} << 8;
      word <<= 16;
      std::memcpy(&values[i], &word, sizeof(float));
    } else {
      std::memcpy(&values[i], &bytes[4 * i], sizeof(float));
    }
  }
  return values;
}

bool Check(benchmark::State& state, const absl::Status& status) {
  if (status.ok()) return true;
  state.SkipWithError(std::string(status.ToString()).c_str());
  return false;
}

void SetCounters(benchmark::State& state, const GemmConfig& config) {
  state.counters["per_gemm"] = benchmark::Counter(
      kGemmsPerIteration, benchmark::Counter::kIsIterationInvariantRate |
                              benchmark::Counter::kInvert);
  state.counters["flops"] = benchmark::Counter(
      2.0 * config.m * config.n * config.k * config.batch * kGemmsPerIteration,
      benchmark::Counter::kIsIterationInvariantRate);
}

// Runs BLAS then the emitted kernel on the problem and compares the outputs.
absl::StatusOr<double> MaxRelativeDifference(Problem& problem,
                                             const se::Kernel& kernel,
                                             const se::KernelArgs& args,
                                             const se::LaunchDimensions& dims) {
  Env& env = GetEnv();
  absl::StatusOr<se::blas::BlasSupport*> blas = env.executor->AsBlas();
  if (!blas.ok()) return blas.status();
  absl::Status status = absl::OkStatus();
  for (const se::blas::GemmCall& call : problem.config.ToBlasCalls(
           problem.lhs.cref(), problem.rhs.cref(), problem.out.cref())) {
    if (status.ok()) status = (*blas)->Gemm(env.stream.get(), call);
  }
  if (status.ok()) status = env.stream->BlockHostUntilDone();
  if (!status.ok()) return status;
  std::vector<float> from_blas = DownloadOutput(problem);
  status = env.stream->Launch(dims, kernel, args);
  if (status.ok()) status = env.stream->BlockHostUntilDone();
  if (!status.ok()) return status;
  std::vector<float> emitted = DownloadOutput(problem);
  if (emitted.empty() || emitted.size() != from_blas.size()) {
    return absl::InternalError("could not read the gemm outputs back");
  }
  double worst = 0;
  for (size_t i = 0; i < emitted.size(); ++i) {
    worst = std::max(worst, std::abs(double{emitted[i]} - from_blas[i]) /
                                (1 + std::abs(from_blas[i])));
  }
  return worst;
}

// Times the emitted kernel with `tiling` on `state`'s problem.
void TimeEmittedGemm(benchmark::State& state, const GemmTiling& tiling) {
  Env& env = GetEnv();
  absl::StatusOr<Problem> problem = MakeProblem(state);
  if (!Check(state, problem.status())) return;
  // Compiling (NVRTC, hiprtc) happens here, outside the timed loop.
  absl::StatusOr<std::unique_ptr<se::Kernel>> kernel =
      env.executor->LoadKernel(EmitGemmKernel(problem->config, "gemm", tiling));
  if (!Check(state, kernel.status())) return;
  se::KernelArgs args(
      {problem->lhs.cref(), problem->rhs.cref(), problem->out.cref()});
  se::LaunchDimensions dims = GemmLaunchDimensionsFor(problem->config, tiling);
  absl::StatusOr<double> difference =
      MaxRelativeDifference(*problem, **kernel, args, dims);
  if (difference.ok()) state.counters["max_rel_diff"] = *difference;
  for (auto _ : state) {
    for (int i = 0; i < kGemmsPerIteration; ++i) {
      if (!Check(state, env.stream->Launch(dims, **kernel, args))) return;
    }
    if (!Check(state, env.stream->BlockHostUntilDone())) return;
  }
  SetCounters(state, problem->config);
}

void BM_EmittedGemm(benchmark::State& state) {
  absl::StatusOr<GemmConfig> config = ConfigFor(state);
  if (!Check(state, config.status())) return;
  TimeEmittedGemm(state, ChooseGemmTiling(*config));
}

void BM_BlasGemm(benchmark::State& state) {
  Env& env = GetEnv();
  absl::StatusOr<se::blas::BlasSupport*> blas = env.executor->AsBlas();
  if (!Check(state, blas.status())) return;
  absl::StatusOr<Problem> problem = MakeProblem(state);
  if (!Check(state, problem.status())) return;
  std::vector<se::blas::GemmCall> calls = problem->config.ToBlasCalls(
      problem->lhs.cref(), problem->rhs.cref(), problem->out.cref());
  auto gemm = [&] {
    for (const se::blas::GemmCall& call : calls) {
      if (!Check(state, (*blas)->Gemm(env.stream.get(), call))) return false;
    }
    return true;
  };
  // The first call may set up the library (handles, heuristics).
  if (!gemm()) return;
  if (!Check(state, env.stream->BlockHostUntilDone())) return;
  for (auto _ : state) {
    for (int i = 0; i < kGemmsPerIteration; ++i) {
      if (!gemm()) return;
    }
    if (!Check(state, env.stream->BlockHostUntilDone())) return;
  }
  SetCounters(state, problem->config);
}

// m, n, k, type, heads, form: an MLP layer's forward product at two sizes
// and the medium transformer's projection (2048x256x256), in f32 and bf16;
// the medium transformer's attention products (4 heads of 128x128 by 64)
// in each type.
#define GEMM_BENCHMARK(fn)                                     \
  BENCHMARK(fn)                                                \
      ->ArgNames({"m", "n", "k", "type", "heads", "form"})     \
      ->Args({64, 128, 128, 0, 0, 0})                          \
      ->Args({256, 1024, 1024, 0, 0, 0})                       \
      ->Args({2048, 256, 256, 0, 0, 0})                        \
      ->Args({64, 128, 128, 1, 0, 0})                          \
      ->Args({256, 1024, 1024, 1, 0, 0})                       \
      ->Args({2048, 256, 256, 1, 0, 0})                        \
      ->ArgsProduct({{128}, {128}, {64}, {0, 1, 2}, {4}, {0}}) \
      ->ArgsProduct({{64}, {128}, {128}, {0, 1, 2}, {4}, {1}}) \
      ->ArgsProduct({{128}, {64}, {128}, {0, 1, 2}, {4}, {2}}) \
      ->UseRealTime()                                          \
      ->Unit(benchmark::kMicrosecond)

GEMM_BENCHMARK(BM_EmittedGemm);
GEMM_BENCHMARK(BM_BlasGemm);

// The emitted kernel with the tiling given as arguments 6-8 (rows and
// columns per thread, tile_k), for tuning.
void BM_EmittedGemmTiling(benchmark::State& state) {
  GemmTiling tiling;
  tiling.rows_per_thread = static_cast<int>(state.range(6));
  tiling.cols_per_thread = static_cast<int>(state.range(7));
  tiling.tile_k = static_cast<int>(state.range(8));
  if (!tiling.IsValid()) {
    state.SkipWithError("invalid tiling");
    return;
  }
  TimeEmittedGemm(state, tiling);
}

// The medium transformer's f32 projections, forward and backward (m, n, k,
// transposes), as the exported step has them; with tilings, each of a few
// register blocks and pass depths.
void ProjectionArgs(benchmark::internal::Benchmark* b, bool with_tilings) {
  const std::vector<std::vector<int64_t>> shapes = {
      {2048, 256, 1024, 0}, {2048, 256, 1024, 2}, {256, 1024, 2048, 1},
      {1024, 256, 2048, 1}, {2048, 1024, 256, 0}, {2048, 1024, 256, 2},
      {2048, 256, 768, 2},  {768, 256, 2048, 1},  {2048, 768, 256, 0},
      {256, 256, 2048, 1},  {2048, 256, 256, 0},  {2048, 256, 256, 2}};
  const std::vector<std::vector<int64_t>> tilings = {
      {4, 4, 16}, {8, 4, 16}, {4, 8, 16}, {8, 4, 32}, {8, 8, 16}};
  for (const auto& s : shapes) {
    if (!with_tilings) {
      b->Args({s[0], s[1], s[2], 0, 0, s[3]});
      continue;
    }
    for (const auto& t : tilings) {
      b->Args({s[0], s[1], s[2], 0, 0, s[3], t[0], t[1], t[2]});
    }
  }
}
BENCHMARK(BM_EmittedGemmTiling)
    ->Apply([](benchmark::internal::Benchmark* b) { ProjectionArgs(b, true); })
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlasGemm)
    ->Name("BM_BlasGemmProjection")
    ->Apply([](benchmark::internal::Benchmark* b) { ProjectionArgs(b, false); })
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace xla_lite::gpu

int main(int argc, char** argv) {
  return xla_lite::gpu::RunKernelBenchmarks(argc, argv, "gemm_kernel_benchmark");
}
