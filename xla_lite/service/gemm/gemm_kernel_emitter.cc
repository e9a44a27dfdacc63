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
  VLOG(1) << "emitted gemm kernel " << spec.name << ": " << config.ToString()
          << ", " << tiling.ToString() << ", "
          << GemmLaunchDimensionsFor(config, tiling).ToString();
  return spec;
}

se::KernelSpec EmitGemmKernel(const GemmConfig& config,
                              const std::string& name) {
  return EmitGemmKernel(config, name, ChooseGemmTiling(config));
}

se::LaunchDimensions GemmLaunchDimensions(const GemmConfig& config) {
  return GemmLaunchDimensionsFor(config, ChooseGemmTiling(config));
}

}  // namespace xla_lite::gpu
