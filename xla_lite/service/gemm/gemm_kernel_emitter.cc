#include "xla_lite/service/gemm/gemm_kernel_emitter.h"

#include "absl/strings/ascii.h"
#include "glog/logging.h"
#include "xla_lite/service/gemm/gemm_host_kernel.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"

namespace xla_lite::gpu {

std::string GemmKernelEntryName(const std::string& name) {
  std::string entry = name;
  for (char& c : entry) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return entry.empty() ? "gemm" : "gemm_" + entry;
}

se::KernelSpec EmitGemmKernel(const GemmConfig& config, const std::string& name,
                              const GemmTiling& tiling) {
  CHECK(tiling.IsValid()) << tiling.ToString();
  CHECK(config.batch >= 0 && config.m >= 0 && config.n >= 0 && config.k >= 0)
      << "gemm config not made by GemmConfig::For: " << config.ToString();
  se::KernelSpec spec;
  spec.name = GemmKernelEntryName(name);
  spec.arity = 3;
  spec.cuda_source = GemmKernelSource(config, tiling, spec.name);
  spec.host_fn = GemmHostKernel(config);
  spec.waits_for_producers = true;  // XL_AWAIT_PRODUCERS().
  VLOG(1) << "emitted gemm kernel " << spec.name << ": " << config.ToString()
          << ", " << tiling.ToString() << ", "
          << GemmLaunchDimensionsFor(config, tiling).ToString();
  VLOG(5) << spec.cuda_source;
  return spec;
}

se::KernelSpec EmitGemmKernel(const GemmConfig& config,
                              const std::string& name) {
  return EmitGemmKernel(config, name, ChooseGemmTiling(config));
}

// Small products run faster as one emitted kernel than through the BLAS
// library, whose small-problem path is bound by its own launches (on an
// H100, a 64x128x128 f32 gemm took 5.8 us emitted against 11.0 us in
// cuBLAS; at 256x1024x1024 cuBLAS was 3.8 times faster). A long
// contraction over few output tiles is the opposite case: the emitted
// kernel walks k serially in each of a handful of blocks (256x10 by
// 1024 took 50 us) where the library splits k.
//
// A product whose batch dimensions do not merge into one stride (the b and h
// of attention's bqhd operands) is a BLAS call per index of all but one of
// them, each a short batch of small matrices; the emitted kernel takes
// every batch in one launch (the medium transformer's 16 x 4 heads of
// 128x128x64: 39.0 us in 4 cuBLAS calls, 13.1 us emitted, on an H100).
bool UsesEmittedGemmKernel(const GemmConfig& config,
                           const GemmEmission& emission) {
  if (emission.always || config.f64_tensor_cores) return true;
  const int64_t size = config.batch * config.m * config.n * config.k;
  if (emission.max_size > 0 && config.batch_dims.size() > 1 &&
      size <= GemmEmission::kMaxSplitBatchSize) {
    return true;
  }
  return size <= emission.max_size &&
         ChooseGemmTiling(config).tile_k >= config.k;
}

bool SuitsF64TensorCores(const GemmConfig& config,
                         const GemmEmission& emission) {
  if (config.type != se::blas::DataType::kF32 ||
      config.output_type != se::blas::DataType::kF32 || config.allow_tf32 ||
      config.k < 8 || config.k % 8 != 0) {
    return false;
  }
  // The 64x64 tiles ChooseGemmTiling gives such products.
  if (GemmBlockCount(config, GemmTiling()) < kMinF64TensorCoreBlocks) {
    return false;
  }
  GemmConfig fma = config;
  fma.f64_tensor_cores = false;
  return UsesEmittedGemmKernel(fma, emission);
}

se::LaunchDimensions GemmLaunchDimensions(const GemmConfig& config) {
  return GemmLaunchDimensionsFor(config, ChooseGemmTiling(config));
}

}  // namespace xla_lite::gpu
